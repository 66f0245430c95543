// Everyday use at random: one bash printing numbered rows, and a seeded random
// interleaving of what happens to a session in a day — output bursts, resizes
// (narrower, wider, taller, shorter; also in the middle of a burst), graceful
// server restarts, SIGKILLs of the server (also in the middle of a burst),
// viewers attaching and leaving, a full-screen program on the alternate
// screen across any of these.
// After every step two promises are checked against a real server:
//
// * the history is whole: every row printed is found exactly once, in order,
//   rows printed one after another sit on row numbers one after another
//   (`search` never numbers across a hole), or they are counted as dropped;
//   a viewer asking for its older rows (SCROLLBACK_REQUEST) reads the same
//   rows under the same numbers;
// * every viewer's screen (a headless xterm fed the viewer stream, acking as
//   `tend attach` does) equals the server's screen; a viewer whose terminal
//   is another size than the session (smaller or larger, in cols and rows;
//   read-only, or writable: with no typing, a writable terminal sets the
//   session's size only when it is the one writable viewer, as a lone
//   `tend attach` does, and the test follows the size) shows, once its last
//   view has caught up with the server, exactly the server's screen as that
//   viewer should see it: the cells of the window the server cut around the
//   cursor, the padding beyond the session, the cursor in the window.
//
// TEND_RANDOM_SEED replays a run (the seed is printed when a step fails, with
// the steps that led there); TEND_RANDOM_STEPS sets how many steps run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import WebSocket from 'ws';
import { MAX_SCROLLBACK_REQUEST_ROWS, VIEWER_PROTOCOL_VERSION, type FrameFromServer, type FrameFromViewer } from '../../src/protocol/viewer-frames.js';
import { TerminalViewerPeer } from '../support/terminal-viewer-peer.js';
import { seededRandom } from '../support/random-stream.js';
import { killAndRestart, startTestServer, waitFor, type TestServer } from './harness.js';
import { OuterTerminalViewer, expectedView, screenCells } from './outer-terminal-viewer.js';

/** Enough to meet every kind of step many times, small enough for ~1 minute on a loaded 2-core machine. */
const DEFAULT_STEPS = 40;
/** Rows printed in all stay under the 10 000 matches one search returns. */
const MAX_ROWS_PRINTED = 9_000;
const MAX_VIEWERS = 3;
/** A few dozen rows live in xterm, so most rows are history after a few bursts. */
const LIVE_ROWS = 60;
const CONVERGE_TIMEOUT_MS = 30_000;
/**
 * Longer than most steps, so a SIGKILL often comes after resizes and output no
 * checkpoint saw: the next server must replay them with each resize at its
 * byte (the size journal). At 300 ms a checkpoint nearly always came first:
 * six seeds passed on the code before the journal; at 5 s seed 43 fails there
 * (two rows of a burst written at 27 columns, replayed at 120).
 */
const CHECKPOINT_QUIET_MS = 5_000;
/** Derives the viewers' own random stream from the seed. */
const VIEWER_SEED_MIX = 0x5f3759df;

const seed = process.env.TEND_RANDOM_SEED !== undefined ? Number(process.env.TEND_RANDOM_SEED) : randomInt(1, 2 ** 31);
const steps = process.env.TEND_RANDOM_STEPS !== undefined ? Number(process.env.TEND_RANDOM_STEPS) : DEFAULT_STEPS;

interface ServerScreen {
  text: string;
  cols: number;
  rows: number;
  cursor: { x: number; y: number };
  degraded: boolean;
  /** The holder offset the screen has been fed to: viewer seqs count the same bytes. */
  offset: number;
}

/** The rows of a terminal's screen as the API gives them: trailing blanks and blank rows at the end trimmed. */
function visibleText(terminal: TerminalViewerPeer['terminal']): string {
  const buffer = terminal.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y < terminal.rows; y++) rows.push(buffer.getLine(buffer.baseY + y)?.translateToString(true).replace(/\s+$/, '') ?? '');
  return trimmed(rows.join('\n'));
}

