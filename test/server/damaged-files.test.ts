// Damaged files on disk through a real server: a flipped bit in a history
// file's block, a history file cut short, a flipped bit in a checkpoint and
// in the store. After a restart every row the disk still holds in one run up
// to the screen comes back exact, and every row that does not is counted —
// in the API's scrollback and search results, `tend screen`'s warning, the
// session's `degraded` flag and a viewer's STATE — with one line in the log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, truncateSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import {
  VIEWER_PROTOCOL_VERSION, decodeFrameFromServer, encodeFrameToServer, type FrameFromServer,
} from '../../src/protocol/viewer-frames.js';
import { LOST_ROW_TEXT } from '../../src/server/screen/history/lost-rows.js';
import { startTestServer, waitFor, type TestServer } from './harness.js';

const T = { timeout: 180_000 };
const LINES = 3000;
// Rows kept live in xterm: the rest of the 3 000 lines go to the history and its file.
const LIVE_ROWS = 100;
const SCREEN_ROWS = 24;

interface Screen {
  text: string;
  degraded: boolean;
  scrollback: { shown: number; available: number; dropped: number; lost: number };
}

/** A session that printed `line 0` … `line 2999`, its screen checkpointed and its server stopped. */
async function printedAndStopped(t: TestServer): Promise<{ id: string; lines: string[] }> {
  const file = join(t.home, 'lines.txt');
  const lines = Array.from({ length: LINES }, (_, i) => `line ${i}`);
  writeFileSync(file, lines.join('\r\n') + '\r\n');
  const created = await t.cli(['new', '--json', '--size', `80x${SCREEN_ROWS}`, '--', 'sh', '-c', 'stty -opost -echo; cat "$0"; exec cat', file]);
  assert.equal(created.code, 0, created.stderr);
  const id = (JSON.parse(created.stdout) as { id: string }).id;
  const size = readFileSync(file).length;
  await waitFor('every line on the screen', async () => (await t.api<{ offset: number }>('GET', `/v1/sessions/${id}`)).body.offset === size);
  await t.holderPids(); // known to the harness while no server runs, so its dispose ends the holder whatever happens
  // A clean stop writes a checkpoint of every session, its history file first.
  const stopped = await t.cli(['server', 'stop']);
  assert.equal(stopped.code, 0, stopped.stderr);
  return { id, lines };
}

/** `lines` as a screen shows them when rows first..first+count-1 were lost from the history file. */
function withLostRows(lines: readonly string[], first: number, count: number): string[] {
  return [...lines.slice(0, first), ...Array<string>(count).fill(LOST_ROW_TEXT), ...lines.slice(first + count)];
}

/** Where each record of a history file starts, and the first row of its block. */
function historyRecords(file: Buffer): Array<{ at: number; bytes: number; firstRow: number; rows: number }> {
  const records = [];
  for (let at = 12; at < file.length; ) {
    const length = file.readUInt32LE(at);
    records.push({ at, bytes: 8 + length, firstRow: file.readDoubleLE(at + 9), rows: file.readUInt32LE(at + 17) });
    at += 8 + length;
  }
  return records;
}

async function screenOf(t: TestServer, id: string): Promise<Screen> {
  const res = await t.cli(['screen', id, '--scrollback', '5000', '--json']);
  assert.equal(res.code, 0, res.stderr);
  return JSON.parse(res.stdout) as Screen;
}

function logLines(t: TestServer, pattern: RegExp): string[] {
  return readFileSync(join(t.home, 'logs', 'server.log'), 'utf8').split('\n').filter((l) => pattern.test(l));
}

