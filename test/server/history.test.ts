// History through a real server: rows that scrolled far past the live
// scrollback come back exactly — `tend screen --scrollback`, a command's
// output, a viewer asking for older rows — also after the server is
// SIGKILLed and restarted; and a memory budget drops the oldest rows and
// says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Screen } from '../../src/server/screen/index.js';
import {
  VIEWER_PROTOCOL_VERSION, decodeFrameFromServer, encodeFrameToServer, type FrameFromServer, type FrameFromViewer,
} from '../../src/protocol/viewer-frames.js';
import { killAndRestart, startTestServer, waitFor, type TestServer } from './harness.js';

const T = { timeout: 300_000 };
const LINES = 50_000;

/** Deterministic varied lines: colours (16/256/RGB), wide characters, combining marks, rows that wrap, links. */
function variedLines(count: number, cols: number): string {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const words = ['build', 'ok', 'é', 'e\u0301', '世界', '\u{1f600}', 'x'.repeat(cols + 9), 'tab\there', 'ｱｲｳ', '─┼─'];
  let out = '';
  for (let i = 0; i < count; i++) {
    const r = random();
    if (r < 0.15) out += `\x1b[3${i % 8};4${(i >> 3) % 8}m`;
    else if (r < 0.2) out += `\x1b[38;5;${i % 256}m\x1b[1;4m`;
    else if (r < 0.25) out += `\x1b[38;2;${i % 256};${(i * 7) % 256};90m`;
    else if (r < 0.3) out += '\x1b[0m';
    else if (r < 0.32) out += `\x1b]8;;https://example.com/${i % 9}\x1b\\link ${i}\x1b]8;;\x1b\\ `;
    out += `${i} ${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]}\x1b[K\r\n`;
  }
  return out + '\x1b[0mend of stream\r\n';
}

/** What a terminal that keeps every row live shows for `scrollback` rows above its screen. */
async function referenceText(bytes: Uint8Array, scrollback: number, options: { ansi?: boolean; joinWrapped?: boolean } = {}): Promise<string> {
  const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 10_000_000, liveScrollbackRows: 10_000_000 });
  try {
    screen.write(bytes, { live: false });
    await screen.flush();
    return screen.text({ scrollbackRows: scrollback, ...options });
  } finally {
    screen.dispose();
  }
}

async function newCatSession(t: TestServer, file: string): Promise<string> {
  const created = await t.cli(['new', '--json', '--size', '80x24', '--', 'sh', '-c', 'stty -opost -echo; cat "$0"; exec cat', file]);
  assert.equal(created.code, 0, created.stderr);
  const id = (JSON.parse(created.stdout) as { id: string }).id;
  const size = readFileSync(file).length;
  await waitFor(`all ${size} bytes fed`, async () => {
    const s = await t.api<{ offset: number }>('GET', `/v1/sessions/${id}`);
    return s.status === 200 && s.body.offset === size;
  }, 120_000);
  return id;
}

