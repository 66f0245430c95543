// The store's schema, as a numbered list of steps from an empty file on.
// `PRAGMA user_version` holds the number of the last step applied; each step
// runs in its own transaction together with the bump of that number, so a
// crash mid-migration leaves the file at the previous version, never between.
// Steps are never edited once released: a change is a new step at the end.
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

/** Written into the file header (`PRAGMA application_id`) so tend knows its own files: 'tend' in ASCII. */
export const TEND_APPLICATION_ID = 0x74656e64;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions and meta',
    up(db) {
      db.exec(`
        CREATE TABLE sessions (
          seq           INTEGER PRIMARY KEY AUTOINCREMENT, -- creation order: what 'tend ls' numbers
          id            TEXT    NOT NULL UNIQUE,
          name          TEXT,
          argv          TEXT    NOT NULL,                  -- JSON array of strings
          cwd           TEXT    NOT NULL,
          env           TEXT    NOT NULL,                  -- JSON object of strings
          cols          INTEGER NOT NULL,
          rows          INTEGER NOT NULL,
          status        TEXT    NOT NULL CHECK (status IN ('running', 'exited', 'cold', 'disposed')),
          exit_code     INTEGER,
          exit_signal   INTEGER,
          created_at    INTEGER NOT NULL,                  -- ms since the epoch
          ended_at      INTEGER,
          holder_socket TEXT    NOT NULL,
          holder_pid    INTEGER,
          child_pid     INTEGER,
          generation    TEXT                               -- the holder's, hex
        ) STRICT;
        CREATE TABLE meta (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    description: 'title and last output time; names unique among live sessions',
    up(db) {
      db.exec(`
        ALTER TABLE sessions ADD COLUMN title TEXT;
        ALTER TABLE sessions ADD COLUMN last_output_at INTEGER;
      `);
      // Version 1 left uniqueness to the server, so a file may hold two live
      // sessions of one name. The oldest keeps it (it is the one a person
      // has been addressing longest); the others become unnamed, still
      // reachable by id and index, rather than the migration failing.
      db.exec(`
        UPDATE sessions SET name = NULL
         WHERE status != 'disposed' AND name IS NOT NULL
           AND seq NOT IN (SELECT min(seq) FROM sessions
                            WHERE status != 'disposed' AND name IS NOT NULL
                            GROUP BY name);
        CREATE UNIQUE INDEX sessions_live_name ON sessions(name)
         WHERE status != 'disposed' AND name IS NOT NULL;
      `);
    },
  },
  {
    version: 3,
    description: 'workspaces: named layouts of sessions',
    up(db) {
      // The layout is a JSON tree (src/protocol/api/layout.ts) read
      // back through its validator; NULL is a workspace with no sessions left.
      db.exec(`
        CREATE TABLE workspaces (
          name       TEXT    PRIMARY KEY,
          layout     TEXT,
          created_at INTEGER NOT NULL,                     -- ms since the epoch
          updated_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
  {
    version: 4,
    description: 'awaits: commands typed for `tend await`, kept across server restarts',
    up(db) {
      // A row is written before the command is typed, so a server that
      // restarts (or is killed) mid-await still knows which command is the
      // await's: the first one its session started after `after_number`,
      // typed as `typed_line`. `outcome` is the settled result as JSON (NULL
      // while pending); src/server/awaits/await-store.ts reads it back.
      db.exec(`
        CREATE TABLE awaits (
          id           TEXT    PRIMARY KEY,
          session_id   TEXT    NOT NULL,
          typed_line   TEXT    NOT NULL,
          after_number INTEGER NOT NULL,
          created_at   INTEGER NOT NULL,                   -- ms since the epoch
          outcome      TEXT,
          settled_at   INTEGER
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
  {
    version: 5,
    description: 'size journal: where each session was resized, for an exact replay after a crash',
    up(db) {
      // One row per size the screen took (its size at spawn, then each
      // resize), written before the holder is told, at the holder offset the
      // screen had received then: a server that was killed replays the bytes
      // after its checkpoint with each resize at the byte it fell on, as the
      // live screen saw it. `seq` only grows (AUTOINCREMENT never reuses a
      // number), so a checkpoint names the last row it covers by it.
      db.exec(`
        CREATE TABLE size_journal (
          seq        INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id TEXT    NOT NULL,
          generation TEXT    NOT NULL,                   -- the holder's, hex
          offset     INTEGER NOT NULL,                   -- holder byte offset the size took effect at
          cols       INTEGER NOT NULL,
          rows       INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX size_journal_session ON size_journal(session_id, seq);
      `);
    },
  },
  {
    version: 6,
    description: 'awaits: when the session\'s holder took the whole typed line',
    up(db) {
      // Set once the holder (which outlives the server) has taken the line and
      // its Enter. A pending await restored without it had its typing cut by a
      // crash: the server sends what the holder lacks of it (the holder drops
      // what it has); one with it is never typed again.
      db.exec('ALTER TABLE awaits ADD COLUMN typed_at INTEGER;');
    },
  },
  {
    version: 7,
    description: 'agents: the AI agent of each session that has one, its state and conversation id',
    up(db) {
      // One row per session with an agent; `agent` is JSON that
      // src/server/agents/agent-store.ts reads back (a row it cannot read is
      // dropped with a warning: the agent is learnt again from its next hook).
      db.exec(`
        CREATE TABLE agents (
          session_id TEXT    PRIMARY KEY,
          agent      TEXT    NOT NULL,
          updated_at INTEGER NOT NULL                    -- ms since the epoch
        ) STRICT, WITHOUT ROWID;
      `);
    },
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Applies every step above the file's version, each in its own transaction. Returns the new version. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  let version = db.pragma('user_version', { simple: true }) as number;
  for (const step of migrations) {
    if (step.version <= version) continue;
    if (step.version !== version + 1) {
      throw new Error(`migration list has a hole: version ${version} is followed by ${step.version}`);
    }
    db.transaction(() => {
      step.up(db);
      db.pragma(`application_id = ${TEND_APPLICATION_ID}`);
      db.pragma(`user_version = ${step.version}`);
    })();
    version = step.version;
  }
  return version;
}
