// One server per TEND_HOME, whatever runtime directory its starter had. Two
// lock files, each made whole and atomically: written beside its name, then
// hard-linked to it (link fails when the name exists, so a reader never sees
// half a lock and two starters never both win):
//  * TEND_HOME/server.lock: the server's pid, socket, version and build (JSON). It
//    keeps a second server off the store and the holders even when the two
//    starters resolve different runtime directories (a login shell, a systemd
//    service and an agent that passes only HOME and PATH each see another
//    XDG_RUNTIME_DIR), and it tells a CLI with another runtime directory
//    where the server's socket is.
//  * runtimeDir/server.pid: the pid alone. It guards the socket, which homes
//    sharing a TEND_RUNTIME_DIR would otherwise take from each other, and it
//    is what stands when TEND_HOME cannot be written (a read-only or full disk
//    still lets a server serve its sessions, as before the home lock).
// A lock left by a server that died (its pid gone, or reused by a process
// that is not a tend server) is taken over.
import { linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { ensurePrivateDir, type TendPaths } from '../common/paths.js';
import { homeLockText, isAlive, isTendServer, liveHomeLockIn } from '../common/home-lock.js';

/** How long a starter keeps trying while others take a stale lock over before it gives up. */
const TAKE_DEADLINE_MS = 5000;

export class AlreadyRunningError extends Error {
  constructor(readonly pid: number, readonly socket: string | null, where: string) {
    super(`a tend server is already running ${where} (pid ${pid}${socket === null ? '' : `, socket ${socket}`})`);
  }
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function pidOf(text: string | null): number | null {
  if (text === null) return null;
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

interface LockFile {
  file: string;
  content: string;
  /** The live server that holds the lock, given the file's text; null when the lock is stale. */
  liveHolder(text: string | null): { pid: number; socket: string | null } | null;
  where: string;
}

/** Pause between tries while another starter takes a stale lock over (a few file operations long). */
const TAKE_OVER_NAP_MS = 5;
/** A take-over guard older than this whose pid is gone was left by a starter that died mid-way. */
const GUARD_ABANDONED_MS = 2000;

function napMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/**
 * Removes a stale lock, so that the caller may link its own. Only one starter
 * at a time does this, under a guard (FILE.takeover, made by the same
 * write-then-link): deleting by name is not atomic with the check before it,
 * and without the guard a starter that read the stale lock could delete the
 * fresh one another starter had just put in its place (seen: two winners in
 * 5 of 20 races of five starters over a stale lock). Under the guard nobody
 * else removes the lock and its dead owner will not, so the text read again
 * is the file that is removed. A guard whose starter died (its pid gone, the
 * file old) is removed by whoever finds it.
 */
function takeOver(file: string, staleText: string): void {
  const guard = `${file}.takeover`;
  const mine = `${guard}.new-${process.pid}`;
  try {
    writeFileSync(mine, `${process.pid}\n`, { mode: 0o600 });
    linkSync(mine, guard);
  } catch (err) {
    removeQuietly(mine);
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const owner = pidOf(readText(guard));
    let age = 0;
    try {
      age = Date.now() - statSync(guard).mtimeMs;
    } catch {
      return; // released meanwhile: try again
    }
    if ((owner === null || !isAlive(owner)) && age > GUARD_ABANDONED_MS) removeQuietly(guard);
    else napMs(TAKE_OVER_NAP_MS);
    return;
  }
  removeQuietly(mine);
  try {
    if (readText(file) === staleText) removeQuietly(file);
  } finally {
    removeQuietly(guard);
  }
}

/** Takes one lock or throws AlreadyRunningError (or why the file could not be written). Returns a release function. */
function take(lock: LockFile): () => void {
  const { file, content } = lock;
  const refuse = (holder: { pid: number; socket: string | null }) => new AlreadyRunningError(holder.pid, holder.socket, lock.where);
  const fresh = `${file}.new-${process.pid}`;
  try {
    writeFileSync(fresh, content, { mode: 0o600 });
  } catch (err) {
    // A live server's lock says more than why this one could not be written.
    const holder = lock.liveHolder(readText(file));
    removeQuietly(fresh);
    if (holder !== null && holder.pid !== process.pid) throw refuse(holder);
    throw err;
  }
  try {
    const deadline = Date.now() + TAKE_DEADLINE_MS;
    while (Date.now() < deadline) {
      try {
        linkSync(fresh, file);
        return () => {
          if (readText(file) !== content) return; // taken over after all: not ours to remove
          removeQuietly(file);
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const text = readText(file);
      if (text === null) continue; // released between the two calls
      const holder = lock.liveHolder(text);
      if (holder !== null && holder.pid !== process.pid) throw refuse(holder);
      takeOver(file, text);
    }
    const holder = lock.liveHolder(readText(file));
    throw refuse(holder ?? { pid: 0, socket: null });
  } finally {
    removeQuietly(fresh);
  }
}

/** The runtime directory's pid file, for the server on `socket`. */
export function acquirePidLock(file: string, socket: string): () => void {
  return take({
    file,
    content: `${process.pid}\n`,
    liveHolder: (text) => {
      const pid = pidOf(text);
      return pid !== null && isTendServer(pid) ? { pid, socket } : null;
    },
    where: 'on this runtime directory',
  });
}

/** TEND_HOME's lock, saying where this server serves and which build it is. */
export function acquireHomeLock(file: string, self: { socket: string; version: string; build: string }): () => void {
  return take({
    file,
    content: homeLockText({ pid: process.pid, ...self }),
    liveHolder: liveHomeLockIn,
    where: 'for this TEND_HOME',
  });
}

/**
 * Both locks of a starting server: TEND_HOME's, then the runtime directory's.
 * A TEND_HOME that cannot hold a lock (read-only, full, not a directory) does
 * not keep the server from starting, as it did not before this lock existed:
 * the runtime directory's lock alone guards it then, and `warn` says so.
 * Throws AlreadyRunningError when another server holds either.
 */
export function takeServerLocks(paths: TendPaths, id: { version: string; build: string }, warn: (message: string) => void): () => void {
  let releaseHome: (() => void) | null = null;
  try {
    ensurePrivateDir(paths.home);
    releaseHome = acquireHomeLock(paths.homeLockFile, { socket: paths.serverSocket, ...id });
  } catch (err) {
    if (err instanceof AlreadyRunningError) throw err;
    warn(
      `cannot take the lock ${paths.homeLockFile} (${(err as Error).message.split('\n')[0]}): ` +
        `only ${paths.lockFile} guards this server, so a server started with another runtime directory would not see it`,
    );
  }
  try {
    const releaseRuntime = acquirePidLock(paths.lockFile, paths.serverSocket);
    return () => {
      releaseRuntime();
      releaseHome?.();
    };
  } catch (err) {
    releaseHome?.();
    throw err;
  }
}