function trimmed(text: string): string {
  return text.split('\n').map((l) => l.replace(/\s+$/, '')).join('\n').replace(/\n+$/, '');
}

/**
 * A viewer over the server's socket: the real codec and a real headless
 * terminal (TerminalViewerPeer), reconnecting after a restart the way
 * `tend attach` does (resume point, then whatever the server sends).
 * These are script viewers, which get the stream at the PTY's size and
 * follow its resizes; viewers of other sizes are OuterTerminalViewers.
 */
class SocketViewer {
  private ws: WebSocket | null = null;
  readonly peer: TerminalViewerPeer;

  private constructor(
    private readonly server: TestServer,
    private readonly sessionId: string,
    cols: number,
    rows: number,
  ) {
    this.peer = new TerminalViewerPeer({ channel: 1, cols, rows, scrollback: 100, sendToServer: (b) => this.ws?.send(b) });
  }

  static async attach(server: TestServer, sessionId: string, cols: number, rows: number): Promise<SocketViewer> {
    const viewer = new SocketViewer(server, sessionId, cols, rows);
    await viewer.connect();
    return viewer;
  }

  /** A new socket (the old one died with its server), resuming from what this terminal parsed. */
  async connect(): Promise<void> {
    this.ws?.terminate();
    const ws = new WebSocket(`ws+unix://${this.server.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data: Buffer) => this.peer.receive(new Uint8Array(data)));
    ws.on('error', () => undefined);
    this.ws = ws;
    const resume = this.peer.reconnect((b) => ws.send(b));
    this.peer.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: false });
    const { cols, rows } = this.peer.terminal;
    this.peer.send({ type: 'subscribe', channel: 1, sessionId: this.sessionId, cols, rows, ...(resume ? { resume } : {}) });
  }

  close(): void {
    this.ws?.terminate();
    this.ws = null;
    this.peer.dispose();
  }
}

/**
 * Every row the server holds, as a viewer reads them: SCROLLBACK pages from
 * the end of the buffer back to the oldest row held. Returns each numbered
 * row with its row number, oldest first, and the rows counted as dropped
 * beyond the oldest.
 */
async function readHistory(viewer: { received: readonly FrameFromServer[]; send(frame: FrameFromViewer): void }): Promise<{ rows: Array<{ row: number; line: string }>; dropped: number }> {
  const pages: Array<Extract<FrameFromServer, { type: 'scrollback' }>> = [];
  let before = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const from = viewer.received.length;
    viewer.send({ type: 'scrollback-request', channel: 1, beforeRow: before, count: MAX_SCROLLBACK_REQUEST_ROWS });
    const page = await waitFor('a SCROLLBACK page', () =>
      viewer.received.slice(from).find((f): f is Extract<FrameFromServer, { type: 'scrollback' }> => f.type === 'scrollback'), CONVERGE_TIMEOUT_MS);
    pages.unshift(page);
    if (page.oldest || page.rows === 0) break;
    before = page.firstRow;
  }
  const rows: Array<{ row: number; line: string }> = [];
  for (const page of pages) {
    page.text.split('\r\n').forEach((text, i) => {
      const line = text.replace(ANSI_SEQUENCE, '').replace(/\s+$/, '');
      if (/^row \d+$/.test(line)) rows.push({ row: page.firstRow + i, line });
    });
  }
  return { rows, dropped: pages[0]?.dropped ?? 0 };
}

/** SGR and OSC 8 in a SCROLLBACK page's text. */
const ANSI_SEQUENCE = /\x1b\[[0-9;:]*m|\x1b\]8;[^\x1b\x07]*(\x1b\\|\x07)/g;

interface Run {
  t: TestServer;
  id: string;
  /** Every number printed so far, in order. */
  printed: number[];
  /** First number of each burst: a prompt line sits between it and the number before. */
  burstStarts: Set<number>;
  viewers: Array<SocketViewer | OuterTerminalViewer>;
  /** Chooses what kind of viewer attaches and its size, apart from `random` so a seed's steps stay as they were before viewers of other sizes. */
  viewerRandom: () => number;
  size: { cols: number; rows: number };
  /** A full-screen program (cat on the alternate screen) holds the terminal. */
  alternate: boolean;
}

async function screenOf(run: Run): Promise<ServerScreen> {
  const res = await run.t.api<ServerScreen>('GET', `/v1/sessions/${run.id}/screen`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Has bash print `row from` … `row to`; with `wait`, until the prompt is back after the last. */
async function startBurst(run: Run, from: number, to: number): Promise<void> {
  const sent = await run.t.cli(['send', run.id, '--enter', `seq -f 'row %g' ${from} ${to}`]);
  assert.equal(sent.code, 0, sent.stderr);
  run.burstStarts.add(from);
  for (let n = from; n <= to; n++) run.printed.push(n);
}

async function burstDone(run: Run): Promise<void> {
  const last = run.printed[run.printed.length - 1];
  if (last === undefined) return;
  const ending = new RegExp(`(^|\\n)row ${last}\\n\\$$`);
  let seen = '';
  await waitFor(`row ${last} and the prompt after it`, async () => {
    seen = trimmed((await screenOf(run)).text);
    return ending.test(seen);
  }, CONVERGE_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; the screen:\n${seen}`);
  });
}

