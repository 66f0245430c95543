import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Store, LATEST_SCHEMA_VERSION, MIGRATIONS, TEND_APPLICATION_ID, migrate, type Migration } from './index.js';

const TEST_TIMEOUT_MS = 20_000;
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-migrate-'));
  dirs.push(d);
  return d;
}

afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

// Version 1 of the schema written out by hand, as the first release left it,
// so the test does not depend on migration 1's code to build its starting point.
const SCHEMA_V1 = `
  CREATE TABLE sessions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT, argv TEXT NOT NULL,
    cwd TEXT NOT NULL, env TEXT NOT NULL, cols INTEGER NOT NULL, rows INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'exited', 'cold', 'disposed')),
    exit_code INTEGER, exit_signal INTEGER, created_at INTEGER NOT NULL, ended_at INTEGER,
    holder_socket TEXT NOT NULL, holder_pid INTEGER, child_pid INTEGER, generation TEXT
  ) STRICT;
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT, WITHOUT ROWID;
`;

function writeV1Store(dir: string): void {
  const db = new Database(join(dir, 'tend.db'));
  db.exec(SCHEMA_V1);
  const insert = db.prepare(`INSERT INTO sessions (id, name, argv, cwd, env, cols, rows, status, exit_code,
    created_at, ended_at, holder_socket) VALUES (?, ?, '["zsh"]', '/w', '{"A":"1"}', 80, 24, ?, ?, ?, ?, ?)`);
  insert.run('a1', 'build', 'running', null, 10, null, '/h/a1');
  insert.run('b2', 'build', 'cold', null, 20, null, '/h/b2'); // a duplicate live name v1 allowed
  insert.run('c3', 'build', 'disposed', null, 5, null, '/h/c3');
  insert.run('d4', 'logs', 'exited', 1, 30, 31, '/h/d4');
  db.prepare(`INSERT INTO meta VALUES ('boots', '12')`).run();
  db.pragma(`application_id = ${TEND_APPLICATION_ID}`);
  db.pragma('user_version = 1');
  db.close();
}

describe('migrations', { timeout: TEST_TIMEOUT_MS }, () => {
  test('are numbered 1, 2, … without holes', () => {
    MIGRATIONS.forEach((m, i) => assert.equal(m.version, i + 1));
    assert.equal(LATEST_SCHEMA_VERSION, MIGRATIONS.length);
  });

  test('bring an empty database to the latest version with every table in place', () => {
    const db = new Database(':memory:');
    assert.equal(migrate(db), LATEST_SCHEMA_VERSION);
    const tables = (db.prepare(`SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') ORDER BY name`).all() as Array<{ name: string }>)
      .map((r) => r.name)
      .filter((n) => !n.startsWith('sqlite_'));
    assert.deepEqual(tables, ['agents', 'awaits', 'meta', 'sessions', 'sessions_live_name', 'size_journal', 'size_journal_session', 'workspaces']);
    assert.equal(db.pragma('application_id', { simple: true }), TEND_APPLICATION_ID);
    assert.equal(migrate(db), LATEST_SCHEMA_VERSION, 'a second run does nothing');
    db.close();
  });

  test('upgrade a version-1 store in place, keeping its rows and unnaming later duplicates', () => {
    const dir = tempDir();
    writeV1Store(dir);
    const store = Store.open({ dir });
    try {
      assert.equal(store.foundSchemaVersion, 1);
      assert.equal(store.schemaVersion, LATEST_SCHEMA_VERSION);
      const all = store.listSessions({ includeDisposed: true });
      assert.deepEqual(all.map((s) => [s.id, s.name, s.status]), [
        ['a1', 'build', 'running'],
        ['b2', null, 'cold'],
        ['c3', 'build', 'disposed'],
        ['d4', 'logs', 'exited'],
      ]);
      const d4 = store.getSession('d4')!;
      assert.equal(d4.exitCode, 1);
      assert.equal(d4.endedAt, 31);
      assert.equal(d4.title, null);
      assert.equal(d4.lastOutputAt, null);
      assert.deepEqual(d4.env, { A: '1' });
      assert.equal(store.getMeta('boots'), '12');
      // The new index holds from now on.
      assert.throws(() => store.updateSession('b2', { name: 'build' }), { code: 'NAME_TAKEN' });
    } finally {
      store.dispose();
    }
  });

  test('leave the file at the previous version when a step fails half way', () => {
    const db = new Database(':memory:');
    const failing: Migration = {
      version: 2,
      description: 'fails after its first statement',
      up(d) {
        d.exec('CREATE TABLE half_done (x INTEGER)');
        throw new Error('disk went away');
      },
    };
    assert.throws(() => migrate(db, [MIGRATIONS[0]!, failing]), /disk went away/);
    assert.equal(db.pragma('user_version', { simple: true }), 1);
    const half = db.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'half_done'`).get() as { n: number };
    assert.equal(half.n, 0, 'the failed step left nothing behind');
    db.close();
  });
});
