// Running the helper programs (ptytool, tmux) and collecting their output.
// Every child is killed by its PID if the bench is torn down while it runs.

import { spawn } from 'node:child_process';

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** a hung helper must not hang the bench; generous, it is not a measurement */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 300_000;
const running = new Set<number>();

export function runText(cmd: string, args: readonly string[], opts: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid;
    if (pid !== undefined) running.add(pid);
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      reject(new Error(`${cmd}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (pid !== undefined) running.delete(pid);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.slice(0, 3).join(' ')}… failed (${signal ?? `exit ${code}`}): ${err.trim()}`));
    });
  });
}

export async function runJson<T>(cmd: string, args: readonly string[], opts: RunOptions): Promise<T> {
  const out = await runText(cmd, args, opts);
  try {
    return JSON.parse(out) as T;
  } catch {
    throw new Error(`${cmd} printed no JSON: ${out.slice(0, 200)}`);
  }
}

/** Kills the helpers still running (on teardown after an error or ^C). */
export function killRunningHelpers(): void {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  running.clear();
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