/** Bash is at its prompt (after a resize it may redraw it), or the full-screen program shows its screen. */
async function quiet(run: Run): Promise<void> {
  let seen = '';
  await waitFor(run.alternate ? 'the full-screen program' : 'the prompt', async () => {
    seen = trimmed((await screenOf(run)).text);
    return run.alternate ? seen.startsWith(FULL_SCREEN) : /(^|\n)\$$/.test(seen);
  }, CONVERGE_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; the screen:\n${seen}`);
  });
}

async function resize(run: Run, random: () => number): Promise<string> {
  const cols = 20 + Math.floor(random() * 141);
  const rows = 5 + Math.floor(random() * 46);
  const res = await run.t.api('POST', `/v1/sessions/${run.id}/resize`, { cols, rows });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const was = run.size;
  run.size = { cols, rows };
  await waitFor('the new size', async () => {
    const s = await screenOf(run);
    return s.cols === cols && s.rows === rows;
  });
  return `${was.cols}x${was.rows} → ${cols}x${rows}`;
}

/**
 * `rows` (numbered rows found, oldest first, with their row numbers) hold
 * every row printed, once, in order, on consecutive row numbers within a
 * burst; rows may be missing only from the oldest end, and only as many as
 * `dropped` says. Returns the numbers found.
 */
function assertWhole(run: Run, rows: ReadonlyArray<{ row: number; line: string }>, dropped: number, who: string): number[] {
  const numbers = rows.map((m) => Number(m.line.slice(4)));
  const missing = run.printed.length - numbers.length;
  if (missing > dropped) {
    const found = new Set(numbers);
    const lost = run.printed.filter((n) => !found.has(n));
    const around = rows.filter((m) => lost.some((n) => Math.abs(Number(m.line.slice(4)) - n) <= 2)).map((m) => `${m.row}:${m.line}`);
    assert.fail(`${who}: ${missing} rows missing (${lost.slice(0, 10).join(', ')}), ${dropped} counted as dropped; found near them: ${around.join(' ')}`);
  }
  assert.deepEqual(numbers, run.printed.slice(missing), `${who}: every row printed, once, in order`);
  for (let i = 1; i < numbers.length; i++) {
    const [a, b] = [rows[i - 1]!, rows[i]!];
    if (run.burstStarts.has(numbers[i]!)) assert.ok(b.row > a.row, `${who}: "${b.line}" at row ${b.row} after "${a.line}" at row ${a.row}`);
    else assert.equal(b.row, a.row + 1, `${who}: "${a.line}" at row ${a.row} is followed by "${b.line}" at row ${b.row}`);
  }
  return numbers;
}

async function checkHistory(run: Run): Promise<void> {
  const found = await run.t.api<{ matches: Array<{ row: number; line: string }>; truncated: boolean; dropped: number }>(
    'GET', `/v1/sessions/${run.id}/search?q=${encodeURIComponent('^row [0-9]+$')}&regex=1&max=10000`);
  assert.equal(found.status, 200, JSON.stringify(found.body));
  assert.equal(found.body.truncated, false);
  let numbers: number[];
  try {
    numbers = assertWhole(run, found.body.matches, found.body.dropped, 'search');
  } catch (err) {
    const all = await run.t.api<{ matches: Array<{ row: number; line: string }> }>('GET', `/v1/sessions/${run.id}/search?q=.&regex=1&max=10000`);
    const text = all.body.matches.map((m) => `${m.row}:${m.line}`).join('\n');
    throw new Error(`${(err as Error).message}\nevery line:\n${text}`);
  }
  // A viewer reads the same rows under the same numbers (SCROLLBACK_REQUEST).
  const viewer = run.viewers[0];
  if (viewer !== undefined) {
    const read = await readHistory(viewer instanceof SocketViewer ? viewer.peer : viewer);
    assert.deepEqual(read.rows, found.body.matches, 'a viewer\'s older rows are the rows search found, under the same numbers');
    assertWhole(run, read.rows, read.dropped, 'a viewer\'s older rows');
  }
  const screen = await run.t.api<{ text: string; degraded: boolean; scrollback: { dropped: number } }>(
    'GET', `/v1/sessions/${run.id}/screen?scrollback=1000000`);
  assert.equal(screen.body.degraded, false, 'no output left the holder\'s ring unread');
  // The alternate screen has no scrollback: the rows are the normal buffer's, which search read.
  if (run.alternate) return;
  const shown = screen.body.text.split('\n').filter((l) => /^row \d+$/.test(l)).map((l) => Number(l.slice(4)));
  assert.deepEqual(shown, numbers, 'the screen with all its scrollback shows the same rows');
  assert.equal(screen.body.scrollback.dropped, found.body.dropped);
}

async function checkViewers(run: Run): Promise<void> {
  for (const [i, viewer] of run.viewers.entries()) {
    if (viewer instanceof OuterTerminalViewer) {
      await checkOuterViewer(run, viewer, i);
      continue;
    }
    let server: ServerScreen | null = null;
    await waitFor(`viewer ${i} to show the server's screen`, async () => {
      server = await screenOf(run);
      const terminal = viewer.peer.terminal;
      const buffer = terminal.buffer.active;
      return terminal.cols === server.cols && terminal.rows === server.rows &&
        buffer.cursorX === server.cursor.x && buffer.cursorY === server.cursor.y &&
        visibleText(viewer.peer.terminal) === trimmed(server.text);
    }, CONVERGE_TIMEOUT_MS).catch((err: Error) => {
      const s = server as ServerScreen | null;
      const terminal = viewer.peer.terminal;
      throw new Error(`${err.message}\nviewer ${terminal.cols}x${terminal.rows} cursor ${terminal.buffer.active.cursorX},${terminal.buffer.active.cursorY}:\n` +
        `${visibleText(viewer.peer.terminal)}\nserver ${s?.cols}x${s?.rows} cursor ${s?.cursor.x},${s?.cursor.y}:\n${s ? trimmed(s.text) : '(none)'}`);
    });
    assert.deepEqual(viewer.peer.problems, [], `viewer ${i}'s stream had no hole`);
  }
}