/** A viewer speaking the protocol over the server's socket, recording frames. */
async function rawViewer(t: TestServer): Promise<{ send(f: FrameFromViewer): void; next<K extends FrameFromServer['type']>(type: K): Promise<Extract<FrameFromServer, { type: K }>>; close(): void }> {
  const ws = new WebSocket(`ws+unix://${t.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const frames: FrameFromServer[] = [];
  let taken = 0;
  ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
  const send = (f: FrameFromViewer) => ws.send(encodeFrameToServer(f));
  send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true });
  return {
    send,
    async next(type) {
      return waitFor(`a ${type} frame`, () => {
        const i = frames.findIndex((f, k) => k >= taken && f.type === type);
        if (i < 0) return undefined;
        taken = i + 1;
        return frames[i] as Extract<FrameFromServer, { type: typeof type }>;
      }, 60_000, 5);
    },
    close: () => ws.terminate(),
  };
}

test('50 000 varied lines: tend screen --scrollback, a viewer asking for older rows, and both again after a SIGKILL', T, async () => {
  const t = startTestServer({ TEND_SCROLLBACK_ROWS: '60000', TEND_CHECKPOINT_QUIET_MS: '200' });
  try {
    const file = join(t.home, 'lines.bin');
    writeFileSync(file, variedLines(LINES, 80));
    const bytes = readFileSync(file);
    const id = await newCatSession(t, file);
    const expected = await referenceText(bytes, LINES);
    const expectedAnsi = await referenceText(bytes, LINES, { ansi: true });
    // A viewer's older rows come a row per line, soft wraps not joined (docs/viewer-protocol.md).
    const everyRowAnsi = (await referenceText(bytes, 10 * LINES, { ansi: true, joinWrapped: false })).split('\n');
    const check = async (when: string) => {
      const plain = await t.cli(['screen', id, '--scrollback', String(LINES)]);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stderr, '', `${when}: nothing dropped, nothing lost`);
      assert.equal(plain.stdout, expected + '\n', `${when}: plain text`);
      const ansi = await t.cli(['screen', id, '--ansi', '--scrollback', String(LINES)]);
      assert.equal(ansi.stdout, expectedAnsi + '\n', `${when}: text with colours`);

      // A viewer's snapshot carries the latest rows; older ones come on request, by row number,
      // back to the oldest row held: together they are every row above the snapshot's, in order.
      const viewer = await rawViewer(t);
      try {
        viewer.send({ type: 'subscribe', channel: 1, sessionId: id, cols: 80, rows: 24 });
        await viewer.next('snapshot');
        const pages: Array<{ firstRow: number; rows: number; text: string }> = [];
        let before = 0;
        for (;;) {
          viewer.send({ type: 'scrollback-request', channel: 1, beforeRow: before, count: 10_000 });
          const page = await viewer.next('scrollback');
          if (pages.length > 0) assert.equal(page.firstRow + page.rows, pages[0]!.firstRow, 'each request continues where the last ended');
          pages.unshift(page);
          assert.equal(page.dropped, 0);
          if (page.oldest) break;
          assert.equal(page.rows, 10_000);
          before = page.firstRow;
        }
        const older = pages.flatMap((p) => p.text.split('\r\n'));
        assert.deepEqual(older, everyRowAnsi.slice(0, older.length), `${when}: the viewer's older rows`);
        assert.ok(older.length > 40_000, `${older.length} older rows`);
      } finally {
        viewer.close();
      }
    };
    await check('live');

    // Search reads the history too: every matching line, with the row it starts at.
    const pattern = /^4999[0-9] |^1[0-9] ok /;
    const expectedLines = (await (async () => {
      const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 10_000_000, liveScrollbackRows: 10_000_000 });
      screen.write(bytes, { live: false });
      await screen.flush();
      const text = screen.text({ scrollbackRows: 10 * LINES, joinWrapped: true });
      screen.dispose();
      return text.split('\n').filter((l) => pattern.test(l));
    })());
    assert.ok(expectedLines.length >= 10);
    const found = await t.cli(['search', id, '--json', '--regex', '--max', '10000', pattern.source]);
    assert.equal(found.code, 0, found.stderr);
    const result = JSON.parse(found.stdout) as { matches: Array<{ row: number; line: string }>; total: number; truncated: boolean };
    assert.deepEqual(result.matches.map((m) => m.line), expectedLines);
    assert.equal(result.truncated, false);
    const rows = result.matches.map((m) => m.row);
    assert.deepEqual(rows, [...rows].sort((a, b) => a - b), 'oldest first, by row number');
    const last = await t.cli(['search', id, '--max', '2', '-e', pattern.source]);
    assert.equal(last.stdout, result.matches.slice(-2).map((m) => `${m.row}:${m.line}\n`).join(''));
    assert.match(last.stderr, /lines matched; these are the last 2/);
    const none = await t.cli(['search', id, 'no such text anywhere']);
    assert.equal(none.code, 1, 'like grep: nothing matched');
    assert.equal(none.stdout, '');
    const bad = await t.cli(['search', id, '--regex', '(unclosed']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /is not a regular expression/);
    // Let a checkpoint cover the history, then kill the server and start another.
    await waitFor('a checkpoint', () => {
      try {
        return readFileSync(join(t.home, 'checkpoints', `${id}.ckpt`)).length > 0;
      } catch {
        return false;
      }
    }, 60_000);
    await killAndRestart(t);
    await check('after a SIGKILL and restart');
  } finally {
    await t.dispose();
  }
});

