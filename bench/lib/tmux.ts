// tmux as the reference, always on a private server (`tmux -L <unique> -f
// /dev/null`) so no user configuration or running session is measured or
// touched. A server is ended by its PID, never by name.

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Disposable } from '../../src/common/lifecycle.js';
import { isAlive, runText } from './child-process.js';
import { readRssKb } from './proc-memory.js';

export const TMUX_HISTORY_ROWS = 10_000;

let serial = 0;

/** A socket name no other run or suite uses. */
export function uniqueTmuxName(): string {
  serial++;
  return `tb${process.pid}-${serial}`;
}

/** The argv that talks to server NAME (starting it if needed). */
export function tmuxArgv(name: string, ...args: string[]): string[] {
  return ['tmux', '-L', name, '-f', '/dev/null', ...args];
}

export function tmuxCommand(name: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return runText('tmux', ['-L', name, '-f', '/dev/null', ...args], { env, timeoutMs: 60_000 });
}

/** The PID of server NAME, or undefined when none is running. */
export async function tmuxServerPid(name: string, env: NodeJS.ProcessEnv): Promise<number | undefined> {
  try {
    const out = await tmuxCommand(name, ['display-message', '-p', '#{pid}'], env);
    const pid = Number(out.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined; // "no server running": nothing to end
  }
}

function socketPath(name: string, env: NodeJS.ProcessEnv): string {
  const dir = env.TMUX_TMPDIR ?? '/tmp';
  return join(dir, `tmux-${process.getuid?.() ?? 0}`, name);
}

/**
 * Ends server NAME if one is still running (a client run inside ptytool may
 * leave its server behind) and removes its socket.
 */
export async function endTmuxServer(name: string, env: NodeJS.ProcessEnv): Promise<void> {
  const pid = await tmuxServerPid(name, env);
  if (pid !== undefined) killPid(pid);
  rmSync(socketPath(name, env), { force: true });
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/** A private tmux server with a placeholder session, for detached runs and memory. */
export class TmuxServer implements Disposable {
  private constructor(
    readonly name: string,
    readonly pid: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async start(env: NodeJS.ProcessEnv, historyRows = TMUX_HISTORY_ROWS): Promise<TmuxServer> {
    const name = uniqueTmuxName();
    // `cat` with no input idles forever and keeps the server alive between runs
    await tmuxCommand(name, ['set', '-g', 'history-limit', String(historyRows), ';',
      'new-session', '-d', '-s', 'keep', 'cat'], env);
    const pid = await tmuxServerPid(name, env);
    if (pid === undefined) throw new Error(`tmux server ${name} did not start`);
    return new TmuxServer(name, pid, env);
  }

  run(args: readonly string[]): Promise<string> {
    return tmuxCommand(this.name, args, this.env);
  }

  rssKb(): number {
    return readRssKb(this.pid);
  }

  dispose(): void {
    if (isAlive(this.pid)) killPid(this.pid);
    const path = socketPath(this.name, this.env);
    if (existsSync(path)) rmSync(path, { force: true });
  }
}