/** A viewer's first STATE after its snapshot, and its answer for the rows older than the snapshot's. */
async function viewerSees(t: TestServer, id: string): Promise<{ degraded: boolean; dropped: number; firstRow: number }> {
  const ws = new WebSocket(`ws+unix://${t.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
  const frames: FrameFromServer[] = [];
  ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  try {
    ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }));
    ws.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: id, cols: 80, rows: SCREEN_ROWS }));
    await waitFor('the snapshot', () => frames.some((f) => f.type === 'snapshot'));
    ws.send(encodeFrameToServer({ type: 'scrollback-request', channel: 1, beforeRow: 0, count: 10_000 }));
    const page = await waitFor('the older rows', () => frames.find((f): f is Extract<FrameFromServer, { type: 'scrollback' }> => f.type === 'scrollback'));
    const state = frames.find((f): f is Extract<FrameFromServer, { type: 'state' }> => f.type === 'state' && f.state.degraded !== undefined);
    return { degraded: state?.state.degraded === true, dropped: page.dropped, firstRow: page.firstRow };
  } finally {
    ws.terminate();
  }
}

test('a flipped bit in a history block: its rows are marked and counted as lost everywhere, the rows on both sides come back exact, also after another restart', T, async () => {
  const t = startStopped();
  try {
    const { id, lines } = await printedAndStopped(t);
    const path = join(t.home, 'checkpoints', `${id}.hist`);
    const file = readFileSync(path);
    const records = historyRecords(file);
    assert.ok(records.length >= 8, `${records.length} blocks in the history file`);
    const hit = records[4]!;
    file[hit.at + hit.bytes - 100]! ^= 0x08; // a bit of one row's cells
    writeFileSync(path, file);
    const lost = hit.rows;
    const expected = withLostRows(lines, hit.firstRow, hit.rows);

    assert.equal((await t.cli(['server', 'start'])).code, 0);
    const check = async (when: string) => {
      const screen = await screenOf(t, id);
      assert.equal(screen.scrollback.dropped, lost, `${when}: the damaged block's rows count as dropped`);
      assert.equal(screen.scrollback.lost, lost, `${when}: …and said to be lost from the file`);
      assert.equal(screen.degraded, true, `${when}: the screen is marked incomplete`);
      // Every row on both sides of the hole is exact, and each row of the hole says it was lost.
      assert.deepEqual(screen.text.split('\n').filter((l) => l !== ''), expected, `${when}: the rows around the hole`);
      const plain = await t.cli(['screen', id, '--scrollback', '5000']);
      assert.equal(plain.stderr, `tend: ${lost} rows of scrollback were lost: the session's history file was damaged (each reads as lost; the server's log says where); showing the ${LINES - SCREEN_ROWS + 1} rows of scrollback there are\n`);
      const info = await t.api<{ degraded: boolean }>('GET', `/v1/sessions/${id}`);
      assert.equal(info.body.degraded, true, `${when}: the session's JSON`);
      const found = await t.api<{ matches: Array<{ row: number; line: string }>; dropped: number }>('GET', `/v1/sessions/${id}/search?q=line%201&max=10000`);
      assert.equal(found.body.dropped, lost, `${when}: search says what it could not search`);
      assert.deepEqual(found.body.matches.map((m) => m.line), expected.filter((l) => l.includes('line 1')));
      const viewer = await viewerSees(t, id);
      assert.deepEqual(viewer, { degraded: true, dropped: lost, firstRow: 0 }, `${when}: a viewer`);
    };
    await check('after the restart');
    const warnings = logLines(t, /history file|scrollback are lost/);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, new RegExp(`warn session ${id}: ${lost} rows of its scrollback are lost \\(.*damaged record at bytes ${hit.at}\\.\\.${hit.at + hit.bytes} \\(skipped\\)\\)`));

    // The next checkpoint writes the file whole again: another restart finds no damage and the same losses.
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    const rewritten = historyRecords(readFileSync(path));
    assert.ok(rewritten.every((r, i) => i === 0 ? r.firstRow === 0 : r.firstRow === rewritten[i - 1]!.firstRow + rewritten[i - 1]!.rows), 'the file was written whole again, the marks in the hole');
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    await check('after a second restart');
    assert.equal(logLines(t, /history file|scrollback are lost/).length, 1, 'the damage was reported once');
  } finally {
    await t.dispose();
  }
});

