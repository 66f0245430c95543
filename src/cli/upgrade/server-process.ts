// Stopping the running server and starting one from a given build's tree, as
// an upgrade does: the stop is the graceful one (every screen checkpointed,
// every holder left running), the start reads the new server's ready pipe
// and passes on its "recovering n/N" lines.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../../common/home-lock.js';
import { serverArgs } from '../../common/node-flags.js';
import { ensureRuntimeDirs } from '../../common/paths.js';
import { parseReadyLine } from '../../protocol/ready-pipe.js';
import { TAKEN_LINE, TAKE_OVER_GATE_FD_ENV, TAKE_OVER_PID_ENV, WAITING_LINE } from '../../protocol/take-over.js';
import { API_ROUTES } from '../../protocol/api/index.js';
import type { TendClient } from '../client.js';
import { SERVER_MAIN, treeOfServerMain } from './build-tree.js';

/** A server checkpoints every session before it exits; 20 busy ones take a second or two. */
export const SERVER_STOP_WAIT_MS = 30_000;
/** After SIGTERM (a server that would not stop when asked), this long before SIGKILL. */
const KILL_AFTER_TERM_MS = 5_000;
/** A starting server that says nothing for this long has failed (progress lines restart the wait). */
const SERVER_START_SILENCE_MS = 20_000;
const PID_POLL_MS = 25;
/** The new server's descriptors: the ready pipe (as every starter gives it) and the take-over gate. */
const READY_FD = 3;
const GATE_FD = 4;

/** Resolves true once `pid` has exited, false after `timeoutMs`. */
async function waitExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (isAlive(pid)) {
    if (performance.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, PID_POLL_MS));
  }
  return true;
}

/** Asks the server to stop (it checkpoints every screen) and waits for its process to end. */
export async function stopGracefully(client: TendClient, pid: number, timeoutMs = SERVER_STOP_WAIT_MS): Promise<boolean> {
  try {
    await client.rawAnyVersion(API_ROUTES.stopServer.method, API_ROUTES.stopServer.path, undefined, 5_000);
  } catch {
    /* it may be on its way out already; its pid says */
  }
  return waitExit(pid, timeoutMs);
}

/** A server that will not stop when asked: SIGTERM (it still checkpoints), then SIGKILL (holders live on). */
export async function stopForcibly(client: TendClient, pid: number): Promise<void> {
  if (await stopGracefully(client, pid, KILL_AFTER_TERM_MS)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await waitExit(pid, KILL_AFTER_TERM_MS)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    return;
  }
  await waitExit(pid, KILL_AFTER_TERM_MS);
}

/**
 * A started server, or why not. `keep` ends a taking-over server's trial
 * (the gate closes: src/server/holder-release.ts), once its check passed or
 * it is the one to go on with; a server that is stopped instead is never kept.
 */
export type StartOutcome = { ok: true; pid: number; keep: () => void } | { ok: false; message: string };

/**
 * A server being started from the tree at `root` for this client's
 * TEND_HOME: its ready pipe read line by line (src/protocol/ready-pipe.ts).
 * Started to take over from a running server (`takeOverFrom`), it waits for
 * that one to exit, takes the locks, says TAKEN and opens the store only
 * once openGate() is called (src/server/take-over.ts).
 */
export class ServerStart {
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private ended = false;
  private wake: (() => void) | null = null;
  private text = '';
  /** Started to take over: it has a gate, open until keep(). */
  private readonly takingOver: boolean;

  constructor(private readonly client: TendClient, root: string, takeOverFrom: number | null) {
    this.takingOver = takeOverFrom !== null;
    ensureRuntimeDirs(client.paths);
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (takeOverFrom !== null) Object.assign(env, { [TAKE_OVER_PID_ENV]: String(takeOverFrom), [TAKE_OVER_GATE_FD_ENV]: String(GATE_FD) });
    this.child = spawn(process.execPath, serverArgs(join(root, SERVER_MAIN)), {
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
      env,
    });
    this.child.unref();
    const pipe = this.child.stdio[READY_FD] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    pipe.on('data', (chunk: string) => {
      this.text += chunk;
      let newline: number;
      while ((newline = this.text.indexOf('\n')) >= 0) {
        this.lines.push(this.text.slice(0, newline).trim());
        this.text = this.text.slice(newline + 1);
      }
      this.wake?.();
    });
    pipe.on('end', () => {
      this.ended = true;
      this.wake?.();
    });
    pipe.on('error', () => {
      this.ended = true;
      this.wake?.();
    });
  }

