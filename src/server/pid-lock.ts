// One server per TEND_HOME. The lock is a pid file created with O_EXCL in the
// runtime directory; a file left by a server that died (its pid gone, or
// reused by a process that is not a tend server) is taken over.
import { openSync, writeSync, closeSync, readFileSync, unlinkSync, renameSync } from 'node:fs';

export class AlreadyRunningError extends Error {
  constructor(readonly pid: number) {
    super(`a tend server is already running for this TEND_HOME (pid ${pid})`);
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** True when pid is alive and looks like a tend server (not a reused pid). */
export function isTendServer(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('server/main.js');
  } catch {
    return true; // no /proc: trust the live pid
  }
}

export function readLockPid(file: string): number | null {
  const pid = readPid(file);
  return pid !== null && isTendServer(pid) ? pid : null;
}

/** Takes the lock or throws AlreadyRunningError. Returns a release function. */
export function acquirePidLock(file: string): () => void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        if (readPid(file) === process.pid) unlinkSync(file);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readPid(file);
    if (holder !== null && holder !== process.pid && isTendServer(holder)) throw new AlreadyRunningError(holder);
    // Stale: move it aside atomically so two starters cannot both delete a fresh lock.
    try {
      renameSync(file, `${file}.stale-${process.pid}`);
      unlinkSync(`${file}.stale-${process.pid}`);
    } catch {
      /* someone else took it over first; try again */
    }
  }
  const pid = readPid(file);
  throw new AlreadyRunningError(pid ?? 0);
}
