// A server SIGKILLed after resizes no checkpoint saw replays the holder's
// bytes with each resize at the byte it fell on, as the live screen took it:
// the recovered screen and its history equal a reference terminal fed the
// same bytes with the same resizes at the same offsets. (Before the size
// journal, the bytes after the checkpoint were replayed at the holder's size
// at recovery time, and rows written at another width came back garbled.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import xtermHeadless from '@xterm/headless';
import { diffTerminals } from '../support/terminal-diff.js';
import { terminalFromSnapshot } from '../support/terminal-from-snapshot.js';
import { killAndRestart, repoRoot, startTestServer, waitFor, type TestServer } from './harness.js';
import { serverScreen } from './reference.js';

const { Terminal } = xtermHeadless;
const printer = join(repoRoot, 'dist', 'test', 'fixtures', 'programs', 'row-printer.js');
const SCROLLBACK_ROWS = 2000;
// No checkpoint but the one a clean stop writes: every resize below is one no checkpoint saw.
const NO_CHECKPOINT_MS = String(3_600_000);

interface Resize {
  offset: number;
  cols: number;
  rows: number;
}

interface Printer {
  t: TestServer;
  out: string;
  initial: { cols: number; rows: number };
  resizes: Resize[];
}

async function offsetOf(t: TestServer): Promise<number> {
  const s = await t.api<{ offset: number }>('GET', '/v1/sessions/:p');
  assert.equal(s.status, 200, JSON.stringify(s.body));
  return s.body.offset;
}

/** Prints rows from..to and waits until the server has every byte of them. */
async function print(p: Printer, from: number, to: number): Promise<void> {
  const sent = await p.t.cli(['send', ':p', '--enter', `${from} ${to}`]);
  assert.equal(sent.code, 0, sent.stderr);
  await waitFor(`row ${to} written`, () => readFileSync(p.out, 'latin1').includes(`row ${to} `), 20_000);
  await waitFor('the server to have every byte written', async () => (await offsetOf(p.t)) === statSync(p.out).size, 20_000);
}

/** Resizes with the server quiet (every byte written is in), so the resize's offset is the file's size. */
async function resize(p: Printer, cols: number, rows: number): Promise<void> {
  const offset = statSync(p.out).size;
  assert.equal(await offsetOf(p.t), offset);
  const res = await p.t.api('POST', '/v1/sessions/:p/resize', { cols, rows });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  p.resizes.push({ offset, cols, rows });
}

/** A fresh terminal fed the program's bytes up to `offset`, resized where the session was. */
async function reference(p: Printer, offset: number) {
  const bytes = readFileSync(p.out);
  const term = new Terminal({ cols: p.initial.cols, rows: p.initial.rows, scrollback: SCROLLBACK_ROWS, allowProposedApi: true });
  let at = 0;
  const feedTo = (end: number) => new Promise<void>((resolve) => {
    term.write(bytes.subarray(at, end), resolve);
    at = end;
  });
  for (const r of p.resizes) {
    if (r.offset > offset) break;
    await feedTo(r.offset);
    term.resize(r.cols, r.rows);
  }
  await feedTo(offset);
  return term;
}

async function assertLikeReference(p: Printer, when: string): Promise<void> {
  const snap = await serverScreen(p.t, ':p', SCROLLBACK_ROWS);
  assert.equal(snap.status, 'running', when);
  assert.equal(snap.offset, statSync(p.out).size, `${when}: the server has every byte`);
  const restored = await terminalFromSnapshot(snap);
  const expected = await reference(p, snap.offset);
  const diffs = diffTerminals(expected, restored);
  restored.dispose();
  expected.dispose();
  assert.deepEqual(diffs, [], `${when}: the recovered screen and history equal the reference`);
}

async function withPrinter(run: (p: Printer) => Promise<void>): Promise<void> {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: NO_CHECKPOINT_MS, TEND_CHECKPOINT_MAX_MS: NO_CHECKPOINT_MS, TEND_SCROLLBACK_ROWS: String(SCROLLBACK_ROWS) });
  try {
    const out = join(t.home, 'stream.bin');
    const created = await t.cli(['new', '--json', '--name', 'p', '--size', '120x20', '--',
      'sh', '-c', `stty -opost -echo && exec "${process.execPath}" "${printer}" "${out}"`]);
    assert.equal(created.code, 0, created.stderr);
    await waitFor('the printer to start', async () => {
      await t.cli(['send', ':p', '--enter', '0 0']);
      try {
        return readFileSync(out, 'latin1').includes('row 0 ');
      } catch {
        return false;
      }
    }, 20_000, 200);
    const p: Printer = { t, out, initial: { cols: 120, rows: 20 }, resizes: [] };
    await waitFor('the server to have the first row', async () => (await offsetOf(t)) === statSync(out).size);
    await run(p);
  } finally {
    await t.dispose();
  }
}

test('a SIGKILL after two resizes and no checkpoint: the ring is replayed with each resize at its byte', { timeout: 120_000 }, async () => {
  await withPrinter(async (p) => {
    await print(p, 1, 30);
    await resize(p, 30, 20);
    await print(p, 31, 60);
    await resize(p, 70, 15);
    await print(p, 61, 80);
    await assertLikeReference(p, 'before the kill');
    await killAndRestart(p.t);
    await assertLikeReference(p, 'after the SIGKILL');
    // The recovered server goes on from there: one more resize and a kill.
    await resize(p, 35, 18);
    await print(p, 81, 95);
    await killAndRestart(p.t);
    await assertLikeReference(p, 'after a second SIGKILL');
  });
});

test('a SIGKILL after two resizes past the checkpoint: the bytes after it are replayed with each resize at its byte', { timeout: 120_000 }, async () => {
  await withPrinter(async (p) => {
    await print(p, 1, 30);
    // A clean restart writes a checkpoint covering everything so far (at 120x20).
    const restarted = await p.t.cli(['server', 'restart']);
    assert.equal(restarted.code, 0, restarted.stderr);
    await resize(p, 30, 12);
    await print(p, 31, 60);
    await resize(p, 90, 20);
    await print(p, 61, 75);
    await killAndRestart(p.t);
    await assertLikeReference(p, 'after the SIGKILL');
  });
});
