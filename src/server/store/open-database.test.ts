import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Store, StoreError, LATEST_SCHEMA_VERSION, TEND_APPLICATION_ID } from './index.js';
import { makeReadOnlyForChild, moduleUrlForAnotherUser, runAsAnotherUser } from '../../../test/support/as-another-user.js';

const TEST_TIMEOUT_MS = 30_000;
const CHILD_TIMEOUT_MS = 20_000;
const PAGE_BYTES = 4096;
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-store-open-'));
  dirs.push(d);
  return d;
}

afterEach(() => {
  while (dirs.length) {
    const d = dirs.pop()!;
    chmodAll(d);
    rmSync(d, { recursive: true, force: true });
  }
});

function chmodAll(d: string): void {
  try {
    chmodSync(d, 0o700);
    for (const name of readdirSync(d, { withFileTypes: true })) if (name.isDirectory()) chmodAll(join(d, name.name));
  } catch {
    /* already gone */
  }
}

/** A real store with a few sessions, closed cleanly. */
function populatedStore(dir: string, sessions = 40): string {
  const store = Store.open({ dir });
  for (let i = 0; i < sessions; i++) {
    store.createSession({
      id: `s${i}`, name: `n${i}`, argv: ['sh'], cwd: '/', env: { PAD: 'x'.repeat(300) }, cols: 80, rows: 24,
      holderSocket: `/h/s${i}.sock`, holderPid: null, childPid: null, generation: null, createdAt: i,
    });
  }
  store.dispose();
  return join(dir, 'tend.db');
}

/** Asserts that opening fails with `code` and leaves the file exactly as it was, with no companions. */
function assertRefusedUntouched(dir: string, code: string, message: RegExp): StoreError {
  const file = join(dir, 'tend.db');
  const before = readFileSync(file);
  const namesBefore = readdirSync(dir).sort();
  let caught: unknown;
  try {
    Store.open({ dir }).dispose();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError, got ${String(caught)}`);
  assert.equal(caught.code, code);
  assert.match(caught.message, message);
  assert.ok(caught.message.includes(file), 'the message names the file');
  assert.ok(readFileSync(file).equals(before), 'the file is byte for byte unchanged');
  assert.deepEqual(readdirSync(dir).sort(), namesBefore, 'no -wal/-shm/journal was left beside it');
  return caught;
}

describe('Store.open on files that are not a healthy tend store', { timeout: TEST_TIMEOUT_MS }, () => {
  test('refuses a file that is not SQLite at all and leaves it untouched', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tend.db'), 'these are my notes, not a database\n'.repeat(500));
    assertRefusedUntouched(dir, 'NOT_TEND_DB', /not a tend store .*not an SQLite database.*untouched/);
  });

  test("refuses another program's SQLite database and leaves it untouched", () => {
    const dir = tempDir();
    const other = new Database(join(dir, 'tend.db'));
    other.exec('CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES (\'bread\')');
    other.close();
    assertRefusedUntouched(dir, 'NOT_TEND_DB', /some other program \(application id 0\)/);
  });

  test('refuses a tend store whose b-tree page is damaged, with SQLite\'s finding', () => {
    const dir = tempDir();
    const file = populatedStore(dir);
    const bytes = readFileSync(file);
    for (let i = 0; i < 16; i++) bytes[PAGE_BYTES + i]! ^= 0x5a; // page 2: the sessions table's root
    writeFileSync(file, bytes);
    assertRefusedUntouched(dir, 'CORRUPT', /is damaged \(SQLite says: .*\).*untouched.*mv /s);
  });

  test('refuses a truncated tend store', () => {
    const dir = tempDir();
    const file = populatedStore(dir);
    writeFileSync(file, readFileSync(file).subarray(0, 2 * PAGE_BYTES + 100));
    assertRefusedUntouched(dir, 'CORRUPT', /damaged/);
  });

  test('refuses a store from a newer tend, naming both schema versions', () => {
    const dir = tempDir();
    const file = populatedStore(dir);
    const raw = new Database(file);
    raw.pragma('journal_mode = DELETE');
    raw.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 5}`);
    raw.close();
    const err = assertRefusedUntouched(dir, 'TOO_NEW', new RegExp(`schema version ${LATEST_SCHEMA_VERSION + 5}.*up to ${LATEST_SCHEMA_VERSION}`));
    assert.match(err.message, /does not downgrade/);
  });

  test('treats an empty file (a crash right after creating it) as a new store', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tend.db'), '');
    const store = Store.open({ dir });
    assert.equal(store.schemaVersion, LATEST_SCHEMA_VERSION);
    store.dispose();
    const raw = new Database(join(dir, 'tend.db'), { readonly: true });
    assert.equal(raw.pragma('application_id', { simple: true }), TEND_APPLICATION_ID);
    raw.close();
  });
});

