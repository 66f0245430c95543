// History across server restarts and resizes, through a real server, real
// holders and a real bash: after any order of graceful restarts, SIGKILLs,
// resizes (fewer or more columns or rows) and output, every row the program
// printed is still there under its own row number — `tend search` numbers
// them without a hole, `tend screen --scrollback` shows each once — or is
// counted as dropped. (Issue 22, defect 1: a restored screen resized before
// any output lost its live scrollback without a word: 567 rows became 67.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadCheckpoint } from '../../src/server/checkpoint/files.js';
import { killAndRestart, startTestServer, waitFor, type TestServer } from './harness.js';
import { AttachedTerminal, serverFor } from '../attach/attach-harness.js';
import { useTestScope } from '../support/test-scope.js';

const T = { timeout: 180_000 };
const ROW_PATTERN = '^row [0-9]+$';

interface Session {
  t: TestServer;
  id: string;
  /** The numbers printed so far, in order. */
  printed: number[];
  /** The first number of each `seq` run (a prompt line comes before it, so it follows its predecessor with a gap). */
  runStarts: Set<number>;
}

async function newBash(t: TestServer, size: string): Promise<Session> {
  const created = await t.cli(['new', '--json', '--name', 'h', '--size', size, '--', 'bash', '--norc', '--noprofile']);
  assert.equal(created.code, 0, created.stderr);
  return { t, id: (JSON.parse(created.stdout) as { id: string }).id, printed: [], runStarts: new Set() };
}

/** Has bash print `row from` … `row to`, one a line, and waits until the last is on the screen. */
async function printRows(s: Session, from: number, to: number): Promise<void> {
  const sent = await s.t.cli(['send', ':h', '--enter', `seq -f 'row %g' ${from} ${to}`]);
  assert.equal(sent.code, 0, sent.stderr);
  await waitFor(`row ${to} on the screen`, async () => (await s.t.cli(['screen', ':h'])).stdout.split('\n').includes(`row ${to}`), 60_000);
  s.runStarts.add(from);
  for (let n = from; n <= to; n++) s.printed.push(n);
}

async function resize(s: Session, cols: number, rows: number): Promise<void> {
  const res = await s.t.api('POST', '/v1/sessions/%3Ah/resize', { cols, rows });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function restart(s: Session): Promise<void> {
  const res = await s.t.cli(['server', 'restart']);
  assert.equal(res.code, 0, res.stderr);
}

/** Waits for a checkpoint that covers every byte the screen was fed, then SIGKILLs the server and starts another. */
async function killAfterCheckpoint(s: Session): Promise<void> {
  await waitFor('a checkpoint covering all output', async () => {
    const session = await s.t.api<{ offset: number }>('GET', `/v1/sessions/${s.id}`);
    const cp = await loadCheckpoint(join(s.t.home, 'checkpoints'), s.id);
    return cp.ok && cp.checkpoint.offset === session.body.offset;
  }, 60_000);
  await killAndRestart(s.t);
}

/**
 * Every row printed is found once, in order, and rows one `seq` printed one
 * after the other sit on rows numbered one after the other (no hole a search would
 * number straight across); nothing is dropped; `tend screen` shows each once.
 */
async function assertWhole(s: Session, when: string): Promise<void> {
  const found = await s.t.api<{ matches: Array<{ row: number; line: string }>; dropped: number }>(
    'GET', `/v1/sessions/%3Ah/search?q=${encodeURIComponent(ROW_PATTERN)}&regex=1&max=10000`);
  assert.equal(found.status, 200, JSON.stringify(found.body));
  assert.equal(found.body.dropped, 0, `${when}: search says nothing was dropped`);
  const numbers = found.body.matches.map((m) => Number(m.line.slice(4)));
  assert.deepEqual(numbers, s.printed, `${when}: every row printed, once, in order`);
  for (let i = 1; i < numbers.length; i++) {
    if (s.runStarts.has(numbers[i]!)) continue;
    const [a, b] = [found.body.matches[i - 1]!, found.body.matches[i]!];
    assert.equal(b.row, a.row + 1, `${when}: "${a.line}" at row ${a.row} is followed by "${b.line}" at row ${b.row}`);
  }
  const screen = await s.t.cli(['screen', ':h', '--scrollback', '100000', '--json']);
  assert.equal(screen.code, 0, screen.stderr);
  const json = JSON.parse(screen.stdout) as { text: string; scrollback: { dropped: number } };
  assert.equal(json.scrollback.dropped, 0, `${when}: the screen says nothing was dropped`);
  const shown = json.text.split('\n').filter((l) => /^row \d+$/.test(l)).map((l) => Number(l.slice(4)));
  assert.deepEqual(shown, s.printed, `${when}: tend screen --scrollback shows every row once`);
}

test('a graceful restart, then fewer columns (the issue\'s case), more output, two restarts in a row, more columns, then fewer columns and more rows', T, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '200' });
  try {
    const s = await newBash(t, '120x35');
    await printRows(s, 1, 3000);
    await assertWhole(s, 'before the restart');
    await restart(s);
    await assertWhole(s, 'after the restart');
    await resize(s, 100, 35);
    await assertWhole(s, 'restarted, then 100 columns');
    await printRows(s, 3001, 3100);
    await restart(s);
    await restart(s);
    await resize(s, 140, 35);
    await assertWhole(s, 'two restarts in a row, then 140 columns');
    await resize(s, 90, 50);
    await assertWhole(s, 'then 90x50');
  } finally {
    await t.dispose();
  }
});