/**
 * A terminal viewer of its own size shows what it should: at the session's
 * size the stream (the screen, as a script viewer), at another size the last
 * view, caught up with the server (its seq at or past the offset the screen
 * was fed to; views come at once after a quiet spell, so it does), cell by
 * cell the window the server cut and the padding, and the cursor in it.
 */
async function checkOuterViewer(run: Run, viewer: OuterTerminalViewer, i: number): Promise<void> {
  let server: ServerScreen | null = null;
  let why = '';
  await waitFor(`viewer ${i} (${viewer.cols}x${viewer.rows}, ${viewer.readOnly ? 'read-only' : 'writable'}) to show the server's screen as it should`, async () => {
    const s = await screenOf(run);
    server = s;
    const buffer = viewer.terminal.buffer.active;
    if (s.cols === viewer.cols && s.rows === viewer.rows) {
      if (viewer.showsView) return !(why = 'still shows a view at the session\'s size');
      if (viewer.parsedSeq === null || viewer.parsedSeq < s.offset) return !(why = `parsed to ${viewer.parsedSeq}, the screen is at ${s.offset}`);
      why = 'the stream differs from the screen';
      return buffer.cursorX === s.cursor.x && buffer.cursorY === s.cursor.y && visibleText(viewer.terminal) === trimmed(s.text);
    }
    if (!viewer.showsView || viewer.viewSeq === null) return !(why = 'no view yet');
    if (viewer.viewSeq < s.offset) return !(why = `its last view is at ${viewer.viewSeq}, the screen at ${s.offset}`);
    const want = expectedView(s, viewer.cols, viewer.rows);
    const shown = screenCells(viewer.terminal);
    const row = want.lines.findIndex((line, y) => line !== shown[y]);
    if (row >= 0) return !(why = `window at ${want.origin.x},${want.origin.y}: row ${row} is\n  ${JSON.stringify(shown[row])}, expected\n  ${JSON.stringify(want.lines[row])}`);
    why = `cursor at ${buffer.cursorX},${buffer.cursorY}, expected ${want.cursor.x},${want.cursor.y} (window at ${want.origin.x},${want.origin.y})`;
    return buffer.cursorX === want.cursor.x && buffer.cursorY === want.cursor.y;
  }, CONVERGE_TIMEOUT_MS).catch((err: Error) => {
    const s = server as ServerScreen | null;
    throw new Error(`${err.message}: ${why}\nlast received: ${viewer.recentSeqs(8)}\nviewer:\n${screenCells(viewer.terminal).join('\n')}\n` +
      `server ${s?.cols}x${s?.rows} cursor ${s?.cursor.x},${s?.cursor.y}:\n${s ? trimmed(s.text) : '(none)'}`);
  });
  const closed = viewer.received.find((f) => f.type === 'closed' || f.type === 'error');
  assert.equal(closed, undefined, `viewer ${i} was not closed nor sent an error`);
}

