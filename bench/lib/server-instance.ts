// A private tend server for the server suites: its own TEND_HOME and runtime
// dir under the run's temp dir, started the way `tend server start` starts it
// (the server's main with a ready pipe), driven over its HTTP API on the unix
// socket, and ended by PID — the server, every holder it started and their
// programs — however the run ends.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Disposable } from '../../src/common/lifecycle.js';
import { TendClient } from '../../src/cli/client.js';
import { serverArgs } from '../../src/common/node-flags.js';
import { awaitReady } from '../../src/protocol/ready-pipe.js';
import { holderBinary } from './bench-holder.js';
import { isAlive } from './child-process.js';
import type { BenchContext } from './suite.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

export interface BenchServerOptions {
  scrollbackRows?: number;
  ringBytes?: number;
  checkpointQuietMs?: number;
  checkpointMaxMs?: number;
}

/** The fields of a session object the suites read. */
export type BenchSession = Pick<SessionInfo, 'id' | 'status' | 'pid' | 'holderPid' | 'cols' | 'rows' | 'offset' | 'generation' | 'degraded'>;

const READY_TIMEOUT_MS = 60_000;
const EXIT_WAIT_MS = 10_000;
const EXIT_POLL_MS = 10;
/** A request to a busy server may wait behind long parse slices; this is a hang guard only. */
const REQUEST_TIMEOUT_MS = 120_000;

