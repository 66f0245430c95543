// Every process the fault suite starts, by PID, so that the run ends them all
// however it ends: the servers, the holders they started, the programs in
// them, the CLIs and attaches the suite ran. Nothing is ever killed by name.

import { isProcessAlive } from '../../test/support/processes.js';

const GONE_WAIT_MS = 10_000;
const GONE_POLL_MS = 20;

/** True while pid names a running process; a zombie counts as gone (the tests' own check). */
export const isAlive = isProcessAlive;

export function signalQuietly(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export async function waitGone(pids: readonly number[], timeoutMs = GONE_WAIT_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, GONE_POLL_MS));
  }
  return true;
}

class OwnedProcesses {
  private readonly pids = new Set<number>();

  add(pid: number | null | undefined): void {
    if (pid) this.pids.add(pid);
  }

  /** SIGTERM first (a holder then ends its program's group), SIGKILL what is left. */
  async endAll(): Promise<void> {
    const pids = [...this.pids];
    for (const pid of pids) signalQuietly(pid, 'SIGTERM');
    if (!(await waitGone(pids, 3_000))) for (const pid of pids) if (isAlive(pid)) signalQuietly(pid, 'SIGKILL');
    await waitGone(pids);
    this.pids.clear();
  }

  /** Last resort on an abrupt exit: no waiting is possible there. */
  killAllNow(): void {
    for (const pid of this.pids) signalQuietly(pid, 'SIGKILL');
  }
}

/** The run's one registry. */
export const owned = new OwnedProcesses();
