// The CLI's one connection to the server: JSON over HTTP on the server's unix
// socket, starting the server on first use. Every verb goes through here, so
// the "server not running" and version handling live in one place: each
// request says this tend's build and API versions, each reply the server's
// (docs/api.md, "Versions"); another build is said once (build-notice.ts),
// and one that shares no API version ends the command.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serverArgs } from '../common/node-flags.js';
import { resolvePaths, ensureRuntimeDirs, writeBlockerOf, type TendPaths } from '../common/paths.js';
import { awaitReady } from '../protocol/ready-pipe.js';
import { startFailureMessage } from '../common/start-failure.js';
import { diskTroubleOf } from '../common/disk-trouble.js';
import { liveHomeLock } from '../common/home-lock.js';
import { CliError, errorFromApi } from './cli-error.js';
import { EXIT } from './exit-codes.js';
import { startThroughService } from './service/start-through-service.js';
import { API_ROUTES, routeRequest, type ApiRoute, type HealthReply, type RouteQuery, type VersionRange } from '../protocol/api/index.js';
import { API_HEADER, API_VERSIONS, BUILD_HEADER, VERSION_HEADER, formatVersionRange, parseVersionRange, versionRangesOverlap } from '../protocol/api/versions.js';
import { TEND_BUILD, TEND_VERSION } from '../common/version.js';
import { incompatibleServerMessage, noteServerTend, type ServerTend } from './build-notice.js';

// CliError is defined with the way errors are said (cli-error.ts); verbs and the attach take it from here.
export { CliError } from './cli-error.js';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  /** Which tend answered, and the API versions it speaks (its reply's headers). */
  server: { tend: ServerTend; api: VersionRange };
}

/** What this tend says on every request: the server may refuse a client whose API it does not speak, before doing anything. */
const OWN_HEADERS = {
  [VERSION_HEADER]: TEND_VERSION,
  [BUILD_HEADER]: TEND_BUILD,
  [API_HEADER]: formatVersionRange(API_VERSIONS),
};

/**
 * A request the server took and has not answered for this long gets a
 * health check on a connection of its own: a live server that is merely
 * slow at this request (a long search) answers it, and the wait goes on; a
 * stopped, stuck or foreign one does not, and the request ends with why.
 */
const STALL_CHECK_MS = 5000;
/** How long that health check may take. */
const STALL_HEALTH_TIMEOUT_MS = 5000;

/** A starting server that says nothing for this long has failed (progress lines restart the wait). */
const SERVER_START_TIMEOUT_MS = 15_000;
/** How often a starter that lost the race polls for the winner's server to answer. */
const RUNNING_POLL_MS = 100;
/** A start still recovering sessions after this long tells the user why the command waits. */
const RECOVERY_NOTICE_MS = 1000;
const serverMain = fileURLToPath(new URL('../server/main.js', import.meta.url));

