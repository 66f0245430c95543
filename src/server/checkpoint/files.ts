// Checkpoint files on disk: `<dir>/<session id>.ckpt`, written atomically
// (temp file in the same directory, write, fsync, rename, fsync the directory)
// so a crash at any moment leaves either the old file or the new one, never a
// mix. A damaged file is moved aside, not deleted, so a person can look at it.
import * as realFs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CheckpointFormatError, decodeCheckpoint, encodeCheckpoint, type Checkpoint, type CheckpointInput } from './format.js';

/**
 * The file operations checkpoints use: node:fs/promises by default. Tests
 * pass the same functions with one redirected (e.g. the temp file opened on
 * /dev/full, which fails writes with a real ENOSPC from the kernel).
 */
export interface CheckpointFs {
  open: typeof realFs.open;
  rename: typeof realFs.rename;
  unlink: typeof realFs.unlink;
  readFile: typeof realFs.readFile;
  readdir: typeof realFs.readdir;
  stat: typeof realFs.stat;
  mkdir: typeof realFs.mkdir;
}

export const nodeFs: CheckpointFs = realFs;

export const CHECKPOINT_SUFFIX = '.ckpt';
// A temp file is `<id>.ckpt.tmp-<pid>-<random>`: the pid shows which server
// left it, the random part keeps two writes of one session apart.
const TEMP_MARK = '.ckpt.tmp-';
// A session's history file (history-file.ts) and its rewrites' temp files.
const HISTORY_FILE_SUFFIX = '.hist';
const HISTORY_TEMP_MARK = '.hist.tmp-';
const CORRUPT_MARK = '.ckpt.corrupt-';
// A damaged file is kept this long for inspection, then collected.
export const CORRUPT_KEEP_MS = 7 * 24 * 3600 * 1000;
const FILE_MODE = 0o600;

// Session ids become file names; anything else could walk out of the directory.
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export function checkpointPath(dir: string, sessionId: string): string {
  if (!SESSION_ID_PATTERN.test(sessionId)) throw new Error(`not a valid session id for a checkpoint file: ${JSON.stringify(sessionId)}`);
  return join(dir, sessionId + CHECKPOINT_SUFFIX);
}

function errnoOf(err: unknown): string | undefined {
  return err && typeof err === 'object' && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

async function writeAll(handle: realFs.FileHandle, parts: readonly Buffer[]): Promise<void> {
  for (const part of parts) {
    for (let at = 0; at < part.length; ) {
      const { bytesWritten } = await handle.write(part, at, part.length - at);
      at += bytesWritten;
    }
  }
}

/** Makes a rename durable: the directory entry is data too. */
async function syncDirectory(fs: CheckpointFs, dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } catch (err) {
    // Some file systems cannot fsync a directory; the rename still happened.
    if (errnoOf(err) !== 'EINVAL' && errnoOf(err) !== 'ENOTSUP') throw err;
  } finally {
    await handle.close();
  }
}

export interface WriteResult {
  /** Bytes in the file. */
  bytes: number;
  path: string;
}