  /** The next line, or null when the server said nothing for silenceMs or closed the pipe. */
  async nextLine(silenceMs = SERVER_START_SILENCE_MS): Promise<string | null> {
    const deadline = performance.now() + silenceMs;
    while (this.lines.length === 0 && !this.ended && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.lines.shift() ?? null;
  }

  /** Lets a taking-over server open the store; its trial lasts until the outcome's keep(). */
  openGate(): void {
    const gate = this.child.stdio[GATE_FD] as NodeJS.WritableStream & { unref?: () => void };
    gate.write('open\n');
    gate.unref?.(); // a CLI that ends without keep() closes it by ending: the server is kept then too
  }

  /** Reads to the final line; a server that did not become ready is killed. */
  async outcome(onProgress: (done: number, total: number) => void): Promise<StartOutcome> {
    for (;;) {
      const text = await this.nextLine();
      if (text === null) return this.fail(this.ended ? 'the server exited before it was ready' : `the server did not report ready within ${SERVER_START_SILENCE_MS / 1000} s`, true);
      if (text === TAKEN_LINE || text.startsWith(WAITING_LINE)) continue;
      const line = parseReadyLine(text);
      if (line.kind === 'recovering') onProgress(line.done, line.total);
      else if (line.kind === 'ok') {
        (this.child.stdio[READY_FD] as unknown as { destroy(): void }).destroy();
        if (!this.takingOver) this.closeGate(); // no trial: nothing to keep open
        this.client.currentServerSocket(); // the new server's lock names its socket
        return { ok: true, pid: line.pid, keep: () => this.closeGate() };
      } else return this.fail(line.message, false);
    }
  }

  /** Gives up on this start: the gate closes unopened, and the process goes. */
  async abort(): Promise<void> {
    await this.fail('aborted', false);
  }

  /** The gate's end: a taking-over server's trial is over (or, unopened, the take-over is given up). */
  private closeGate(): void {
    (this.child.stdio[GATE_FD] as unknown as { destroy(): void }).destroy();
  }

  private close(): void {
    (this.child.stdio[READY_FD] as unknown as { destroy(): void }).destroy();
    this.closeGate();
  }

  private async fail(message: string, unanswered: boolean): Promise<StartOutcome> {
    this.close();
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && isAlive(pid)) {
      this.child.kill('SIGKILL');
      await waitExit(pid, KILL_AFTER_TERM_MS);
    }
    return { ok: false, message: unanswered ? `${message} (see ${this.client.paths.serverLog})` : message };
  }
}

/** Starts the server of `root` (nobody to take over from) and waits until it serves or says why not. */
export function startServerFrom(client: TendClient, root: string, onProgress: (done: number, total: number) => void): Promise<StartOutcome> {
  return new ServerStart(client, root, null).outcome(onProgress);
}

/** The command line of a process, or null (it is gone, or this system cannot say). */
function commandLineOf(pid: number): string[] | null {
  try {
    // Linux: NUL-separated, so paths with spaces stay whole.
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((a) => a !== '');
  } catch {
    /* no /proc (macOS): ps, whose words are split at spaces */
  }
  try {
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8', timeout: 5_000 }).trim().split(/\s+/);
  } catch {
    return null;
  }
}

/** The tree the running server `pid` was started from, when it can be told. */
export function treeOfServer(pid: number): string | null {
  const argv = commandLineOf(pid);
  if (argv === null) return null;
  for (const arg of argv) {
    if (!arg.endsWith(SERVER_MAIN)) continue;
    const tree = treeOfServerMain(arg);
    if (tree !== null) return tree;
  }
  return null;
}