export class TendClient {
  /** Where this client looks; serverSocket follows TEND_HOME's server when it listens elsewhere (see followHomeLock). */
  readonly paths: TendPaths;
  /** The socket this client's own runtime directory puts the server on. */
  private readonly ownSocket: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.paths = resolvePaths(env);
    this.ownSocket = this.paths.serverSocket;
  }

  /**
   * One request; no auto-start. Rejects with the socket error when there is
   * no server, and with a CliError (EXIT.incompatible) when the server shares
   * no API version with this tend; says once when it is another build.
   */
  async raw<T>(method: string, path: string, body?: unknown, timeoutMs = 0): Promise<ApiResponse<T>> {
    const res = await this.rawUnchecked<T>(method, path, body, timeoutMs);
    if (!versionRangesOverlap(res.server.api, API_VERSIONS)) {
      throw new CliError(incompatibleServerMessage(res.server.tend, res.server.api), EXIT.incompatible, { code: 'server_incompatible' });
    }
    noteServerTend(res.server.tend);
    return res;
  }

  /**
   * raw() without the version check or the other-build notice, for `tend
   * upgrade`: it talks to servers of other builds on purpose, and must work
   * across an API change (it is the remedy the notice names), using only
   * routes every API version keeps (health, sessions, server stop). It says
   * nothing of its own API, as curl does, so no server refuses it for that.
   */
  rawAnyVersion<T>(method: string, path: string, body?: unknown, timeoutMs = 0): Promise<ApiResponse<T>> {
    return this.rawUnchecked<T>(method, path, body, timeoutMs, false);
  }

  /** raw() without the version check: for asking whether a server runs at all. */
  private async rawUnchecked<T>(method: string, path: string, body: unknown, timeoutMs: number, sayWhichTend = true): Promise<ApiResponse<T>> {
    try {
      return await this.request<T>(method, path, body, timeoutMs, sayWhichTend);
    } catch (err) {
      // Nobody on this socket: the server of this TEND_HOME may listen on another one.
      if (!isNoServer(err) || !this.followHomeLock()) throw err;
      return this.request<T>(method, path, body, timeoutMs, sayWhichTend);
    }
  }

  /**
   * Points this client at the socket of the server that holds TEND_HOME's
   * lock: one started with another runtime directory (another
   * XDG_RUNTIME_DIR or TEND_RUNTIME_DIR) serves this home all the same, and
   * a second server beside it would share its store and holders. When no
   * server holds the lock any more, back to this client's own socket.
   * True when the socket changed.
   */
  /**
   * The socket of the server that serves TEND_HOME now, its lock read again:
   * for a connection opened again after the server went away (a new server
   * may listen in another runtime directory).
   */
  currentServerSocket(): string {
    this.followHomeLock();
    return this.paths.serverSocket;
  }

  private followHomeLock(): boolean {
    const socket = liveHomeLock(this.paths.homeLockFile)?.socket ?? this.ownSocket;
    if (socket === this.paths.serverSocket) return false;
    this.paths.serverSocket = socket;
    return true;
  }

  /** timeoutMs: the longest the socket may stay quiet; 0: as long as the server is alive (see STALL_CHECK_MS). */
  private request<T>(method: string, path: string, body: unknown, timeoutMs: number, sayWhichTend = true): Promise<ApiResponse<T>> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const socketPath = this.paths.serverSocket;
      let stallTimer: NodeJS.Timeout | null = null;
      const stopStallCheck = () => {
        if (stallTimer !== null) clearTimeout(stallTimer);
        stallTimer = null;
      };
      const req = httpRequest(
        {
          socketPath,
          // The global agent drops a pooled socket after 5 s idle, and a call
          // that waits for its answer (await) is idle until answered.
          agent: false,
          method,
          path,
          headers: { ...(sayWhichTend ? OWN_HEADERS : {}), ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
          timeout: timeoutMs || undefined,
        },
        (res) => {
          stopStallCheck();
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            if ((res.headers['content-type'] ?? '').startsWith('application/json')) {
              try {
                parsed = JSON.parse(text);
              } catch {
                /* leave as text */
              }
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T, server: serverOf(res.headers) });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out waiting for the tend server')));
      req.on('error', (err) => {
        stopStallCheck();
        reject(err);
      });
      req.end(payload);
      if (timeoutMs > 0) return;
      const startedAt = performance.now();
      const checkAlive = () => {
        this.answersHealth(socketPath).then((alive) => {
          if (req.destroyed || stallTimer === null) return;
          if (alive) {
            stallTimer = setTimeout(checkAlive, STALL_CHECK_MS);
            return;
          }
          const waitedS = Math.round((performance.now() - startedAt) / 1000);
          const pid = liveHomeLock(this.paths.homeLockFile)?.pid;
          const who = pid === undefined ? `the server on ${socketPath}` : `the server (pid ${pid})`;
          const what = pid === undefined ? 'its process' : `\`kill -CONT ${pid}\` resumes a stopped one, \`kill ${pid}\` ends a stuck one`;
          req.destroy(new Error(
            `${who} took the request but has not answered in ${waitedS} s, nor a health check: it is stopped or stuck (${what}; its sessions live on in their holders)`,
          ));
        });
      };
      stallTimer = setTimeout(checkAlive, STALL_CHECK_MS);
    });
  }

  /** True when GET /v1/health on this socket answers 200 within STALL_HEALTH_TIMEOUT_MS. */
  private answersHealth(socketPath: string): Promise<boolean> {
    return new Promise((resolve) => {
      const req = httpRequest(
        { socketPath, agent: false, method: API_ROUTES.health.method, path: API_ROUTES.health.path, timeout: STALL_HEALTH_TIMEOUT_MS },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer')));
      req.on('error', () => resolve(false));
      req.end();
    });
  }

  /** A call to a route of the API's contract (see call). */
  callRoute<T>(route: ApiRoute, params: Record<string, string> = {}, body?: unknown, query?: RouteQuery): Promise<T> {
    const { method, path } = routeRequest(route, params, query);
    return this.call<T>(method, path, body);
  }

  /** A request that starts the server when none is running, and turns API errors into CliError. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: ApiResponse<T>;
    try {
      res = await this.raw<T>(method, path, body);
    } catch (err) {
      if (!isNoServer(err)) throw unreachable(err);
      await this.startServer();
      res = await this.raw<T>(method, path, body);
    }
    if (res.status >= 400) throw errorFromApi(res.status, res.body);
    return res.body;
  }

  async isRunning(): Promise<{ pid: number; boot: string; version: string } | null> {
    try {
      const res = await this.rawUnchecked<Pick<HealthReply, 'pid' | 'boot' | 'version'>>(API_ROUTES.health.method, API_ROUTES.health.path, undefined, 5000);
      return res.status === 200 ? res.body : null;
    } catch {
      return null;
    }
  }

  /** Polls until a server answers, or null after timeoutMs. */
  private async waitRunning(timeoutMs: number): Promise<{ pid: number } | null> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const running = await this.isRunning();
      if (running || performance.now() >= deadline) return running;
      await new Promise((r) => setTimeout(r, RUNNING_POLL_MS));
    }
  }

  /**
   * While a live server holds TEND_HOME's lock (on another socket, or still
   * starting), it is the one to use, not a second: waits for it to answer and
   * returns its pid. Null once no server holds the lock, or when the holder
   * has not answered within SERVER_START_TIMEOUT_MS.
   */
  private async waitForLockHolder(): Promise<number | null> {
    const deadline = performance.now() + SERVER_START_TIMEOUT_MS;
    for (;;) {
      const holder = liveHomeLock(this.paths.homeLockFile);
      if (holder === null) return null;
      this.paths.serverSocket = holder.socket;
      const running = await this.isRunning();
      if (running) return running.pid;
      if (performance.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, RUNNING_POLL_MS));
    }
  }

  /**
   * Starts a detached server and waits until it serves (or says why it
   * cannot). quiet: no word on the terminal while it waits (`tend attach`'s
   * own start: the terminal shows a session's screen, and a line there would
   * be written into it).
   */
  async startServer(options: { quiet?: boolean } = {}): Promise<number> {
    const serving = await this.waitForLockHolder();
    if (serving !== null) return serving;
    this.paths.serverSocket = this.ownSocket;
    if (!existsSync(serverMain)) throw startFailed(`the server is not built (${serverMain} is missing); run \`npm install\``);
    try {
      ensureRuntimeDirs(this.paths);
    } catch (err) {
      throw startFailed(`the tend server could not start: ${startFailureMessage(err, this.paths)}`);
    }
    // A service installed for this home starts the server itself (service/start-through-service.ts).
    if (await startThroughService(this.paths.home)) {
      const running = await this.waitRunning(SERVER_START_TIMEOUT_MS);
      if (running) return running.pid;
    }
    const child = spawn(process.execPath, serverArgs(serverMain), {
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      env: process.env,
    });
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    const startedAt = performance.now();
    let told = false;
    const line = await awaitReady(pipe, {
      silenceMs: SERVER_START_TIMEOUT_MS,
      onProgress: (done, total) => {
        // A quick start says nothing; a long recovery says why the command waits.
        if (told || options.quiet === true || done >= total || performance.now() - startedAt < RECOVERY_NOTICE_MS || !process.stderr.isTTY) return;
        told = true;
        process.stderr.write(`tend: the server is recovering ${total} sessions (${done} done)…\n`);
      },
    });
    child.unref();
    (pipe as unknown as { destroy(): void }).destroy();
    if (line.kind === 'ok') return line.pid;
    const message = line.unanswered ? `${line.message}; ${this.whereToLook()}` : line.message;
    // Two starters raced (a verb and an attach bringing a dead server back):
    // the other one's server is as good as ours, once it answers (it may
    // still be recovering sessions).
    if (message.includes('already running')) {
      const running = await this.waitRunning(SERVER_START_TIMEOUT_MS);
      if (running) return running.pid;
    }
    throw startFailed(`the tend server could not start: ${message}`);
  }

  /**
   * Where a server that died without a word left its reason: its log, when
   * there is one. A server that could not even write its log most likely met
   * a TEND_HOME it may not write; pointing at a log that cannot exist helps nobody.
   */
  private whereToLook(): string {
    if (existsSync(this.paths.serverLog)) return `see ${this.paths.serverLog}`;
    const blocked = unwritableReason(this.paths.home);
    if (blocked !== null) {
      return `it could not write its log either: TEND_HOME ${this.paths.home} ${blocked}. ` +
        'The server keeps its store, checkpoints and logs there; make it writable, or set TEND_HOME to a directory you can write';
    }
    return `it wrote no log (${this.paths.serverLog} does not exist); try \`node ${serverMain} --foreground\` to see why`;
  }
}

