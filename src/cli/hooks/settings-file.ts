// Reading and writing an agent's settings file safely. A write goes to a
// temporary file beside it (same mode), is synced, and is renamed over the
// file, so the agent reads either the old settings or the new, never half;
// a symbolic link (a dotfiles checkout) is written through, not replaced.
// Before tend first changes a file it keeps a copy, <file>.tend-backup,
// never overwritten afterwards, so the file as the user had it is always
// there to go back to.
import { accessSync, closeSync, constants, existsSync, fsyncSync, fchmodSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';

/** A new settings file may hold secrets (API keys in env settings): only its owner reads it. */
const NEW_FILE_MODE = 0o600;
/** And a directory tend makes for it: only its owner enters it. */
const NEW_DIR_MODE = 0o700;
export const BACKUP_SUFFIX = '.tend-backup';

export interface SettingsFile {
  /** The path as the agent names it. */
  path: string;
  /** Where its bytes are (through a symbolic link), or the path when there is no file. */
  realPath: string;
  /** Its bytes; null when there is no file. */
  bytes: Buffer | null;
  /** Its text; null when there is no file. */
  text: string | null;
  /** Its permission bits; null when there is no file. */
  mode: number | null;
}

export interface WriteOutcome {
  /** The file did not exist and was made. */
  created: boolean;
  /** Where the file as it was is kept (null for a file that did not exist). */
  backup: string | null;
  /** The backup was made by this write (else it was there from an earlier one). */
  backupCreated: boolean;
}

export function backupPathOf(path: string): string {
  return path + BACKUP_SUFFIX;
}

export function readSettingsFile(path: string): SettingsFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { path, realPath: path, bytes: null, text: null, mode: null };
    if (code === 'EISDIR') throw failed(`${path} is a directory, not a settings file: move it away, then try again`);
    throw failed(`cannot read ${path}: ${reason(err)}`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw failed(`${path} is not UTF-8 text, so tend will not edit it`);
  }
  return { path, realPath: realpathSync(path), bytes, text, mode: statSync(path).mode & 0o7777 };
}

/**
 * Replaces the file's contents with `text`, atomically. Refuses (the file
 * untouched) when the file changed since it was read: the agent may have
 * written its settings meanwhile, and its change must not be lost.
 */
export function writeSettingsFile(file: SettingsFile, text: string): WriteOutcome {
  const exists = file.bytes !== null;
  if (exists) {
    try {
      accessSync(file.realPath, constants.W_OK);
    } catch (err) {
      throw failed(`cannot write ${file.path}: ${reason(err)}; nothing was changed`);
    }
  } else {
    makeParentDir(file.realPath);
  }
  const temp = `${file.realPath}.tend-${process.pid}.tmp`;
  try {
    writeSynced(temp, Buffer.from(text, 'utf8'), file.mode ?? NEW_FILE_MODE, file.path);
    if (!sameAsRead(file)) throw failed(`${file.path} changed while tend was editing it (the agent may have written it); nothing was changed: run the command again`);
    const backup = exists ? keepBackup(file) : { backup: null, backupCreated: false };
    renameSync(temp, file.realPath);
    syncDir(dirname(file.realPath));
    return { created: !exists, ...backup };
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      // Already renamed into place, or never made.
    }
    throw err instanceof CliError ? err : failed(`cannot write ${file.path}: ${reason(err)}; nothing was changed`);
  }
}

function keepBackup(file: SettingsFile): Pick<WriteOutcome, 'backup' | 'backupCreated'> {
  const backup = backupPathOf(file.path);
  if (existsSync(backup)) return { backup, backupCreated: false };
  writeSynced(backup, file.bytes!, file.mode ?? NEW_FILE_MODE, file.path);
  return { backup, backupCreated: true };
}

function writeSynced(path: string, bytes: Buffer, mode: number, forFile: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (err) {
    throw failed(`cannot write beside ${forFile} (${path}): ${reason(err)}; nothing was changed`);
  }
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    // The umask may have narrowed the mode it was opened with; the file keeps the one it had.
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function sameAsRead(file: SettingsFile): boolean {
  try {
    const now = readFileSync(file.realPath);
    return file.bytes !== null && now.equals(file.bytes);
  } catch (err) {
    return file.bytes === null && (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function makeParentDir(path: string): void {
  const dir = dirname(path);
  if (existsSync(dir)) return;
  try {
    mkdirSync(dir, { recursive: true, mode: NEW_DIR_MODE });
  } catch (err) {
    throw failed(`cannot make the directory ${dir}: ${reason(err)}`);
  }
}

/** A rename is durable once its directory is synced; some systems refuse to sync a directory, which costs only that. */
function syncDir(dir: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort: the rename itself has happened.
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  if (e.code === 'EROFS') return 'the file system is read-only';
  if (e.code === 'ENOSPC') return 'the disk is full';
  if (e.code === 'ENOTDIR') return 'a part of the path is not a directory';
  return e.code ?? (err instanceof Error ? err.message : String(err));
}

function failed(message: string): CliError {
  return new CliError(message, EXIT.failed);
}
