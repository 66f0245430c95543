import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from './index.js';

const dirs: string[] = [];
const stores: Store[] = [];

function openStore(dir = mkdtempSync(join(tmpdir(), 'tend-sizes-'))): { store: Store; dir: string } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const store = Store.open({ dir });
  stores.push(store);
  return { store, dir };
}

afterEach(() => {
  while (stores.length) stores.pop()!.dispose();
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

const sizesOf = (store: Store, id: string, generation: string) =>
  store.sizes.entries(id, generation).map((e) => [e.offset, e.cols, e.rows]);

test('the journal keeps each size at its offset, per session and generation, in order, across a reopen', () => {
  const { store, dir } = openStore();
  store.sizes.record({ sessionId: 's1', generation: 'g1', offset: 0, cols: 120, rows: 35 });
  store.sizes.record({ sessionId: 's2', generation: 'g9', offset: 0, cols: 80, rows: 24 });
  store.sizes.record({ sessionId: 's1', generation: 'g1', offset: 500, cols: 27, rows: 35 });
  store.sizes.record({ sessionId: 's1', generation: 'g1', offset: 500, cols: 60, rows: 20 });
  store.dispose();
  const reopened = openStore(dir).store;
  assert.deepEqual(sizesOf(reopened, 's1', 'g1'), [[0, 120, 35], [500, 27, 35], [500, 60, 20]]);
  assert.deepEqual(sizesOf(reopened, 's1', 'g2'), []);
  assert.deepEqual(sizesOf(reopened, 's2', 'g9'), [[0, 80, 24]]);
});

test('a checkpoint prunes what it covers but the size in effect at it, and older generations', () => {
  const { store } = openStore();
  store.sizes.record({ sessionId: 's', generation: 'old', offset: 0, cols: 100, rows: 30 });
  store.sizes.record({ sessionId: 's', generation: 'g', offset: 0, cols: 120, rows: 35 });
  store.sizes.record({ sessionId: 's', generation: 'g', offset: 40, cols: 30, rows: 35 });
  const covered = store.sizes.lastSeq('s');
  store.sizes.record({ sessionId: 's', generation: 'g', offset: 90, cols: 70, rows: 15 });
  store.sizes.prune('s', 'g', covered);
  assert.deepEqual(sizesOf(store, 's', 'g'), [[40, 30, 35], [90, 70, 15]]);
  assert.deepEqual(sizesOf(store, 's', 'old'), []);
  // A later checkpoint covering everything keeps the last size alone.
  store.sizes.prune('s', 'g', store.sizes.lastSeq('s'));
  assert.deepEqual(sizesOf(store, 's', 'g'), [[90, 70, 15]]);
});

test('the journal of a disposed session goes with it', () => {
  const { store } = openStore();
  store.createSession({
    id: 'gone', name: null, argv: ['bash'], cwd: '/', env: {}, cols: 80, rows: 24, holderSocket: 'gone.sock',
    holderPid: null, childPid: null, generation: 'g', createdAt: 0,
  });
  store.sizes.record({ sessionId: 'gone', generation: 'g', offset: 0, cols: 80, rows: 24 });
  store.sizes.record({ sessionId: 'kept', generation: 'g', offset: 0, cols: 80, rows: 24 });
  store.markDisposed('gone');
  assert.deepEqual(sizesOf(store, 'gone', 'g'), []);
  assert.deepEqual(sizesOf(store, 'kept', 'g'), [[0, 80, 24]]);
});

test('seqs are never reused, even after a session is forgotten, so a checkpoint never covers a later size', () => {
  const { store } = openStore();
  store.sizes.record({ sessionId: 'a', generation: 'g', offset: 0, cols: 80, rows: 24 });
  const last = store.sizes.record({ sessionId: 'b', generation: 'g', offset: 0, cols: 80, rows: 24 });
  store.sizes.forget('b');
  assert.deepEqual(sizesOf(store, 'b', 'g'), []);
  assert.ok(store.sizes.record({ sessionId: 'a', generation: 'g', offset: 10, cols: 40, rows: 24 }) > last);
  assert.equal(store.sizes.lastSeq('b'), 0);
});