/** Why TEND_HOME cannot be written (or made), in words; null if it can. */
function unwritableReason(dir: string): string | null {
  const blocker = writeBlockerOf(dir);
  if (blocker === null) return null;
  const trouble = diskTroubleOf(blocker);
  const how = trouble === null ? blocker.message : `${trouble.reason} (${trouble.code})`;
  return blocker.path === undefined || blocker.path === dir ? `cannot be written: ${how}` : `cannot be created in ${blocker.path}: ${how}`;
}

export function isNoServer(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

/** Which tend answered, from its reply's headers: a server from before build ids says nothing, and spoke API 1. */
function serverOf(headers: IncomingHttpHeaders): ApiResponse['server'] {
  const one = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  return {
    tend: { version: one(VERSION_HEADER), build: one(BUILD_HEADER) },
    api: parseVersionRange(one(API_HEADER) ?? undefined) ?? { oldest: 1, newest: 1 },
  };
}

/** A server that is there but cannot be talked to (a reset, a timeout); a CliError (an incompatible server) as it is. */
export function unreachable(err: unknown): CliError {
  if (err instanceof CliError) return err;
  return new CliError(`cannot talk to the tend server: ${(err as Error).message}`, EXIT.failed, { code: 'server_unreachable' });
}

function startFailed(message: string): CliError {
  return new CliError(message, EXIT.failed, { code: 'server_start_failed' });
}
