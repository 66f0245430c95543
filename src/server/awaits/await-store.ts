// Awaits in the store's SQLite file (the `awaits` table, migration 4), so an
// await outlives the server that typed its command: a restarted server knows
// which command each pending await is bound to and collects its result, and
// a settled result can still be collected at its location after a restart.
// A read-only store keeps nothing (awaits then last as long as the server).
import type Database from 'better-sqlite3';
import type { AwaitOutcome } from './await-outcome.js';

export interface StoredAwait {
  id: string;
  sessionId: string;
  /** The line typed at the prompt (the input, or the line sourcing its staged script). */
  typedLine: string;
  /** The session's last command number when the input was typed: the await's command is the next one. */
  afterNumber: number;
  createdAt: number;
  /** When the holder had taken the whole line and its Enter; null while (or if) typing was cut short. */
  typedAt: number | null;
  /** null while pending. */
  outcome: Exclude<AwaitOutcome, { state: 'pending' }> | null;
  settledAt: number | null;
}

interface AwaitRow {
  id: string;
  session_id: string;
  typed_line: string;
  after_number: number;
  created_at: number;
  typed_at: number | null;
  outcome: string | null;
  settled_at: number | null;
}

export interface AwaitStore {
  insert(a: StoredAwait): void;
  markTyped(id: string, typedAt: number): void;
  /** Any await's outcome (a command's result, an agent's turn): kept as JSON. */
  settle(id: string, outcome: Exclude<AwaitOutcome<unknown>, { state: 'pending' }>, settledAt: number): void;
  remove(id: string): void;
  list(): StoredAwait[];
}

/** Keeps nothing: for a read-only store, and for tests of the registry alone. */
export const NO_AWAIT_STORE: AwaitStore = {
  insert() {},
  markTyped() {},
  settle() {},
  remove() {},
  list: () => [],
};

export function openAwaitStore(db: Database.Database, options: { readOnly: boolean; onBadRow?(id: string): void }): AwaitStore {
  const sql = {
    insert: db.prepare(`INSERT INTO awaits (id, session_id, typed_line, after_number, created_at)
      VALUES (@id, @sessionId, @typedLine, @afterNumber, @createdAt)`),
    settle: db.prepare('UPDATE awaits SET outcome = ?, settled_at = ? WHERE id = ?'),
    markTyped: db.prepare('UPDATE awaits SET typed_at = ? WHERE id = ?'),
    remove: db.prepare('DELETE FROM awaits WHERE id = ?'),
    list: db.prepare<[], AwaitRow>('SELECT id, session_id, typed_line, after_number, created_at, typed_at, outcome, settled_at FROM awaits ORDER BY created_at'),
  };
  const read = (row: AwaitRow): StoredAwait | null => {
    let outcome: StoredAwait['outcome'] = null;
    if (row.outcome !== null) {
      try {
        const parsed = JSON.parse(row.outcome) as StoredAwait['outcome'];
        if (parsed === null || (parsed.state !== 'done' && parsed.state !== 'failed')) return null;
        outcome = parsed;
      } catch {
        return null;
      }
    }
    return {
      id: row.id,
      sessionId: row.session_id,
      typedLine: row.typed_line,
      afterNumber: row.after_number,
      createdAt: row.created_at,
      typedAt: row.typed_at,
      outcome,
      settledAt: row.settled_at,
    };
  };
  return {
    insert: (a) => {
      if (!options.readOnly) sql.insert.run({ id: a.id, sessionId: a.sessionId, typedLine: a.typedLine, afterNumber: a.afterNumber, createdAt: a.createdAt });
    },
    markTyped: (id, typedAt) => {
      if (!options.readOnly) sql.markTyped.run(typedAt, id);
    },
    settle: (id, outcome, settledAt) => {
      if (!options.readOnly) sql.settle.run(JSON.stringify(outcome), settledAt, id);
    },
    remove: (id) => {
      if (!options.readOnly) sql.remove.run(id);
    },
    list: () => {
      const out: StoredAwait[] = [];
      for (const row of sql.list.all()) {
        const a = read(row);
        if (a !== null) {
          out.push(a);
          continue;
        }
        options.onBadRow?.(row.id);
        if (!options.readOnly) sql.remove.run(row.id);
      }
      return out;
    },
  };
}
