// The server's durable state: sessions and a little key/value meta, in one
// SQLite file. Every statement is prepared once, when the store opens; the
// server is the only writer, so no method needs more than one statement or a
// short transaction.
import type Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Disposable } from '../../common/lifecycle.js';
import { LATEST_SCHEMA_VERSION, migrate } from './migrations.js';
import { openDatabase } from './open-database.js';
import {
  COLUMN_OF,
  PATCHABLE_FIELDS,
  recordFromRow,
  type NewSession,
  type SessionPatch,
  type SessionRecord,
  type SessionRow,
  type StoredSessionStatus,
} from './session-record.js';
import { StoreError, sqliteCode } from './store-error.js';
import { SizeJournal } from './size-journal.js';

export const STORE_FILE_NAME = 'tend.db';

const SESSION_COLUMNS = `id, name, argv, cwd, env, cols, rows, title, status, exit_code, exit_signal, created_at,
  ended_at, last_output_at, holder_socket, holder_pid, child_pid, generation`;

function prepareStatements(db: Database.Database) {
  const assignments = PATCHABLE_FIELDS.map((f) => {
    const col = COLUMN_OF[f];
    return `${col} = CASE WHEN @set_${f} THEN @${f} ELSE ${col} END`;
  }).join(',\n  ');
  return {
    insert: db.prepare(`INSERT INTO sessions (id, name, argv, cwd, env, cols, rows, status, created_at,
        holder_socket, holder_pid, child_pid, generation)
      VALUES (@id, @name, @argv, @cwd, @env, @cols, @rows, 'running', @createdAt,
        @holderSocket, @holderPid, @childPid, @generation)`),
    get: db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`),
    listLive: db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE status != 'disposed' ORDER BY seq`),
    listAll: db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY seq`),
    liveIds: db.prepare(`SELECT id FROM sessions WHERE status != 'disposed'`),
    findByName: db.prepare(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE name = ? AND status != 'disposed' AND name IS NOT NULL`,
    ),
    update: db.prepare(`UPDATE sessions SET\n  ${assignments}\nWHERE id = @id`),
    markExited: db.prepare(`UPDATE sessions SET status = 'exited', exit_code = @code, exit_signal = @signal,
        ended_at = @endedAt WHERE id = @id AND status IN ('running', 'cold')`),
    markCold: db.prepare(`UPDATE sessions SET status = 'cold' WHERE id = ? AND status = 'running'`),
    markDisposed: db.prepare(`UPDATE sessions SET status = 'disposed' WHERE id = ?`),
    // Rows of sessions the store no longer counts: a size journal matters only to a live session; an
    // await's row outlives its session's end (its result is collected later) but not its record.
    orphanSizes: db.prepare(`DELETE FROM size_journal WHERE session_id NOT IN (SELECT id FROM sessions WHERE status != 'disposed')`),
    orphanAwaits: db.prepare(`DELETE FROM awaits WHERE session_id NOT IN (SELECT id FROM sessions)`),
    getMeta: db.prepare(`SELECT value FROM meta WHERE key = ?`),
    setMeta: db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
  };
}

export interface StoreOptions {
  /** The directory that holds tend.db (the server passes TEND_HOME). */
  dir: string;
}

export class Store implements Disposable {
  readonly file: string;
  readonly readOnly: boolean;
  /** Why the store is read-only, for the log; null when writable. */
  readonly readOnlyReason: string | null;
  readonly schemaVersion: number;
  /** The version the file had before this open migrated it (0 for a new file). */
  readonly foundSchemaVersion: number;
  private readonly db: Database.Database;

  /**
   * The open connection, for repositories of other tables in the same file
   * (workspaces): one connection also works where SQLite could only open the
   * store as an in-memory copy (a read-only directory).
   */
  get database(): Database.Database {
    return this.db;
  }
  private readonly sql: ReturnType<typeof prepareStatements>;
  private disposed = false;
  /** Where each session was resized (migration 5); written only when the store is writable. */
  readonly sizes: SizeJournal;

  private constructor(file: string, db: Database.Database, found: number, readOnlyReason: string | null, version: number) {
    this.file = file;
    this.db = db;
    this.foundSchemaVersion = found;
    this.readOnlyReason = readOnlyReason;
    this.readOnly = readOnlyReason !== null;
    this.schemaVersion = version;
    this.sql = prepareStatements(db);
    this.sizes = new SizeJournal(db);
  }