describe('Store.open where this user may not write', { timeout: TEST_TIMEOUT_MS }, () => {
  const storeModule = moduleUrlForAnotherUser(join(import.meta.dirname, 'index.js'));

  test('opens an existing store read-only, lists its sessions, and refuses writes with READ_ONLY', async () => {
    const parent = tempDir();
    const home = join(parent, 'home');
    mkdirSync(home);
    const file = populatedStore(home, 3);
    assert.equal(existsSync(`${file}-wal`), false, 'a clean close leaves no -wal');
    const before = readFileSync(file);
    chmodSync(file, 0o644);
    makeReadOnlyForChild(home, [parent]);
    const child = await runAsAnotherUser(
      `import { Store } from ${JSON.stringify(storeModule)};
       const store = Store.open({ dir: ${JSON.stringify(home)} });
       let write;
       try { store.createSession({ id: 'x', name: null, argv: [], cwd: '/', env: {}, cols: 1, rows: 1,
         holderSocket: '/x', holderPid: null, childPid: null, generation: null, createdAt: 0 }); write = 'ok'; }
       catch (e) { write = { code: e.code, message: e.message }; }
       console.log(JSON.stringify({ readOnly: store.readOnly, reason: store.readOnlyReason,
         ids: store.listSessions().map((s) => s.id), byName: store.findByName('n1')?.id, write }));
       store.dispose();`,
      { timeoutMs: CHILD_TIMEOUT_MS },
    );
    assert.equal(child.code, 0, child.stderr);
    const r = child.result as { readOnly: boolean; reason: string; ids: string[]; byName: string; write: { code: string; message: string } };
    assert.equal(r.readOnly, true);
    assert.match(r.reason, /not writable \(EACCES\)/);
    assert.deepEqual(r.ids, ['s0', 's1', 's2']);
    assert.equal(r.byName, 's1');
    assert.equal(r.write.code, 'READ_ONLY');
    assert.match(r.write.message, /cannot record a new session: the store is read-only/);
    assert.ok(readFileSync(file).equals(before), 'the store is unchanged');
  });

  test('opens a store whose file alone is read-only in place, reading what the last run wrote', async () => {
    const parent = tempDir();
    const home = join(parent, 'home');
    mkdirSync(home);
    const file = populatedStore(home, 2);
    chmodSync(file, 0o444);
    chmodSync(home, 0o777); // SQLite may create its -shm beside the file
    chmodSync(parent, 0o755);
    const child = await runAsAnotherUser(
      `import { Store } from ${JSON.stringify(storeModule)};
       const store = Store.open({ dir: ${JSON.stringify(home)} });
       let write;
       try { store.setMeta('k', 'v'); write = 'ok'; } catch (e) { write = e.code; }
       console.log(JSON.stringify({ reason: store.readOnlyReason, ids: store.listSessions().map((s) => s.id), write }));
       store.dispose();`,
      { timeoutMs: CHILD_TIMEOUT_MS },
    );
    assert.equal(child.code, 0, child.stderr);
    const r = child.result as { reason: string; ids: string[]; write: string };
    assert.match(r.reason, /tend\.db is not writable \(EACCES\)/);
    assert.doesNotMatch(r.reason, /copy in memory/, 'read in place, not from a copy');
    assert.deepEqual(r.ids, ['s0', 's1']);
    assert.equal(r.write, 'READ_ONLY');
  });

  test('refuses with READ_ONLY when the directory is not writable and holds no store', async () => {
    const parent = tempDir();
    const home = join(parent, 'home');
    mkdirSync(home);
    makeReadOnlyForChild(home, [parent]);
    const child = await runAsAnotherUser(
      `import { Store } from ${JSON.stringify(storeModule)};
       try { Store.open({ dir: ${JSON.stringify(home)} }); console.log(JSON.stringify('opened')); }
       catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`,
      { timeoutMs: CHILD_TIMEOUT_MS },
    );
    assert.equal(child.code, 0, child.stderr);
    const r = child.result as { code: string; message: string };
    assert.equal(r.code, 'READ_ONLY');
    assert.match(r.message, /holds no store yet.*TEND_HOME/);
    assert.deepEqual(readdirSync(home), []);
  });
});