test('a history file cut short: the rows it lacks are marked and counted as lost, the rows below come back exact', T, async () => {
  const t = startStopped();
  try {
    const { id, lines } = await printedAndStopped(t);
    const path = join(t.home, 'checkpoints', `${id}.hist`);
    const records = historyRecords(readFileSync(path));
    const last = records[records.length - 1]!;
    // Cut inside its last block: the blocks before it end short of the rows the checkpoint counts.
    truncateSync(path, last.at + 40);
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    const screen = await screenOf(t, id);
    assert.equal(screen.scrollback.dropped, last.rows);
    assert.equal(screen.scrollback.lost, last.rows);
    assert.equal(screen.degraded, true);
    assert.deepEqual(screen.text.split('\n').filter((l) => l !== ''), withLostRows(lines, last.firstRow, last.rows), 'the rows below, the live rows and the screen are whole');
    assert.equal(logLines(t, /scrollback are lost .*torn or damaged record/).length, 1);
  } finally {
    await t.dispose();
  }
});

test('a flipped bit in a checkpoint: it is moved aside with one warning and the holder replays every byte, nothing lost', T, async () => {
  const t = startStopped();
  try {
    const { id, lines } = await printedAndStopped(t);
    const path = join(t.home, 'checkpoints', `${id}.ckpt`);
    const file = readFileSync(path);
    file[Math.floor(file.length / 2)]! ^= 0x01;
    writeFileSync(path, file);
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    const screen = await screenOf(t, id);
    assert.deepEqual(screen.scrollback, { shown: LINES - SCREEN_ROWS + 1, available: LINES - SCREEN_ROWS + 1, dropped: 0, lost: 0 });
    assert.equal(screen.degraded, false);
    assert.deepEqual(screen.text.split('\n').filter((l) => l !== ''), lines, 'every line, from the holder\'s ring');
    const warnings = logLines(t, /checkpoint corrupt/);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /moved aside to .*\.ckpt\.corrupt-\d+\); replaying from the holder/);
    assert.ok(readdirSync(join(t.home, 'checkpoints')).some((n) => n.startsWith(`${id}.ckpt.corrupt-`)), 'kept for a person to look at');
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    assert.ok(existsSync(path), 'a new checkpoint is written in its place');
  } finally {
    await t.dispose();
  }
});

test('a flipped bit in the store that breaks one session\'s command: every session is recovered, with one warning naming it', T, async () => {
  const t = startStopped();
  try {
    const { id, lines } = await printedAndStopped(t);
    const other = await t.cli(['new', '--json', '--name', 'other', '--', 'sh', '-c', 'echo other-is-here; exec cat']);
    assert.equal(other.code, 0, other.stderr);
    await waitFor('the other session\'s output', async () => (await t.cli(['screen', ':other'])).stdout.includes('other-is-here'));
    await t.holderPids();
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    // The store is closed (its journal folded into the file): flip a bit of the first session's command.
    const path = join(t.home, 'tend.db');
    const file = readFileSync(path);
    // The row may be in the file more than once (an updated row leaves its old copy in the page's
    // free space): the same bit of each, so the live copy is hit.
    let flipped = 0;
    for (let at = file.indexOf('["sh","-c","stty'); at >= 0; at = file.indexOf('["sh","-c","stty', at + 1), flipped++) {
      file[at]! ^= 0x04; // '[' becomes '_': no longer JSON
    }
    assert.ok(flipped > 0, 'the command is in the file');
    writeFileSync(path, file);
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    const listed = JSON.parse((await t.cli(['ls', '--json'])).stdout) as Array<{ id: string; status: string; argv: string[] }>;
    assert.deepEqual(listed.map((s) => [s.status, s.argv.length > 0]), [['running', false], ['running', true]]);
    const screen = await screenOf(t, id);
    assert.deepEqual(screen.text.split('\n').filter((l) => l !== ''), lines, 'its screen and history are all there');
    assert.match((await t.cli(['screen', ':other'])).stdout, /other-is-here/);
    const warnings = logLines(t, /no longer read back/);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, new RegExp(`warn session ${id}: its command in the store no longer read back \\(the file is damaged\\); the session is recovered without it$`));
  } finally {
    await t.dispose();
  }
});

function startStopped(): TestServer {
  return startTestServer({ TEND_LIVE_ROWS: String(LIVE_ROWS), TEND_CHECKPOINT_QUIET_MS: '200' });
}