test("a command's output that scrolled far into the history is exact, also after a restart", T, async () => {
  const t = startTestServer({ TEND_SCROLLBACK_ROWS: '60000', TEND_CHECKPOINT_QUIET_MS: '200' });
  try {
    const file = join(t.home, 'long.txt');
    const lines = Array.from({ length: 8000 }, (_, i) => `line ${i} ${'abcdefghij'.repeat(i % 11)}`);
    writeFileSync(file, lines.join('\n') + '\n');
    const created = await t.cli(['new', '--json', '--name', 'sh', '--size', '80x24', '--', 'bash']);
    assert.equal(created.code, 0, created.stderr);
    const first = await t.cli(['await', ':sh', '--json', '--timeout', '60', '--', `cat '${file}'`]);
    assert.equal(first.code, 0, first.stderr);
    // Push it well past the live rows.
    const more = await t.cli(['await', ':sh', '--timeout', '60', '--', 'seq 1 5000']);
    assert.equal(more.code, 0, more.stderr);
    const expected = lines.join('\n') + '\n';
    const number = (JSON.parse(first.stdout) as { command: { number: number } }).command.number;
    const read = async () => {
      const out = await t.cli(['output', ':sh', '--cmd', String(number)]);
      assert.equal(out.code, 0, out.stderr);
      return out.stdout;
    };
    assert.equal(await read(), expected);
    await waitFor('a checkpoint', () => {
      try {
        return readFileSync(join(t.home, 'checkpoints', `${(JSON.parse(created.stdout) as { id: string }).id}.hist`)).length > 0;
      } catch {
        return false;
      }
    }, 60_000);
    await new Promise((r) => setTimeout(r, 400)); // the quiet checkpoint after the last output (200 ms) lands
    await killAndRestart(t);
    assert.equal(await read(), expected, 'after a SIGKILL and restart');
  } finally {
    await t.dispose();
  }
});

test('a small history budget drops the oldest rows, says so, and keeps the rest exact', T, async () => {
  const t = startTestServer({ TEND_SCROLLBACK_ROWS: '60000', TEND_HISTORY_BYTES: String(64 * 1024) });
  try {
    const file = join(t.home, 'lines.bin');
    writeFileSync(file, variedLines(20_000, 80));
    const id = await newCatSession(t, file);
    const res = await t.cli(['screen', id, '--scrollback', '50000']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /^tend: \d+ older rows were dropped to keep within the server's history memory budget; showing the \d+ rows of scrollback that remain\n$/);
    const json = JSON.parse((await t.cli(['screen', id, '--scrollback', '50000', '--json'])).stdout) as {
      scrollback: { shown: number; available: number; dropped: number };
    };
    assert.ok(json.scrollback.dropped > 0);
    assert.equal(json.scrollback.shown, json.scrollback.available);
    assert.ok(json.scrollback.shown + json.scrollback.dropped + 24 >= 20_000, 'every row is either shown or counted as dropped');
    // What is shown is exactly the newest rows of the reference.
    const expected = (await referenceText(readFileSync(file), 50_000)).split('\n');
    const shown = res.stdout.replace(/\n$/, '').split('\n');
    assert.deepEqual(shown, expected.slice(expected.length - shown.length));
  } finally {
    await t.dispose();
  }
});