test('the issue\'s steps: seq 1 600 at 120x35, tend server restart, then tend attach from a 100-column terminal', T, async (tt) => {
  const scope = useTestScope(tt);
  const t = await serverFor(scope, { TEND_CHECKPOINT_QUIET_MS: '200' });
  const s = await newBash(t, '120x35');
  await printRows(s, 1, 600);
  await restart(s);
  const attached = await AttachedTerminal.start(scope, t, [':h'], { cols: 100, rows: 35 });
  await waitFor('the session at the attach\'s 100 columns', async () => (await t.api<{ cols: number }>('GET', `/v1/sessions/${s.id}`)).body.cols === 100);
  await attached.waitForServerScreen(t, s.id);
  await assertWhole(s, 'attached from 100 columns after a restart');
  // Detach (Ctrl-\ d) before the server goes: a live attach would start it again.
  attached.type('\x1cd');
  await attached.waitForExit();
});

test('a SIGKILL after a checkpoint, then fewer columns and rows', T, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '200' });
  try {
    const s = await newBash(t, '120x35');
    await printRows(s, 1, 600);
    await killAfterCheckpoint(s);
    await resize(s, 100, 20);
    await assertWhole(s, 'killed, then 100x20');
  } finally {
    await t.dispose();
  }
});

test('a graceful restart, then fewer rows only', T, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '200' });
  try {
    const s = await newBash(t, '120x35');
    await printRows(s, 1, 600);
    await restart(s);
    await resize(s, 120, 20);
    await assertWhole(s, 'restarted, then 20 rows');
  } finally {
    await t.dispose();
  }
});

test('a resize before the first checkpoint after a restart, then a SIGKILL: the next server resizes the restored screen to the holder\'s size', T, async () => {
  // Checkpoints only on a clean stop here, so the resize is in none of them.
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '600000', TEND_CHECKPOINT_MAX_MS: '600000' });
  try {
    const s = await newBash(t, '120x35');
    await printRows(s, 1, 600);
    await restart(s);
    await resize(s, 90, 35);
    await killAndRestart(t);
    await assertWhole(s, 'restored at 120 columns onto a holder of 90');
    await printRows(s, 601, 650);
    await assertWhole(s, 'and output after');
  } finally {
    await t.dispose();
  }
});

test('the alternate screen active across a restart, fewer columns meanwhile, then back to the shell', T, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '200' });
  try {
    const s = await newBash(t, '120x35');
    await printRows(s, 1, 600);
    const sent = await t.cli(['send', ':h', '--enter', "printf '\\e[?1049h\\e[Hfull screen'; cat"]);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor('the alternate screen', async () => (await t.cli(['screen', ':h'])).stdout.startsWith('full screen'));
    await restart(s);
    await resize(s, 100, 35);
    assert.equal((await t.cli(['send', ':h', '--keys', 'C-c'])).code, 0);
    assert.equal((await t.cli(['send', ':h', '--enter', "printf '\\e[?1049l'"])).code, 0);
    await waitFor('the normal screen again', async () => !(await t.cli(['screen', ':h'])).stdout.startsWith('full screen'));
    await printRows(s, 601, 610);
    await assertWhole(s, 'after the alternate screen');
  } finally {
    await t.dispose();
  }
});
