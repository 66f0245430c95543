import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../store/index.js';
import { WorkspaceRepository } from './workspace-repository.js';
import { UnknownSessionsError, WorkspaceConflictError, Workspaces } from './workspaces.js';
import { WorkspaceStoreReadOnlyError } from './workspace-repository.js';

const quietLog = { info() {}, warn() {}, error() {} };

function open(dir: string, live: Set<string>, readOnly = false) {
  const store = Store.open({ dir });
  const workspaces = new Workspaces({
    repository: WorkspaceRepository.open({ db: store.database, readOnly }),
    liveSessionIds: () => live,
    log: quietLog as never,
  });
  return { store, workspaces, dispose: () => { workspaces.dispose(); store.dispose(); } };
}

describe('workspaces in the store', () => {
  test('split creates "default" around a session in none, then splits within its workspace; layouts survive reopening', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-ws-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const live = new Set(['a', 'b', 'c', 'd']);
    const first = open(dir, live);
    assert.deepEqual(first.workspaces.split('a', 'b', 'right').sessions, ['a', 'b']);
    assert.equal(first.workspaces.split('b', 'c', 'down').name, 'default');
    assert.deepEqual(first.workspaces.get('default')!.sessions, ['a', 'b', 'c']);
    // A second unplaced session gets a workspace of its own.
    live.add('e');
    assert.equal(first.workspaces.split('d', 'e', 'right').name, 'default-2');
    first.dispose();
    const again = open(dir, live);
    assert.deepEqual(again.workspaces.list().map((w) => [w.name, w.sessions]), [['default', ['a', 'b', 'c']], ['default-2', ['d', 'e']]]);
    again.dispose();
  });

  test('a session that went away leaves the layout on read and on removal, collapsing its split', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-ws-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const live = new Set(['a', 'b', 'c']);
    const { workspaces, dispose } = open(dir, live);
    t.after(dispose);
    workspaces.split('a', 'b', 'right');
    workspaces.split('b', 'c', 'down');
    workspaces.sessionRemoved('b');
    assert.deepEqual(workspaces.get('default')!.layout, { type: 'split', direction: 'right', ratio: 0.5, first: { type: 'session', sessionId: 'a' }, second: { type: 'session', sessionId: 'c' } });
    live.delete('c'); // disposed while no server ran: pruned on the next read
    assert.deepEqual(workspaces.get('default')!.layout, { type: 'session', sessionId: 'a' });
    live.delete('a');
    assert.deepEqual(workspaces.list().map((w) => [w.name, w.layout]), [['default', null]]);
  });

  test('put refuses unknown sessions and sessions of another workspace; add places beside the last session', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-ws-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const { workspaces, dispose } = open(dir, new Set(['a', 'b', 'c']));
    t.after(dispose);
    assert.throws(() => workspaces.put('w', { type: 'session', sessionId: 'nope' }), UnknownSessionsError);
    workspaces.put('w', { type: 'session', sessionId: 'a' });
    assert.throws(() => workspaces.put('v', { type: 'session', sessionId: 'a' }), (err: unknown) => err instanceof WorkspaceConflictError && /already in workspace "w"/.test(err.message));
    assert.deepEqual(workspaces.add('w', 'b').sessions, ['a', 'b']);
    assert.deepEqual(workspaces.add('v', 'c').layout, { type: 'session', sessionId: 'c' });
    assert.throws(() => workspaces.add('v', 'a'), WorkspaceConflictError);
    assert.equal(workspaces.remove('v'), true);
    assert.equal(workspaces.get('v'), undefined);
  });

  test('a read-only store serves layouts and refuses changes', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-ws-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const live = new Set(['a', 'b']);
    const writable = open(dir, live);
    writable.workspaces.split('a', 'b', 'down');
    writable.dispose();
    const ro = open(dir, live, true);
    t.after(ro.dispose);
    assert.deepEqual(ro.workspaces.get('default')!.sessions, ['a', 'b']);
    assert.throws(() => ro.workspaces.put('x', null), WorkspaceStoreReadOnlyError);
    live.delete('b');
    assert.deepEqual(ro.workspaces.get('default')!.sessions, ['a'], 'pruning still shows the truth, unsaved');
  });
});