/** Why the server suites cannot run, or undefined when they can. */
export function serverMissing(root: string): string | undefined {
  const main = join(root, 'dist', 'src', 'server', 'main.js');
  const holder = holderBinary(root);
  try {
    readFileSync(main);
    readFileSync(holder);
  } catch {
    return `server or holder not built (need dist/src/server/main.js and ${holder.slice(root.length + 1)})`;
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, pollMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** Servers launched by this bench process: numbers their output files. */
let launches = 0;

export class BenchServer implements Disposable {
  readonly client: TendClient;
  readonly env: NodeJS.ProcessEnv;
  private child: ChildProcess | null = null;
  private serverPid: number | null = null;
  /** Holder and program PIDs of every session not deleted through us: all are ended at the end. */
  private readonly pids = new Map<string, { holderPid: number | null; pid: number | null }>();
  private disposed = false;

  private constructor(
    private readonly ctx: BenchContext,
    readonly home: string,
    readonly runtimeDir: string,
    options: BenchServerOptions,
  ) {
    // TEND_PORT=0: a bench server never takes the default port a person's own tend serves browsers on.
    const env: NodeJS.ProcessEnv = { ...ctx.env, TEND_HOME: home, TEND_RUNTIME_DIR: runtimeDir, TEND_HOLDER: holderBinary(ctx.root), TEND_PORT: '0' };
    const knobs: Array<[string, number | undefined]> = [
      ['TEND_SCROLLBACK_ROWS', options.scrollbackRows],
      ['TEND_RING_BYTES', options.ringBytes],
      ['TEND_CHECKPOINT_QUIET_MS', options.checkpointQuietMs],
      ['TEND_CHECKPOINT_MAX_MS', options.checkpointMaxMs],
    ];
    for (const [k, v] of knobs) {
      if (v !== undefined) env[k] = String(v);
      else delete env[k];
    }
    this.env = env;
    this.client = new TendClient(env);
  }

  /** A new server with empty state, registered with the run's owned store. */
  static async start(ctx: BenchContext, options: BenchServerOptions = {}): Promise<BenchServer> {
    const base = join(ctx.tmpDir, 'tend-servers');
    mkdirSync(base, { recursive: true, mode: 0o700 });
    const home = mkdtempSync(join(base, 'home-'));
    // short: holder socket paths live under it and must fit a sun_path
    const runtimeDir = mkdtempSync(join(base, 'rt-'));
    const server = ctx.owned.add(new BenchServer(ctx, home, runtimeDir, options));
    await server.launch();
    return server;
  }

  get pid(): number {
    if (this.serverPid === null) throw new Error('the tend server is not running');
    return this.serverPid;
  }

  get checkpointsDir(): string {
    return this.client.paths.checkpointsDir;
  }

  get serverLog(): string {
    return this.client.paths.serverLog;
  }

  /**
   * Starts the server process as `tend server start` does and resolves once
   * it reports ready — which it does after recovering every stored session.
   * Returns the milliseconds from spawn to ready.
   */
  async launch(): Promise<number> {
    if (this.serverPid !== null && isAlive(this.serverPid)) throw new Error('a server of this home is already running');
    const main = join(this.ctx.root, 'dist', 'src', 'server', 'main.js');
    const started = performance.now();
    // TEND_BENCH_PROFILE_DIR: every server the bench starts writes a V8 CPU profile there when it exits
    // (how docs/performance.md's profiles were taken).
    const profileDir = this.ctx.env.TEND_BENCH_PROFILE_DIR;
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    // TEND_BENCH_NODE_FLAGS: V8/Node flags for every bench server (e.g. `--trace-gc`); what the
    // server prints then goes to server-<bench pid>-<n>.out in TEND_BENCH_PROFILE_DIR (or the temp dir).
    const flags = (this.ctx.env.TEND_BENCH_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
    const output = flags.length > 0 ? openSync(join(profileDir || tmpdir(), `server-${process.pid}-${++launches}.out`), 'a') : 'ignore';
    const child = spawn(process.execPath, serverArgs(main, [...profile, ...flags]), {
      detached: true,
      stdio: ['ignore', output, output, 'pipe'],
      env: this.env,
    });
    if (typeof output === 'number') closeSync(output);
    this.child = child;
    if (child.pid !== undefined) this.serverPid = child.pid;
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    const line = await awaitReady(pipe, { silenceMs: READY_TIMEOUT_MS });
    const ms = performance.now() - started;
    (pipe as unknown as { destroy(): void }).destroy();
    if (line.kind !== 'ok') throw new Error(`tend server did not start: ${line.message} (log: ${this.serverLog})`);
    return ms;
  }

  /** One API request; an error status throws with the server's message. */
  async api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.client.raw<T>(method, path, body, REQUEST_TIMEOUT_MS);
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    this.note(res.body);
    return res.body;
  }

  private note(body: unknown): void {
    for (const s of Array.isArray(body) ? body : [body]) {
      if (!s || typeof s !== 'object') continue;
      const { id, holderPid, pid } = s as Partial<BenchSession>;
      if (typeof id !== 'string' || (s as { status?: string }).status === 'disposed') continue;
      const known = this.pids.get(id);
      this.pids.set(id, { holderPid: holderPid ?? known?.holderPid ?? null, pid: pid ?? known?.pid ?? null });
    }
  }

  createSession(argv: string[], cols = 80, rows = 24): Promise<BenchSession> {
    return this.api<BenchSession>('POST', '/v1/sessions', { argv, cols, rows, cwd: this.ctx.tmpDir });
  }

  listSessions(): Promise<BenchSession[]> {
    return this.api<BenchSession[]>('GET', '/v1/sessions');
  }

  session(id: string): Promise<BenchSession> {
    return this.api<BenchSession>('GET', `/v1/sessions/${encodeURIComponent(id)}`);
  }

  /** The screen route flushes the parser first: once it answers, every byte fed before it is parsed. */
  screen(id: string): Promise<{ offset: number; text: string }> {
    return this.api('GET', `/v1/sessions/${encodeURIComponent(id)}/screen?format=text&scrollback=0`);
  }

  /** Ends the program and forgets the session (the server waits for its exit). */
  async deleteSession(id: string): Promise<void> {
    await this.api('DELETE', `/v1/sessions/${encodeURIComponent(id)}`);
    this.pids.delete(id);
  }

  /** Polls the session until the server has been fed `bytes` of its output. */
  async waitForOffset(id: string, bytes: number, timeoutMs = 300_000, pollMs = 10): Promise<void> {
    await waitUntil(`session ${id} to reach offset ${bytes}`, async () => {
      const s = await this.session(id);
      if (s.offset > bytes) throw new Error(`session ${id} passed offset ${bytes} (at ${s.offset}): the stream is not what was expected`);
      return s.offset === bytes;
    }, timeoutMs, pollMs);
  }

  /** SIGKILL, as a crash: holders keep running. Resolves when the process is gone. */
  async crash(): Promise<void> {
    const pid = this.pid;
    process.kill(pid, 'SIGKILL');
    await this.waitForExit(pid);
    this.serverPid = null;
  }

  private async waitForExit(pid: number): Promise<void> {
    const child = this.child;
    if (child && child.pid === pid && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, EXIT_WAIT_MS);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await waitUntil(`tend server ${pid} to exit`, () => !isAlive(pid), EXIT_WAIT_MS, EXIT_POLL_MS);
  }

  /** Ends the server, then each holder (SIGTERM ends its program's group; SIGKILL for stragglers). */
  async close(): Promise<void> {
    if (this.disposed) return;
    try {
      await this.listSessions();
    } catch {
      // no server answering: the PIDs seen so far are all there is
    }
    if (this.serverPid !== null && isAlive(this.serverPid)) {
      // A profiled server must exit by itself to write its profile: SIGTERM (a clean stop), then the kill.
      if (this.ctx.env.TEND_BENCH_PROFILE_DIR) {
        const pid = this.serverPid;
        signal(pid, 'SIGTERM');
        await waitUntil('the profiled server to stop', () => !isAlive(pid), 30_000, 20).catch(() => {});
      }
      if (isAlive(this.serverPid)) await this.crash();
    }
    const holders = [...this.pids.values()].flatMap((p) => (p.holderPid === null ? [] : [p.holderPid]));
    for (const pid of holders) signal(pid, 'SIGTERM');
    await waitUntil('holders to exit', () => holders.every((p) => !isAlive(p)), EXIT_WAIT_MS, 20).catch(() => {});
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.serverPid !== null) signal(this.serverPid, 'SIGKILL');
    for (const p of this.pids.values()) {
      for (const pid of [p.pid, p.holderPid]) if (pid !== null) signal(pid, 'SIGKILL');
    }
    this.pids.clear();
    rmSync(this.home, { recursive: true, force: true });
    rmSync(this.runtimeDir, { recursive: true, force: true });
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, sig);
  } catch {
    // gone between the check and the kill
  }
}
