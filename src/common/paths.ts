// Where a server keeps its things. TEND_HOME (default ~/.tend) holds what must
// last: the store, checkpoints, logs. Unix sockets live elsewhere, in a short
// per-user runtime directory named by a hash of TEND_HOME, because a socket
// path must fit in ~104 bytes and TEND_HOME can be arbitrarily deep.
import { createHash } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export interface TendPaths {
  home: string;
  runtimeDir: string;
  serverSocket: string;
  /** Hook events the hook client could not deliver (no server), for the next server to replay: beside the socket, as the client finds it from TEND_SOCKET. */
  hookSpoolDir: string;
  holdersDir: string;
  storeDir: string;
  checkpointsDir: string;
  logsDir: string;
  serverLog: string;
  /** The runtime directory's pid file: one server per socket (several homes may share a TEND_RUNTIME_DIR). */
  lockFile: string;
  /** The lock of TEND_HOME (the server's pid, socket and version): one server per home, whatever runtime directory each starter has. */
  homeLockFile: string;
}

/** Resolves paths from the environment (TEND_HOME, TEND_RUNTIME_DIR, XDG_RUNTIME_DIR). */
export function resolvePaths(env: NodeJS.ProcessEnv = process.env): TendPaths {
  const home = resolve(env.TEND_HOME && env.TEND_HOME !== '' ? env.TEND_HOME : join(homedir(), '.tend'));
  const hash = createHash('sha256').update(home).digest('hex').slice(0, 12);
  const runtimeDir = env.TEND_RUNTIME_DIR
    ? resolve(env.TEND_RUNTIME_DIR)
    : env.XDG_RUNTIME_DIR
      ? join(env.XDG_RUNTIME_DIR, `tend-${hash}`)
      : join(tmpdir(), `tend-${userInfo().uid}`, hash);
  return {
    home,
    runtimeDir,
    serverSocket: join(runtimeDir, 'server.sock'),
    hookSpoolDir: join(runtimeDir, 'hook-spool'),
    holdersDir: join(runtimeDir, 'h'),
    storeDir: home,
    checkpointsDir: join(home, 'checkpoints'),
    logsDir: join(home, 'logs'),
    serverLog: join(home, 'logs', 'server.log'),
    lockFile: join(runtimeDir, 'server.pid'),
    homeLockFile: join(home, 'server.lock'),
  };
}

/**
 * Creates a directory (and parents) and makes it private to this user when it
 * can. An existing directory we may not change (read-only, someone else's) is
 * left as it is: the caller finds out what it can do in it.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    // A recursive mkdir under a read-only parent can report ENOENT; the parent says why.
    const blocker = writeBlockerOf(dir);
    if (blocker === null) throw err;
    throw Object.assign(new Error(`cannot create ${dir}: ${blocker.message}`), { code: blocker.code, path: dir, syscall: 'mkdir' });
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if ((st.mode & 0o077) === 0) return;
  try {
    chmodSync(dir, 0o700);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EROFS' && code !== 'EACCES') throw err;
  }
}

/**
 * Why `dir` cannot be written, or made if it does not exist yet: the error
 * (EROFS, EACCES…, with its path) of the nearest directory at or above it
 * that exists. Null when that directory may be written.
 */
export function writeBlockerOf(dir: string): NodeJS.ErrnoException | null {
  let at = resolve(dir);
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return null;
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}

/** Creates the runtime directories: the tmp parent too is per-user and private. */
export function ensureRuntimeDirs(paths: TendPaths): void {
  ensurePrivateDir(paths.runtimeDir);
  ensurePrivateDir(paths.holdersDir);
}
