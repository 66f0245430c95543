// Opening the store file without ever harming it. Everything that could tell
// us the file is not ours, is damaged, or is from a newer tend is read before
// the first write (even switching to WAL rewrites the header), and every such
// finding becomes a StoreError that names the file and says what to do. A
// directory we may not write to gives a read-only store when there is a file
// to read, because serving the sessions we know beats refusing to start.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { LATEST_SCHEMA_VERSION, TEND_APPLICATION_ID } from './migrations.js';
import { StoreError, sqliteCode } from './store-error.js';
import { diskTroubleOf } from '../../common/disk-trouble.js';

// Long enough to ride out a `tend` CLI reading the file while the server
// writes; short enough that a stuck lock surfaces as an error, not a hang.
export const BUSY_TIMEOUT_MS = 5000;

// Byte offsets in the SQLite file header of the read and write format
// versions: 2 means WAL. See https://www.sqlite.org/fileformat.html.
const HEADER_WRITE_VERSION_OFFSET = 18;
const HEADER_READ_VERSION_OFFSET = 19;
const FORMAT_VERSION_ROLLBACK = 1;

export interface OpenedDatabase {
  db: Database.Database;
  /** The schema version found in the file before any migration. */
  foundVersion: number;
  /** Null when writable; otherwise why not, in words for the log. */
  readOnlyReason: string | null;
}

interface FileFacts {
  applicationId: number;
  userVersion: number;
  objectCount: number;
}

function errnoOf(err: unknown): string {
  return err && typeof err === 'object' && 'code' in err ? String(err.code) : 'error';
}

function writeBlocker(path: string): string | null {
  try {
    accessSync(path, constants.W_OK);
    return null;
  } catch (err) {
    return errnoOf(err);
  }
}

/** Reads the facts that decide whether we may touch the file. Reads only. */
function inspect(db: Database.Database, file: string): FileFacts {
  try {
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const userVersion = db.pragma('user_version', { simple: true }) as number;
    const objectCount = (db.prepare('SELECT count(*) AS n FROM sqlite_schema').get() as { n: number }).n;
    // quick_check reads every page; the store holds a few rows per session,
    // so this costs milliseconds and turns silent damage into a clear refusal.
    const check = db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') throw corrupt(file, check.replace(/\s*\n\s*/g, '; '));
    return { applicationId, userVersion, objectCount };
  } catch (err) {
    if (err instanceof StoreError) throw err;
    const code = sqliteCode(err);
    if (code === 'SQLITE_NOTADB') {
      throw new StoreError(
        'NOT_TEND_DB',
        `${file} is not a tend store (it is not an SQLite database). tend leaves it untouched: ` +
          `move it away, or set TEND_HOME to another directory, and start again.`,
        { cause: err },
      );
    }
    if (code === 'SQLITE_CORRUPT' || code?.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_IOERR_SHORT_READ') {
      throw corrupt(file, (err as Error).message);
    }
    throw err;
  }
}

function corrupt(file: string, detail: string): StoreError {
  return new StoreError(
    'CORRUPT',
    `${file} is damaged (SQLite says: ${detail}). tend leaves it untouched: restore it from a backup, ` +
      `or move it aside (mv ${file} ${file}.damaged) to start with an empty store — running terminals keep ` +
      `running, but the new store will not know them.`,
  );
}

function judge(facts: FileFacts, file: string): void {
  if (facts.userVersion > LATEST_SCHEMA_VERSION) {
    throw new StoreError(
      'TOO_NEW',
      `${file} has schema version ${facts.userVersion}, but this tend knows versions up to ` +
        `${LATEST_SCHEMA_VERSION}: a newer tend wrote it. Run that newer tend, or set TEND_HOME to another ` +
        `directory; tend does not downgrade a store.`,
    );
  }
  const empty = facts.applicationId === 0 && facts.userVersion === 0 && facts.objectCount === 0;
  if (!empty && facts.applicationId !== TEND_APPLICATION_ID) {
    throw new StoreError(
      'NOT_TEND_DB',
      `${file} is an SQLite database of some other program (application id ${facts.applicationId}), not a ` +
        `tend store. tend leaves it untouched: move it away, or set TEND_HOME to another directory.`,
    );
  }
}

function tuneConnection(db: Database.Database): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
}

function closeQuietly(db: Database.Database): void {
  try {
    db.close();
  } catch {
    /* the error that brought us here is the one to report */
  }
}

