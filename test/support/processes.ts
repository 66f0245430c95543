// Looking at processes by PID, the only way tests find what they started.

import { readdirSync, readFileSync } from 'node:fs';

/** True while pid names a running process; a zombie (exited, not yet reaped) counts as gone. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but is not ours, still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name, which may itself hold spaces or ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    // No /proc (not Linux) or it vanished between the two checks.
    return false;
  }
}

/** Sends sig to pid if it is alive; never throws. */
export function killQuietly(pid: number, sig: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

/**
 * Every live process whose environment holds `name=value`: what a test's own
 * server and sessions started (their programs inherit the test's TEND_HOME),
 * found by PID even when the server that knew them is gone — a session's
 * program in a process group of its own (an agent under job control) or one a
 * hang-up left behind. Empty where there is no /proc.
 */
export function pidsWithEnv(name: string, value: string): number[] {
  const wanted = Buffer.from(`${name}=${value}\0`);
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`);
      // Each entry is NUL-terminated; the first one has no NUL before it.
      if (env.subarray(0, wanted.length).equals(wanted) || env.includes(Buffer.concat([Buffer.from([0]), wanted]))) pids.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}
