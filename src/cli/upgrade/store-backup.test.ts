import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { backUpStore, readBackupManifest, restoreStore, storeSchemaVersion } from './store-backup.js';

const TEST_TIMEOUT_MS = 20_000;
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-backup-'));
  dirs.push(d);
  return d;
}

/** A closed SQLite store at a given user_version, as a server leaves it after a clean stop. */
function closedStore(home: string, userVersion: number): void {
  const db = new Database(join(home, 'tend.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (x INTEGER)');
  db.prepare('INSERT INTO t VALUES (?)').run(userVersion);
  db.pragma(`user_version = ${userVersion}`);
  db.close();
}

describe('store backup', { timeout: TEST_TIMEOUT_MS }, () => {
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test('reads the schema version of a closed store from its header, and none while a -wal holds changes', () => {
    const home = tempDir();
    assert.equal(storeSchemaVersion(home), null, 'no store');
    closedStore(home, 7);
    assert.equal(storeSchemaVersion(home), 7);
    writeFileSync(join(home, 'tend.db-wal'), 'changes not yet in the main file');
    assert.equal(storeSchemaVersion(home), null);
  });

  test('puts the files back byte for byte and removes a -wal and -shm the backup did not have', () => {
    const home = tempDir();
    const backup = join(tempDir(), 'store-backup');
    closedStore(home, 7);
    const before = readFileSync(join(home, 'tend.db'));
    const manifest = backUpStore(home, backup, 'build-a');
    assert.deepEqual(Object.keys(manifest.files), ['tend.db']);
    assert.equal(manifest.schemaVersion, 7);
    assert.equal(manifest.build, 'build-a');

    // Another build migrates the store and leaves its WAL files behind.
    const db = new Database(join(home, 'tend.db'));
    db.pragma('journal_mode = DELETE'); // the change lands in the main file, not a -wal
    db.exec('CREATE TABLE newer (y TEXT)');
    db.pragma('user_version = 8');
    db.close();
    writeFileSync(join(home, 'tend.db-wal'), 'a newer build\'s log');
    writeFileSync(join(home, 'tend.db-shm'), 'its index');
    assert.ok(!readFileSync(join(home, 'tend.db')).equals(before), 'the migration changed the file');

    restoreStore(home, backup);
    assert.ok(readFileSync(join(home, 'tend.db')).equals(before), 'tend.db is as it was');
    assert.equal(existsSync(join(home, 'tend.db-wal')), false);
    assert.equal(existsSync(join(home, 'tend.db-shm')), false);
    assert.equal(storeSchemaVersion(home), 7);
  });

  test('keeps a -wal the store had, and refuses a backup cut short before its manifest', () => {
    const home = tempDir();
    const backup = join(tempDir(), 'store-backup');
    closedStore(home, 3);
    writeFileSync(join(home, 'tend.db-wal'), 'the last changes');
    backUpStore(home, backup, 'b');
    rmSync(join(home, 'tend.db-wal'));
    restoreStore(home, backup);
    assert.equal(readFileSync(join(home, 'tend.db-wal'), 'utf8'), 'the last changes');

    rmSync(join(backup, 'manifest.json'));
    assert.equal(readBackupManifest(backup), null);
    assert.throws(() => restoreStore(home, backup), /has no manifest \(it was cut short\)/);
  });
});
