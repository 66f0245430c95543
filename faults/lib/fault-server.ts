// A private tend server for one part of the fault suite: its own TEND_HOME and
// runtime dir, started the way `tend server start` starts it (the server's
// main with a ready pipe), driven over its HTTP API on the unix socket,
// SIGKILLed at will, and ended by PID — the server, every holder it started,
// their programs — however the run ends.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TendClient, type ApiResponse } from '../../src/cli/client.js';
import { serverArgs } from '../../src/common/node-flags.js';
import { awaitReady } from '../../src/protocol/ready-pipe.js';
import { isAlive, owned, signalQuietly, waitGone } from './owned-processes.js';
import type { SessionInfo } from '../../src/server/session.js';

export const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
export const tendBin = join(repoRoot, 'bin', 'tend.js');
const serverMain = join(repoRoot, 'dist', 'src', 'server', 'main.js');

const READY_SILENCE_MS = 60_000;
/** A hang guard for one request; a busy 2-core machine can be slow, never this slow. */
export const REQUEST_TIMEOUT_MS = 60_000;
const HEALTH_WAIT_MS = 30_000;

/** The fields of a session object (docs/api.md) the suite reads. */
export type FaultSession = Pick<SessionInfo, 'id' | 'name' | 'status' | 'pid' | 'holderPid' | 'cols' | 'rows' | 'offset' | 'degraded'>;

export class FaultServer {
  readonly home: string;
  readonly runtimeDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly client: TendClient;
  /** Every holder and program seen in a session list, ended at close. */
  private readonly sessionPids = new Set<number>();

  /** A home the caller gave is the caller's to remove (it may be a mount point). */
  private readonly ownsHome: boolean;

  constructor(knobs: Record<string, string | number> = {}, home?: string) {
    this.ownsHome = home === undefined;
    this.home = home ?? mkdtempSync(join(tmpdir(), 'tend-faults-'));
    // Short: holder socket paths live under it and must fit a sun_path.
    this.runtimeDir = mkdtempSync(join(tmpdir(), 'tf-rt-'));
    const env: NodeJS.ProcessEnv = { ...process.env, TEND_HOME: this.home, TEND_RUNTIME_DIR: this.runtimeDir, TEND_PORT: '0' };
    delete env.TMUX;
    for (const [k, v] of Object.entries(knobs)) env[k] = String(v);
    this.env = env;
    this.client = new TendClient(env);
  }

  /** The running server's PID from its lock file: it may have been started by a CLI or an attach, not by us. */
  pid(): number | null {
    try {
      const pid = Number(readFileSync(this.client.paths.lockFile, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
    } catch {
      return null;
    }
  }

  /** Spawns a server; returns its PID without waiting for it (for kills during recovery). */
  spawnServer(): { pid: number; ready: Promise<{ ok: boolean; message: string }> } {
    const child = spawn(process.execPath, serverArgs(serverMain), { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'], env: this.env });
    owned.add(child.pid);
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    const ready = awaitReady(pipe, { silenceMs: READY_SILENCE_MS }).then((line) => {
      (pipe as unknown as { destroy(): void }).destroy();
      return line.kind === 'ok' ? { ok: true, message: `OK ${line.pid}` } : { ok: false, message: line.message };
    });
    child.unref();
    return { pid: child.pid ?? 0, ready };
  }

  /**
   * Starts a server and resolves once one serves: ours, or one a CLI or an
   * attach started first (the lock says who won). Returns ms to ready.
   */
  async launch(): Promise<number> {
    const started = performance.now();
    const { ready } = this.spawnServer();
    const line = await ready;
    if (!line.ok) {
      if (!line.message.includes('already running')) throw new Error(`the tend server did not start: ${line.message} (log: ${this.client.paths.serverLog})`);
      await this.waitHealthy();
    }
    owned.add(this.pid());
    return performance.now() - started;
  }

  async waitHealthy(timeoutMs = HEALTH_WAIT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.client.isRunning())) {
      if (Date.now() > deadline) throw new Error(`no tend server answered within ${timeoutMs} ms (log: ${this.client.paths.serverLog})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL, as a crash: holders live on. Resolves once the process is gone. */
  async crash(): Promise<boolean> {
    const pid = this.pid();
    if (pid === null) return false;
    signalQuietly(pid, 'SIGKILL');
    if (!(await waitGone([pid]))) throw new Error(`tend server ${pid} outlived SIGKILL`);
    return true;
  }

  /** One request; never throws for an error status. */
  async raw<T = any>(method: string, path: string, body?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<ApiResponse<T>> {
    const res = await this.client.raw<T>(method, path, body, timeoutMs);
    this.note(res.body);
    return res;
  }

  /** One request whose error status throws with the server's answer. */
  async api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw<T>(method, path, body);
    if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    return res.body;
  }

  private note(body: unknown): void {
    for (const s of Array.isArray(body) ? body : [body]) {
      if (!s || typeof s !== 'object') continue;
      const { holderPid, pid } = s as Partial<FaultSession>;
      for (const p of [holderPid, pid]) {
        if (typeof p === 'number' && p > 0) {
          this.sessionPids.add(p);
          owned.add(p);
        }
      }
    }
  }

  createSession(argv: string[], options: { name?: string; cols?: number; rows?: number; env?: Record<string, string> } = {}): Promise<FaultSession> {
    return this.api<FaultSession>('POST', '/v1/sessions', {
      argv,
      cwd: this.home,
      cols: options.cols ?? 80,
      rows: options.rows ?? 24,
      ...(options.name ? { name: options.name } : {}),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, LANG: 'C.UTF-8', ...(options.env ?? {}) },
    });
  }

  sessions(): Promise<FaultSession[]> {
    return this.api<FaultSession[]>('GET', '/v1/sessions');
  }

  /** Ends the server, then each holder (SIGTERM ends its program's group; SIGKILL for stragglers), and removes the dirs. */
  async close(): Promise<void> {
    try {
      await this.raw('GET', '/v1/sessions', undefined, 5_000);
    } catch {
      // no server answering: the PIDs seen so far are all there is
    }
    const server = this.pid();
    if (server !== null) {
      signalQuietly(server, 'SIGKILL');
      await waitGone([server]);
    }
    const pids = [...this.sessionPids];
    for (const pid of pids) signalQuietly(pid, 'SIGTERM');
    if (!(await waitGone(pids, 5_000))) for (const pid of pids) signalQuietly(pid, 'SIGKILL');
    await waitGone(pids);
    if (this.ownsHome && existsSync(this.home)) rmSync(this.home, { recursive: true, force: true, maxRetries: 3 });
    rmSync(this.runtimeDir, { recursive: true, force: true, maxRetries: 3 });
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls until check returns something truthy, or throws naming what it waited for. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 30_000, pollMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
      last = null;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(pollMs);
  }
}