function asUnreadable(file: string, err: unknown): StoreError {
  if (err instanceof StoreError) return err;
  // A disk that is full or read-only is no matter of read permissions: say which it is.
  const trouble = diskTroubleOf(err);
  if (trouble?.kind === 'full') {
    return new StoreError(
      'WRITE_FAILED',
      `cannot open ${file}: ${trouble.reason} (${trouble.code}). Free some space on that disk, or set TEND_HOME ` +
        `to a directory on another one.`,
      { cause: err },
    );
  }
  if (trouble !== null) {
    return new StoreError(
      'READ_ONLY',
      `cannot open ${file}: ${trouble.reason} (${trouble.code}). Make it writable, or set TEND_HOME to a ` +
        `directory you can write.`,
      { cause: err },
    );
  }
  return new StoreError(
    'UNREADABLE',
    `cannot open ${file}: ${(err as Error).message}. Check that the file and its directory are readable ` +
      `by this user.`,
    { cause: err },
  );
}

/** Opens for reading, falling back to a private in-memory copy when SQLite needs to create files it may not. */
function openReadOnly(file: string, reason: string): OpenedDatabase {
  let db: Database.Database | null = null;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    tuneConnection(db);
    const facts = inspect(db, file);
    judge(facts, file);
    return { db, foundVersion: facts.userVersion, readOnlyReason: reason };
  } catch (err) {
    if (db) closeQuietly(db);
    if (err instanceof StoreError) throw err;
    // A WAL-mode file can only be read in place if its -shm can be created
    // or exists; in a read-only directory it cannot. A file closed cleanly
    // has no -wal, so the main file alone is complete and a copy of it in
    // memory reads the same rows without touching the disk.
    if (existsSync(`${file}-wal`)) {
      throw new StoreError(
        'READ_ONLY',
        `${file} holds changes not yet merged from ${file}-wal, and ${dirname(file)} is read-only, so tend ` +
          `cannot read it safely. Make ${dirname(file)} writable and start again.`,
        { cause: err },
      );
    }
  }
  try {
    const bytes = readFileSync(file);
    if (bytes.length > HEADER_READ_VERSION_OFFSET) {
      // An in-memory database cannot be in WAL mode; the copy says rollback.
      bytes[HEADER_WRITE_VERSION_OFFSET] = FORMAT_VERSION_ROLLBACK;
      bytes[HEADER_READ_VERSION_OFFSET] = FORMAT_VERSION_ROLLBACK;
    }
    db = new Database(bytes);
    tuneConnection(db);
    const facts = inspect(db, file);
    judge(facts, file);
    return { db, foundVersion: facts.userVersion, readOnlyReason: `${reason} (reading a copy in memory)` };
  } catch (err) {
    if (db) closeQuietly(db);
    throw asUnreadable(file, err);
  }
}

export function openDatabase(file: string): OpenedDatabase {
  const dir = dirname(file);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const trouble = diskTroubleOf(err);
    const why = trouble === null ? (err as Error).message : `${trouble.reason} (${trouble.code})`;
    throw new StoreError(
      trouble?.kind === 'read-only' ? 'READ_ONLY' : 'UNREADABLE',
      `cannot create ${dir} for the store: ${why}. The tend server keeps its sessions there (TEND_HOME), so it ` +
        `cannot start without it: make it possible, or set TEND_HOME to a directory you can write.`,
      { cause: err },
    );
  }
  const exists = existsSync(file);
  if (exists && !statSync(file).isFile()) {
    throw new StoreError('NOT_TEND_DB', `${file} is not a regular file; move it away and start again.`);
  }
  const dirBlocker = writeBlocker(dir);
  const fileBlocker = exists ? writeBlocker(file) : null;
  if (dirBlocker || fileBlocker) {
    const what = dirBlocker ? `${dir} is not writable (${dirBlocker})` : `${file} is not writable (${fileBlocker})`;
    if (!exists) {
      const reason = diskTroubleOf({ code: dirBlocker ?? fileBlocker })?.reason;
      throw new StoreError(
        'READ_ONLY',
        `${what}${reason ? `: ${reason}` : ''}. It holds no store yet, and TEND_HOME is where the tend server ` +
          `keeps its sessions, so the server cannot start there. Make it writable, or set TEND_HOME to a ` +
          `directory you can write.`,
      );
    }
    return openReadOnly(file, `${what}; changes to sessions are not saved`);
  }

  let db: Database.Database | null = null;
  try {
    db = new Database(file);
    tuneConnection(db);
    const facts = inspect(db, file);
    judge(facts, file);
    // From here on we know the file is ours (or empty): now it may be written.
    // WAL lets the CLI read while the server writes; NORMAL sync in WAL mode
    // survives any crash of the process (only a power loss can drop the last
    // commits, never corrupt the file).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return { db, foundVersion: facts.userVersion, readOnlyReason: null };
  } catch (err) {
    if (db) closeQuietly(db);
    throw asUnreadable(file, err);
  }
}
