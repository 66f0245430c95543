import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Store, StoreError, LATEST_SCHEMA_VERSION, type NewSession } from './index.js';

const TEST_TIMEOUT_MS = 20_000;
const dirs: string[] = [];
const stores: Store[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-store-'));
  dirs.push(d);
  return d;
}

function open(dir: string): Store {
  const s = Store.open({ dir });
  stores.push(s);
  return s;
}

function spec(id: string, extra: Partial<NewSession> = {}): NewSession {
  return {
    id,
    name: null,
    argv: ['bash', '-l'],
    cwd: '/home/someone/project',
    env: { TERM: 'xterm-256color', LANG: 'ko_KR.UTF-8' },
    cols: 120,
    rows: 40,
    holderSocket: `/run/tend/h/${id}.sock`,
    holderPid: 4242,
    childPid: 4243,
    generation: '9f1c2b3a4d5e6f70',
    createdAt: 1_700_000_000_000,
    ...extra,
  };
}

afterEach(() => {
  while (stores.length) stores.pop()!.dispose();
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

describe('Store', { timeout: TEST_TIMEOUT_MS }, () => {
  test('creates tend.db at the latest schema, in WAL mode with foreign keys and a busy timeout', () => {
    const dir = tempDir();
    const store = open(dir);
    assert.equal(store.schemaVersion, LATEST_SCHEMA_VERSION);
    assert.equal(store.foundSchemaVersion, 0);
    assert.equal(store.readOnly, false);
    store.dispose();
    const raw = new Database(join(dir, 'tend.db'), { readonly: true });
    try {
      assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(raw.pragma('user_version', { simple: true }), LATEST_SCHEMA_VERSION);
      assert.equal(raw.pragma('application_id', { simple: true }), 0x74656e64);
    } finally {
      raw.close();
    }
  });

  test('creates its directory when TEND_HOME does not exist yet', () => {
    const dir = join(tempDir(), 'not', 'yet');
    const store = open(dir);
    store.createSession(spec('a1'));
    assert.equal(store.listSessions().length, 1);
  });

  test('returns a created session field for field, with argv and env intact', () => {
    const store = open(tempDir());
    const made = store.createSession(spec('a1', { name: 'build', argv: ['sh', '-c', 'echo "héllo 世界" && exit 3'] }));
    assert.deepEqual(made, {
      ...spec('a1', { name: 'build', argv: ['sh', '-c', 'echo "héllo 世界" && exit 3'] }),
      title: null,
      status: 'running',
      exitCode: null,
      exitSignal: null,
      endedAt: null,
      lastOutputAt: null,
    });
    assert.deepEqual(store.getSession('a1'), made);
    assert.equal(store.getSession('nope'), undefined);
  });

  test('lists sessions in creation order, hiding disposed ones unless asked', () => {
    const store = open(tempDir());
    for (const id of ['c3', 'a1', 'b2']) store.createSession(spec(id, { createdAt: 5 }));
    store.markDisposed('a1');
    assert.deepEqual(store.listSessions().map((s) => s.id), ['c3', 'b2']);
    assert.deepEqual(store.listSessions({ includeDisposed: true }).map((s) => s.id), ['c3', 'a1', 'b2']);
  });

  test('keeps everything across a close and reopen', () => {
    const dir = tempDir();
    const first = open(dir);
    first.createSession(spec('a1', { name: 'web' }));
    first.updateSession('a1', { title: 'vim README', lastOutputAt: 1_700_000_000_500, cols: 100 });
    first.setMeta('boots', '7');
    first.dispose();
    const second = open(dir);
    assert.equal(second.foundSchemaVersion, LATEST_SCHEMA_VERSION);
    const rec = second.findByName('web');
    assert.equal(rec?.id, 'a1');
    assert.equal(rec?.title, 'vim README');
    assert.equal(rec?.cols, 100);
    assert.equal(rec?.lastOutputAt, 1_700_000_000_500);
    assert.equal(second.getMeta('boots'), '7');
    assert.equal(second.getMeta('missing'), undefined);
  });

  test('updates only the fields in the patch, and can set a field to null', () => {
    const store = open(tempDir());
    store.createSession(spec('a1', { name: 'x' }));
    store.updateSession('a1', { holderPid: 99, generation: 'abcdef', name: null });
    const rec = store.getSession('a1')!;
    assert.equal(rec.holderPid, 99);
    assert.equal(rec.generation, 'abcdef');
    assert.equal(rec.name, null);
    assert.equal(rec.childPid, 4243);
    assert.equal(rec.cwd, '/home/someone/project');
    store.updateSession('a1', { cwd: '/tmp', name: undefined });
    assert.equal(store.getSession('a1')!.cwd, '/tmp');
    assert.equal(store.getSession('a1')!.name, null);
  });

  test('walks the lifecycle running → exited → disposed and records the exit', () => {
    const store = open(tempDir());
    store.createSession(spec('a1'));
    store.markExited('a1', { code: 3, signal: null, endedAt: 1_700_000_009_000 });
    let rec = store.getSession('a1')!;
    assert.equal(rec.status, 'exited');
    assert.equal(rec.exitCode, 3);
    assert.equal(rec.exitSignal, null);
    assert.equal(rec.endedAt, 1_700_000_009_000);
    store.markCold('a1'); // an exited session keeps its exit status
    assert.equal(store.getSession('a1')!.status, 'exited');
    store.markDisposed('a1');
    store.markExited('a1', { code: null, signal: 9, endedAt: 1 }); // a late exit event changes nothing
    rec = store.getSession('a1')!;
    assert.equal(rec.status, 'disposed');
    assert.equal(rec.exitCode, 3);
    assert.throws(() => store.updateSession('a1', { status: 'running' }), { name: 'StoreError', code: 'BAD_TRANSITION' });
  });

  test('a cold session can be picked up again as running', () => {
    const store = open(tempDir());
    store.createSession(spec('a1'));
    store.markCold('a1');
    assert.equal(store.getSession('a1')!.status, 'cold');
    store.updateSession('a1', { status: 'running', holderPid: 7 });
    assert.equal(store.getSession('a1')!.status, 'running');
  });

  test('refuses a second live session of one name, and frees the name on dispose', () => {
    const store = open(tempDir());
    store.createSession(spec('a1', { name: 'build' }));
    assert.throws(() => store.createSession(spec('b2', { name: 'build' })), (err: unknown) => {
      assert.ok(err instanceof StoreError);
      assert.equal(err.code, 'NAME_TAKEN');
      assert.match(err.message, /already named "build" \(a1\)/);
      return true;
    });
    store.createSession(spec('b2', { name: 'test' }));
    assert.throws(() => store.updateSession('b2', { name: 'build' }), { code: 'NAME_TAKEN' });
    assert.equal(store.getSession('b2')!.name, 'test');
    store.markDisposed('a1');
    store.updateSession('b2', { name: 'build' });
    assert.equal(store.findByName('build')!.id, 'b2');
    // Unnamed sessions never collide with each other.
    store.createSession(spec('c3'));
    store.createSession(spec('d4'));
  });

  test('refuses a duplicate id and unknown ids with their own codes', () => {
    const store = open(tempDir());
    store.createSession(spec('a1'));
    assert.throws(() => store.createSession(spec('a1')), { code: 'DUPLICATE_ID' });
    assert.throws(() => store.updateSession('zz', { cols: 1 }), { code: 'NOT_FOUND', message: /zz/ });
    assert.throws(() => store.markDisposed('zz'), { code: 'NOT_FOUND' });
  });

  test('overwrites a meta value', () => {
    const store = open(tempDir());
    store.setMeta('boots', '1');
    store.setMeta('boots', '2');
    assert.equal(store.getMeta('boots'), '2');
  });

  test('reads a signal death stored the old way (code -1) as code null and its signal', () => {
    const dir = tempDir();
    const store = open(dir);
    store.createSession(spec('k1'));
    store.createSession(spec('k2'));
    store.markExited('k2', { code: 3, signal: null, endedAt: 1_700_000_000_500 });
    store.dispose();
    const raw = new Database(join(dir, 'tend.db'));
    raw.prepare(`UPDATE sessions SET status = 'exited', exit_code = -1, exit_signal = 9 WHERE id = 'k1'`).run();
    raw.close();
    const again = open(dir);
    assert.deepEqual([again.getSession('k1')!.exitCode, again.getSession('k1')!.exitSignal], [null, 9]);
    assert.deepEqual([again.getSession('k2')!.exitCode, again.getSession('k2')!.exitSignal], [3, null]);
  });

  test('a row whose JSON was damaged reads with that field empty and named as damaged; the other sessions read as ever', () => {
    const dir = tempDir();
    const store = open(dir);
    store.createSession(spec('a1'));
    store.createSession(spec('a2'));
    store.dispose();
    const raw = new Database(join(dir, 'tend.db'));
    raw.prepare(`UPDATE sessions SET env = '{"TERM": "xt' WHERE id = 'a1'`).run();
    raw.prepare(`UPDATE sessions SET argv = '{"not": "a list"}' WHERE id = 'a2'`).run();
    raw.close();
    const again = open(dir);
    const [a1, a2] = again.listSessions();
    assert.deepEqual(a1!.env, {});
    assert.deepEqual(a1!.damaged, ['environment']);
    assert.deepEqual(a1!.argv, spec('a1').argv, 'the fields that read back are kept');
    assert.deepEqual(a2!.argv, []);
    assert.deepEqual(a2!.damaged, ['command']);
    assert.equal(again.getSession('a1')!.damaged?.length, 1);
    assert.deepEqual(again.liveSessionIds().sort(), ['a1', 'a2']);
    again.dispose();
  });

  test('collectOrphanRows removes size-journal rows of disposed and unknown sessions and await rows of unknown ones', () => {
    const dir = tempDir();
    const store = open(dir);
    store.createSession(spec('live'));
    store.createSession(spec('gone'));
    store.markDisposed('gone');
    for (const id of ['live', 'gone', 'never']) store.sizes.record({ sessionId: id, generation: 'ab', offset: 0, cols: 80, rows: 24 });
    const awaits = store.database.prepare("INSERT INTO awaits (id, session_id, typed_line, after_number, created_at) VALUES (?, ?, 'x', 0, 0)");
    awaits.run('w1', 'gone');
    awaits.run('w2', 'never');
    assert.deepEqual(store.collectOrphanRows(), { sizeRows: 2, awaitRows: 1 });
    assert.equal(store.sizes.entries('live', 'ab').length, 1);
    assert.deepEqual(store.database.prepare('SELECT id FROM awaits').all(), [{ id: 'w1' }]);
    store.dispose();
  });
});