/** A size other than `of` in each direction: smaller or larger by up to 40 columns and 15 rows. */
function otherSize(of: { cols: number; rows: number }, random: () => number): { cols: number; rows: number } {
  const other = (n: number, most: number, least: number): number => {
    const by = 1 + Math.floor(random() * most);
    return random() < 0.5 && n - by >= least ? n - by : n + by;
  };
  return { cols: other(of.cols, 40, 10), rows: other(of.rows, 15, 3) };
}

/**
 * A writable terminal viewer sets the session's size when it subscribes as
 * the one writable viewer (attaching, or first back after a restart), or is
 * left as the one when the others go: the test takes the size the session
 * has, once bash has redrawn its prompt for it.
 */
async function followSize(run: Run, log: string[]): Promise<void> {
  if (!run.viewers.some((v) => v instanceof OuterTerminalViewer && !v.readOnly)) return;
  const s = await screenOf(run);
  if (s.cols === run.size.cols && s.rows === run.size.rows) return;
  log.push(`   (a writable terminal sized the session: ${run.size.cols}x${run.size.rows} → ${s.cols}x${s.rows})`);
  run.size = { cols: s.cols, rows: s.rows };
  await quiet(run);
}

/**
 * Script viewers first: a writable terminal back first would be the one
 * writable viewer and set the session's size before the script viewers
 * resume, and a viewer that resumes with a replay is not told of a size
 * taken while it was away (a known gap, left for the product: seed 12).
 */