/** Writes `cp` atomically to `<dir>/<id>.ckpt`. Throws the file system's error (with its .code) on failure. */
export async function writeCheckpoint(dir: string, cp: CheckpointInput, options: { fs?: CheckpointFs } = {}): Promise<WriteResult> {
  const fs = options.fs ?? nodeFs;
  const path = checkpointPath(dir, cp.sessionId);
  const parts = await encodeCheckpoint(cp);
  const temp = join(dir, `${cp.sessionId}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await fs.open(temp, 'wx', FILE_MODE);
  try {
    try {
      await writeAll(handle, parts);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, path);
  } catch (err) {
    await fs.unlink(temp).catch(() => {});
    throw err;
  }
  await syncDirectory(fs, dir);
  return { bytes: parts.reduce((n, b) => n + b.length, 0), path };
}

export type LoadResult =
  | { ok: true; checkpoint: Checkpoint }
  | {
      ok: false;
      /** missing: none was written; corrupt: damaged (moved aside); unsupported: a newer tend wrote it (left in place); unreadable: the file system refused (left in place). */
      reason: 'missing' | 'corrupt' | 'unsupported' | 'unreadable';
      detail: string;
    };

/** Reads and verifies `<dir>/<id>.ckpt`. Never throws for a bad file: the caller falls back to replaying the holder. */
export async function loadCheckpoint(dir: string, sessionId: string, options: { fs?: CheckpointFs; now?: () => number } = {}): Promise<LoadResult> {
  const fs = options.fs ?? nodeFs;
  const path = checkpointPath(dir, sessionId);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return { ok: false, reason: 'missing', detail: `${path} does not exist` };
    return { ok: false, reason: 'unreadable', detail: `cannot read ${path}: ${(err as Error).message}` };
  }
  try {
    return { ok: true, checkpoint: await decodeCheckpoint(bytes, sessionId) };
  } catch (err) {
    if (!(err instanceof CheckpointFormatError)) throw err;
    if (err.reason === 'unsupported') return { ok: false, reason: 'unsupported', detail: `${path}: ${err.message}` };
    const aside = `${path.slice(0, -CHECKPOINT_SUFFIX.length)}${CORRUPT_MARK}${(options.now ?? Date.now)()}`;
    try {
      await fs.rename(path, aside);
      return { ok: false, reason: 'corrupt', detail: `${path}: ${err.message}; moved aside to ${aside}` };
    } catch (renameErr) {
      return { ok: false, reason: 'corrupt', detail: `${path}: ${err.message}; could not move it aside (${(renameErr as Error).message})` };
    }
  }
}

/** Removes a session's checkpoint; a missing one is fine. */
export async function removeCheckpoint(dir: string, sessionId: string, options: { fs?: CheckpointFs } = {}): Promise<void> {
  const fs = options.fs ?? nodeFs;
  try {
    await fs.unlink(checkpointPath(dir, sessionId));
  } catch (err) {
    if (errnoOf(err) !== 'ENOENT') throw err;
  }
}

export interface CollectOptions {
  fs?: CheckpointFs;
  /** When given, checkpoints of sessions not in it are orphans and removed. */
  liveSessionIds?: Iterable<string>;
  now?: () => number;
}

export interface CollectReport {
  tempFiles: string[];
  orphans: string[];
  expiredCorrupt: string[];
}

/**
 * Cleans the directory at server start (one server per TEND_HOME, so no write
 * is in flight): temp files a crash left mid-write, damaged files kept past
 * CORRUPT_KEEP_MS, and — if told which sessions exist — checkpoints of
 * sessions that are gone. A missing directory has nothing to collect.
 */
export async function collectStale(dir: string, options: CollectOptions = {}): Promise<CollectReport> {
  const fs = options.fs ?? nodeFs;
  const now = (options.now ?? Date.now)();
  const live = options.liveSessionIds ? new Set(options.liveSessionIds) : null;
  const report: CollectReport = { tempFiles: [], orphans: [], expiredCorrupt: [] };
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return report;
    throw err;
  }
  for (const name of names) {
    let list: string[] | null = null;
    if (name.includes(TEMP_MARK) || name.includes(HISTORY_TEMP_MARK)) list = report.tempFiles;
    else if (name.includes(CORRUPT_MARK)) {
      const stamp = Number(name.slice(name.indexOf(CORRUPT_MARK) + CORRUPT_MARK.length));
      if (Number.isFinite(stamp) && now - stamp > CORRUPT_KEEP_MS) list = report.expiredCorrupt;
    } else if (live && name.endsWith(CHECKPOINT_SUFFIX) && !live.has(name.slice(0, -CHECKPOINT_SUFFIX.length))) {
      list = report.orphans;
    } else if (live && name.endsWith(HISTORY_FILE_SUFFIX) && !live.has(name.slice(0, -HISTORY_FILE_SUFFIX.length))) {
      list = report.orphans;
    }
    if (!list) continue;
    try {
      await fs.unlink(join(dir, name));
      list.push(name);
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
    }
  }
  return report;
}
