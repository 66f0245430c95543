// Nothing of a session that is gone stays on disk: `tend kill` removes its
// checkpoint and history files for good (no checkpoint written after the
// kill brings them back), and a starting server collects the files and store
// rows of sessions its store no longer has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { startTestServer, waitFor, type TestServer } from './harness.js';

const T = { timeout: 180_000 };

async function newSession(t: TestServer, command: string): Promise<string> {
  const created = await t.cli(['new', '--json', '--size', '80x24', '--', 'sh', '-c', command]);
  assert.equal(created.code, 0, created.stderr);
  return (JSON.parse(created.stdout) as { id: string }).id;
}

function filesOf(dir: string, ids: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => ids.some((id) => name.startsWith(id)));
}

test('tend kill of 10 sessions at once, half of them with output in flight, leaves none of their files behind', T, async () => {
  // Checkpoints as often as they come: every 50 ms of quiet, every 100 ms while output flows, with
  // a short live scrollback so that history blocks are appended to the history files as well.
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '50', TEND_CHECKPOINT_MAX_MS: '100', TEND_LIVE_ROWS: '30' });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await newSession(t, 'i=0; while :; do seq 1 1000; done'));
    for (let i = 0; i < 5; i++) ids.push(await newSession(t, 'seq 1 400; exec cat'));
    const dir = join(t.home, 'checkpoints');
    await waitFor('a checkpoint and a history file of every session', () =>
      ids.every((id) => existsSync(join(dir, `${id}.ckpt`)) && existsSync(join(dir, `${id}.hist`))), 60_000);
    const killed = await Promise.all(ids.map((id) => t.api('DELETE', `/v1/sessions/${id}`)));
    assert.deepEqual(killed.map((r) => r.status), ids.map(() => 200));
    // A clean stop waits for every checkpoint write asked for: a late one would be on disk by then.
    const stopped = await t.cli(['server', 'stop']);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.deepEqual(filesOf(dir, ids), [], 'no checkpoint or history file of a killed session');
  } finally {
    await t.dispose();
  }
});

test('a starting server removes the checkpoint, history and store rows of sessions its store no longer has', T, async () => {
  const t = startTestServer();
  try {
    const kept = await newSession(t, 'seq 1 50; exec cat');
    const killed = await newSession(t, 'exec cat');
    await t.holderPids(); // known to the harness while no server runs, so its dispose ends the holder whatever happens
    assert.equal((await t.cli(['kill', killed])).code, 0);
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    // What an older server left: files of a killed session and of one the store never had, a
    // history rewrite's temp file, and store rows that name no live session.
    const dir = join(t.home, 'checkpoints');
    mkdirSync(dir, { recursive: true });
    const planted = [`${killed}.ckpt`, `${killed}.hist`, 'f0000000.ckpt', 'f0000000.hist', `${killed}.hist.tmp-1-abcd1234`];
    for (const name of planted) writeFileSync(join(dir, name), 'left behind');
    writeFileSync(join(dir, `${kept}.hist`), 'held');
    const db = new Database(join(t.home, 'tend.db'));
    try {
      const sizes = db.prepare('INSERT INTO size_journal (session_id, generation, offset, cols, rows) VALUES (?, ?, 0, 80, 24)');
      sizes.run(killed, 'ab');
      sizes.run('f0000000', 'ab');
      sizes.run(kept, 'ab');
      const awaits = db.prepare("INSERT INTO awaits (id, session_id, typed_line, after_number, created_at) VALUES (?, ?, 'true', 0, ?)");
      awaits.run('w-orphan', 'f0000000', Date.now());
      awaits.run('w-killed', killed, Date.now());
    } finally {
      db.close();
    }

    assert.equal((await t.cli(['server', 'start'])).code, 0);
    assert.deepEqual(filesOf(dir, [killed, 'f0000000']), [], 'the files of sessions that are gone');
    assert.ok(existsSync(join(dir, `${kept}.hist`)), "a live session's history file stays");
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    const after = new Database(join(t.home, 'tend.db'), { readonly: true });
    try {
      const sizeIds = (after.prepare('SELECT DISTINCT session_id AS id FROM size_journal').all() as Array<{ id: string }>).map((r) => r.id);
      assert.deepEqual(sizeIds.sort(), [kept], 'size journal rows of the live session alone');
      const awaitIds = (after.prepare('SELECT id FROM awaits').all() as Array<{ id: string }>).map((r) => r.id);
      // An await of a killed session keeps its result for whoever collects it; one of no session at all goes.
      assert.deepEqual(awaitIds, ['w-killed']);
    } finally {
      after.close();
    }
  } finally {
    await t.dispose();
  }
});