async function reconnectViewers(run: Run): Promise<void> {
  for (const viewer of run.viewers) if (viewer instanceof SocketViewer) await viewer.connect();
  for (const viewer of run.viewers) if (!(viewer instanceof SocketViewer)) await viewer.connect();
}

type StepKind = 'burst' | 'resize' | 'resize-mid-burst' | 'restart' | 'kill' | 'kill-mid-burst' | 'attach' | 'detach' | 'enter-alternate' | 'leave-alternate';
const WEIGHTS: Array<[StepKind, number]> = [
  ['burst', 5], ['resize', 4], ['resize-mid-burst', 1], ['restart', 1.5], ['kill', 1.5], ['kill-mid-burst', 1],
  ['attach', 1.5], ['detach', 1], ['enter-alternate', 0.5], ['leave-alternate', 4],
];
const BURSTS: readonly StepKind[] = ['burst', 'resize-mid-burst', 'kill-mid-burst'];
const FULL_SCREEN = 'full screen';

function pick(random: () => number, run: Run): StepKind {
  const allowed = WEIGHTS.filter(([kind]) =>
    !(kind === 'attach' && run.viewers.length >= MAX_VIEWERS) && !(kind === 'detach' && run.viewers.length === 0) &&
    !(BURSTS.includes(kind) && (run.printed.length >= MAX_ROWS_PRINTED || run.alternate)) &&
    !(kind === 'enter-alternate' && run.alternate) && !(kind === 'leave-alternate' && !run.alternate));
  let r = random() * allowed.reduce((n, [, w]) => n + w, 0);
  for (const [kind, w] of allowed) {
    if ((r -= w) < 0) return kind;
  }
  return allowed[allowed.length - 1]![0];
}