  /**
   * Opens `<dir>/tend.db`, creating it if absent, and migrates it to the
   * latest schema. Refuses (StoreError) a file that is not a tend store, is
   * damaged, or is newer than this code; it never rewrites such a file.
   */
  static open(options: StoreOptions): Store {
    const file = join(options.dir, STORE_FILE_NAME);
    const opened = openDatabase(file);
    let version = opened.foundVersion;
    try {
      if (opened.readOnlyReason === null) {
        version = migrate(opened.db);
      } else if (version < LATEST_SCHEMA_VERSION) {
        // The statements below name the latest columns; an older file needs its migration, which is a write.
        throw new StoreError(
          'READ_ONLY',
          `${file} has schema version ${version} and must be upgraded before use, but ${opened.readOnlyReason}. ` +
            `Make it writable and start again.`,
        );
      }
      return new Store(file, opened.db, opened.foundVersion, opened.readOnlyReason, version);
    } catch (err) {
      opened.db.close();
      if (err instanceof StoreError) throw err;
      throw new StoreError('WRITE_FAILED', `cannot upgrade ${file} to the current schema: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  // ---- sessions --------------------------------------------------------------

  createSession(s: NewSession): SessionRecord {
    this.write('record a new session', () => {
      try {
        this.sql.insert.run({ ...s, argv: JSON.stringify(s.argv), env: JSON.stringify(s.env) });
      } catch (err) {
        throw this.uniqueness(err, s.id, s.name) ?? err;
      }
    });
    return this.mustGet(s.id);
  }

  getSession(id: string): SessionRecord | undefined {
    const row = this.sql.get.get(id) as SessionRow | undefined;
    return row ? recordFromRow(row) : undefined;
  }

  /** Sessions in creation order (the order `tend ls` numbers, from 1); disposed ones only when asked. */
  listSessions(options: { includeDisposed?: boolean } = {}): SessionRecord[] {
    const stmt = options.includeDisposed ? this.sql.listAll : this.sql.listLive;
    return (stmt.all() as SessionRow[]).map((row) => recordFromRow(row));
  }

  /** Ids of the sessions not disposed, whether or not the rest of their rows still read back. */
  liveSessionIds(): string[] {
    return (this.sql.liveIds.all() as Array<{ id: string }>).map((r) => r.id);
  }

  /** The live (not disposed) session of that name. */
  findByName(name: string): SessionRecord | undefined {
    const row = this.sql.findByName.get(name) as SessionRow | undefined;
    return row ? recordFromRow(row) : undefined;
  }

  updateSession(id: string, patch: SessionPatch): void {
    const current = this.mustGet(id);
    if (patch.status !== undefined && current.status === 'disposed' && patch.status !== 'disposed') {
      throw new StoreError('BAD_TRANSITION', `session ${id} is disposed; it cannot become ${patch.status} again`);
    }
    const params: Record<string, unknown> = { id };
    for (const f of PATCHABLE_FIELDS) {
      const has = Object.prototype.hasOwnProperty.call(patch, f) && patch[f] !== undefined;
      params[`set_${f}`] = has ? 1 : 0;
      params[f] = has ? patch[f] : null;
    }
    this.write(`update session ${id}`, () => {
      try {
        this.sql.update.run(params);
      } catch (err) {
        throw this.uniqueness(err, id, patch.name ?? null) ?? err;
      }
    });
  }

  /** The program ended. Ignored for a disposed session (its exit can race a kill). */
  markExited(id: string, exit: { code: number | null; signal: number | null; endedAt: number }): void {
    this.mustGet(id);
    this.write(`mark session ${id} exited`, () => this.sql.markExited.run({ id, ...exit }));
  }

  /** The holder is gone. Only a running session becomes cold: an exited one keeps its exit status. */
  markCold(id: string): void {
    this.mustGet(id);
    this.write(`mark session ${id} cold`, () => this.sql.markCold.run(id));
  }

  /** Final: the record stays (for history) but no longer counts, and its name is free again; its size journal goes. */
  markDisposed(id: string): void {
    this.mustGet(id);
    this.write(`dispose session ${id}`, () => {
      this.sql.markDisposed.run(id);
      this.sizes.forget(id);
    });
  }

  /**
   * At start: deletes size-journal rows of sessions that are disposed or
   * unknown (a kill that could not finish its own cleanup) and await rows of
   * sessions the store has no record of. Returns how many of each went.
   */
  collectOrphanRows(): { sizeRows: number; awaitRows: number } {
    return this.write('collect rows of forgotten sessions', () =>
      this.db.transaction(() => ({ sizeRows: this.sql.orphanSizes.run().changes, awaitRows: this.sql.orphanAwaits.run().changes }))());
  }

  // ---- meta --------------------------------------------------------------------

  getMeta(key: string): string | undefined {
    return (this.sql.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.write(`set meta ${key}`, () => this.sql.setMeta.run(key, value));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.db.close();
  }

  // ---- internals ---------------------------------------------------------------

  private mustGet(id: string): SessionRecord {
    const record = this.getSession(id);
    if (!record) throw new StoreError('NOT_FOUND', `no session has the id ${id}`);
    return record;
  }

  private write<T>(what: string, fn: () => T): T {
    if (this.readOnly) {
      throw new StoreError('READ_ONLY', `cannot ${what}: the store is read-only (${this.readOnlyReason})`);
    }
    try {
      return fn();
    } catch (err) {
      if (err instanceof StoreError) throw err;
      const code = sqliteCode(err);
      if (code?.startsWith('SQLITE_READONLY')) {
        throw new StoreError('READ_ONLY', `cannot ${what}: ${this.file} has become read-only (${code})`, { cause: err });
      }
      if (code === 'SQLITE_FULL') {
        throw new StoreError('WRITE_FAILED', `cannot ${what}: the disk holding ${this.file} is full`, { cause: err });
      }
      throw new StoreError('WRITE_FAILED', `cannot ${what} in ${this.file}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Turns a UNIQUE violation into the error a person can act on. */
  private uniqueness(err: unknown, id: string, name: string | null): StoreError | null {
    if (sqliteCode(err) !== 'SQLITE_CONSTRAINT_UNIQUE') return null;
    const message = (err as Error).message;
    if (message.includes('sessions.id')) {
      return new StoreError('DUPLICATE_ID', `a session with the id ${id} exists already`, { cause: err });
    }
    const holder = name === null ? undefined : this.findByName(name);
    return new StoreError(
      'NAME_TAKEN',
      `a session is already named "${name}"${holder ? ` (${holder.id})` : ''}; choose another name`,
      { cause: err },
    );
  }
}

export type { StoredSessionStatus };
