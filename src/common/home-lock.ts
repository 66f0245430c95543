// TEND_HOME/server.lock as its readers see it: the server that holds the
// home's lock says there which pid it has, which socket it serves on and
// which version and build it is (a CLI of another build finds it there, and
// uses it rather than start a second server beside it). The server takes it (server/pid-lock.ts); the CLI
// reads it to find the server of its TEND_HOME when that server was started
// with another runtime directory, so it listens on a socket the CLI would
// not have looked for.
import { readFileSync } from 'node:fs';

/** What TEND_HOME/server.lock says about the server that holds it. */
export interface HomeLock {
  pid: number;
  /** The unix socket it serves the API on. */
  socket: string;
  version: string;
  /** Its build id (src/common/version.ts); '' in the lock of a server from before build ids. */
  build: string;
}

/** The lock's text, as written. */
export function homeLockText(lock: HomeLock): string {
  return `${JSON.stringify({ pid: lock.pid, socket: lock.socket, version: lock.version, build: lock.build })}\n`;
}

/** The lock a text says, or null for anything that is not one (empty, torn, another format). */
export function parseHomeLock(text: string | null): HomeLock | null {
  if (text === null) return null;
  try {
    const { pid, socket, version, build } = JSON.parse(text) as Partial<HomeLock>;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || typeof socket !== 'string' || socket === '') return null;
    return { pid, socket, version: typeof version === 'string' ? version : '', build: typeof build === 'string' ? build : '' };
  } catch {
    return null;
  }
}

/**
 * True when a process has this pid and has not exited (EPERM: it has, under
 * another user). A process that exited but whose parent has not reaped it
 * yet (a zombie) still answers signal 0; it holds no lock or socket any
 * more, so it counts as gone: a parent that reaps its server only after
 * `tend server stop` returns would otherwise see it wait 15 s and fail.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !hasExited(pid);
}

/** Linux: the state letter in /proc/PID/stat says the process is a zombie or dead; elsewhere false. */
function hasExited(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S ...": the command may hold spaces and parentheses, the state follows its last ')'
  const state = stat.charAt(stat.lastIndexOf(')') + 2);
  return state === 'Z' || state === 'X';
}

/** True when pid is alive and looks like a tend server (not a pid reused by another program). */
export function isTendServer(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('server/main.js');
  } catch {
    return true; // no /proc: trust the live pid
  }
}

/** The lock a text says when a live tend server holds it; null when there is none or it is stale. */
export function liveHomeLockIn(text: string | null): HomeLock | null {
  const lock = parseHomeLock(text);
  return lock !== null && isTendServer(lock.pid) ? lock : null;
}

/** TEND_HOME's lock when a live tend server holds it; null when there is none or it is stale. */
export function liveHomeLock(file: string): HomeLock | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  return liveHomeLockIn(text);
}