async function step(run: Run, kind: StepKind, random: () => number): Promise<string> {
  const next = (run.printed[run.printed.length - 1] ?? 0) + 1;
  const burstRows = (): number => Math.min(MAX_ROWS_PRINTED - run.printed.length, random() < 0.2 ? 200 + Math.floor(random() * 600) : 1 + Math.floor(random() * 120));
  switch (kind) {
    case 'burst': {
      const n = burstRows();
      await startBurst(run, next, next + n - 1);
      await burstDone(run);
      return `burst of ${n} rows`;
    }
    case 'resize': {
      const said = await resize(run, random);
      await quiet(run);
      return `resize ${said}`;
    }
    case 'resize-mid-burst': {
      const n = burstRows();
      await startBurst(run, next, next + n - 1);
      const said = await resize(run, random);
      await burstDone(run);
      return `resize ${said} in a burst of ${n} rows`;
    }
    case 'enter-alternate': {
      const sent = await run.t.cli(['send', run.id, '--enter', `printf '\\e[?1049h\\e[H${FULL_SCREEN}'; cat`]);
      assert.equal(sent.code, 0, sent.stderr);
      run.alternate = true;
      await quiet(run);
      return 'a full-screen program starts (alternate screen)';
    }
    case 'leave-alternate': {
      assert.equal((await run.t.cli(['send', run.id, '--keys', 'C-c'])).code, 0);
      assert.equal((await run.t.cli(['send', run.id, '--enter', "printf '\\e[?1049l'"])).code, 0);
      run.alternate = false;
      await waitFor('the normal screen again', async () => !trimmed((await screenOf(run)).text).startsWith(FULL_SCREEN), CONVERGE_TIMEOUT_MS);
      await quiet(run);
      return 'it ends (normal screen)';
    }
    case 'restart': {
      const res = await run.t.cli(['server', 'restart']);
      assert.equal(res.code, 0, res.stderr);
      await reconnectViewers(run);
      return 'graceful restart';
    }
    case 'kill': {
      await killAndRestart(run.t);
      await reconnectViewers(run);
      return 'SIGKILL and start';
    }
    case 'kill-mid-burst': {
      const n = 600 + Math.floor(random() * 900);
      const rows = Math.min(MAX_ROWS_PRINTED - run.printed.length, n);
      await startBurst(run, next, next + rows - 1);
      await killAndRestart(run.t);
      await reconnectViewers(run);
      await burstDone(run);
      return `SIGKILL in a burst of ${rows} rows, and start`;
    }
    case 'attach': {
      if (run.viewerRandom() < 0.5) {
        run.viewers.push(await SocketViewer.attach(run.t, run.id, run.size.cols, run.size.rows));
        return `viewer ${run.viewers.length - 1} attaches`;
      }
      const size = otherSize(run.size, run.viewerRandom);
      const readOnly = run.viewerRandom() < 0.5;
      const viewer = new OuterTerminalViewer(run.t.client.paths.serverSocket, run.id, size.cols, size.rows, readOnly);
      await viewer.connect();
      run.viewers.push(viewer);
      return `viewer ${run.viewers.length - 1} attaches, a ${readOnly ? 'read-only' : 'writable'} terminal of ${size.cols}x${size.rows} (session ${run.size.cols}x${run.size.rows})`;
    }
    case 'detach': {
      const i = Math.floor(random() * run.viewers.length);
      run.viewers.splice(i, 1)[0]!.close();
      return `viewer ${i} leaves`;
    }
  }
}

test(`random everyday use (seed ${seed}, ${steps} steps): the history stays whole and every viewer shows the server's screen`, { timeout: 600_000 }, async () => {
  const random = seededRandom(seed);
  const t = startTestServer({ TEND_LIVE_ROWS: String(LIVE_ROWS), TEND_CHECKPOINT_QUIET_MS: String(CHECKPOINT_QUIET_MS) });
  const log: string[] = [];
  let run: Run | null = null;
  try {
    const started = await t.cli(['server', 'start']);
    assert.equal(started.code, 0, started.stderr);
    const size = { cols: 60 + Math.floor(random() * 80), rows: 10 + Math.floor(random() * 30) };
    const created = await t.api<{ id: string }>('POST', '/v1/sessions', {
      argv: ['bash', '--norc', '--noprofile', '-i'],
      cwd: t.home,
      ...size,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.home, TERM: 'xterm-256color', LANG: 'C.UTF-8', PS1: '$ ' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    run = { t, id: created.body.id, printed: [], burstStarts: new Set(), viewers: [], size, alternate: false, viewerRandom: seededRandom(seed ^ VIEWER_SEED_MIX) };
    log.push(`session ${size.cols}x${size.rows}`);
    await waitFor('the prompt', async () => trimmed((await screenOf(run!)).text).endsWith('$'));
    for (let i = 1; i <= steps; i++) {
      const kind = pick(random, run);
      const said = await step(run, kind, random);
      log.push(`${i}: ${said}`);
      await followSize(run, log);
      await checkHistory(run);
      await checkViewers(run);
    }
    console.log(`random everyday use: seed ${seed}, ${steps} steps passed, ${run.printed.length} rows printed:\n  ${log.join('\n  ')}`);
  } catch (err) {
    const message = `random everyday use failed with seed ${seed} (TEND_RANDOM_SEED=${seed} replays it) after:\n  ${log.join('\n  ')}`;
    console.log(message);
    throw new Error(`${message}\n${(err as Error).message}`, { cause: err });
  } finally {
    for (const viewer of run?.viewers ?? []) viewer.close();
    await t.dispose();
  }
});
