// A screen restored from a checkpoint (its live rows from a snapshot, its
// history from the blocks the file kept) goes on numbering rows as the screen
// it was taken of: whatever comes next — a resize of either kind, output, the
// alternate screen, another restore — every row the program wrote is still
// there under its own number, or counted as dropped. Restored the way the
// screen host restores one (screen-table.ts): snapshot written as not the
// program's output, then the history's blocks and state.
import { LOST_ROW_TEXT, MAX_MARKED_LOST_ROWS } from './lost-rows.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen, type ScreenOptions } from '../screen.js';
import { ParseScheduler } from '../parse-scheduler.js';
import { History, type HistoryCheckpoint } from './history.js';
import type { RawBufferLine } from '../scrollback-tap.js';

const scheduler = new ParseScheduler();
const LIVE_ROWS = 50;

function numbered(from: number, to: number): string {
  let out = '';
  for (let i = from; i < to; i++) out += `row ${i}\r\n`;
  return out;
}

function options(cols: number, rows: number): ScreenOptions {
  return { cols, rows, scrollbackRows: 100_000, liveScrollbackRows: LIVE_ROWS, scheduler };
}

/** What a checkpoint keeps of a screen: its live rows as a snapshot, and its history. */
async function checkpointOf(screen: Screen): Promise<{ snapshot: Awaited<ReturnType<Screen['snapshotAsync']>>; history: HistoryCheckpoint }> {
  let history: HistoryCheckpoint | null = null;
  const snapshot = await screen.snapshotAsync({ history: false, onCut: () => (history = screen.history.checkpoint()) });
  return { snapshot, history: history! };
}

/** A new screen from `screen`'s checkpoint, as a starting server makes it (the old one is disposed). */
async function restart(screen: Screen): Promise<Screen> {
  const { snapshot, history } = await checkpointOf(screen);
  screen.dispose();
  const restored = Screen.fromSnapshot(snapshot, { ...options(snapshot.cols, snapshot.rows), liveScrollbackRows: Math.max(LIVE_ROWS, snapshot.scrollbackRows) });
  await restored.flush();
  restored.history.restore(history.blocks, history.state);
  return restored;
}

/**
 * Every row of the normal buffer, history and live, by number: `row N`
 * must sit at row N for every N the program printed (rows 0…printed-1),
 * nothing missing, nothing dropped.
 */
function assertWhole(screen: Screen, printed: number, when: string): void {
  assert.equal(screen.history.droppedRows, 0, `${when}: nothing dropped`);
  assert.equal(screen.firstRow, 0, `${when}: the oldest row is still held`);
  const end = screen.rowBase + screen.terminal.buffer.normal.length;
  const seen: number[] = [];
  for (let r = 0; r < end; r++) {
    const line = screen.lineAt(r);
    assert.ok(line !== undefined, `${when}: row ${r} of ${end} is held`);
    const text = line.translateToString(true);
    const m = /^row (\d+)$/.exec(text);
    if (m === null) continue;
    assert.equal(Number(m[1]), r, `${when}: row ${r} reads "${text}"`);
    seen.push(r);
  }
  assert.equal(seen.length, printed, `${when}: ${seen.length} of ${printed} rows`);
}

async function fed(cols: number, rows: number, lines: number, alternate = false): Promise<Screen> {
  const screen = new Screen(options(cols, rows));
  screen.write(numbered(0, lines) + (alternate ? '\x1b[?1049h\x1b[Hon the alternate screen' : ''), { live: false });
  await screen.flush();
  return screen;
}

describe('a restored screen keeps every row under its number', { timeout: 60_000 }, () => {
  test('a resize to fewer columns right after the restore, before any output', async () => {
    let screen = await fed(60, 10, 300);
    try {
      screen = await restart(screen);
      assertWhole(screen, 300, 'restored');
      screen.resize(50, 10);
      await screen.flush();
      assertWhole(screen, 300, 'narrower');
      screen.write(numbered(300, 400), { live: true });
      await screen.flush();
      assertWhole(screen, 400, 'output after');
    } finally {
      screen.dispose();
    }
  });

  test('a resize to fewer rows right after the restore, the live buffer full', async () => {
    let screen = await fed(60, 20, 300);
    try {
      screen = await restart(screen);
      screen.resize(60, 8);
      await screen.flush();
      assertWhole(screen, 300, 'fewer rows');
      screen.resize(60, 30);
      await screen.flush();
      assertWhole(screen, 300, 'more rows again');
    } finally {
      screen.dispose();
    }
  });

  test('wider, then narrower, then two more restores with resizes between them', async () => {
    let screen = await fed(60, 10, 300);
    try {
      screen = await restart(screen);
      screen.resize(80, 10);
      await screen.flush();
      assertWhole(screen, 300, 'wider');
      screen.resize(40, 12);
      await screen.flush();
      assertWhole(screen, 300, 'then narrower');
      screen = await restart(screen);
      screen = await restart(screen);
      screen.resize(30, 9);
      await screen.flush();
      assertWhole(screen, 300, 'two restores, then narrower');
      screen.write(numbered(300, 420), { live: true });
      screen.resize(70, 10);
      screen = await restart(screen);
      screen.resize(35, 10);
      await screen.flush();
      assertWhole(screen, 420, 'output, wider, restore, narrower');
    } finally {
      screen.dispose();
    }
  });

  test('the alternate screen active across the restore, a resize to fewer columns, then back to the normal screen', async () => {
    let screen = await fed(60, 10, 300, true);
    try {
      screen = await restart(screen);
      assert.equal(screen.terminal.buffer.active.type, 'alternate');
      screen.resize(45, 10);
      await screen.flush();
      screen.write('\x1b[?1049l', { live: true });
      await screen.flush();
      assertWhole(screen, 300, 'after the alternate screen');
    } finally {
      screen.dispose();
    }
  });
});

describe('History.restore', () => {
  const line = (text: string): RawBufferLine => {
    const data = new Uint32Array(text.length * 3);
    for (let i = 0; i < text.length; i++) {
      data[i * 3] = text.charCodeAt(i) | (1 << 22);
    }
    return { _data: data, _combined: {}, _extendedAttrs: {}, length: text.length, isWrapped: false };
  };

  /** A decoded row's characters (the rows here are plain text of width-1 characters). */
  const text = (h: History, r: number): string | undefined => {
    const row = h.row(r);
    if (row === undefined) return undefined;
    let out = '';
    for (let i = 0; i < row.used; i++) out += String.fromCodePoint(row.cells[i * 3]! & 0x1fffff || 32);
    return out.trimEnd();
  };
  /** A lost row reads as the marker, cut to the width of the rows around it. */
  const marker = (h: History, r: number): string => LOST_ROW_TEXT.slice(0, h.rowWidth(r)).trimEnd();

  test('blocks that stop short of the rows the checkpoint counts (a file cut short): the rows missing are marked lost in their place, the rows below stay', () => {
    const source = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    for (let i = 0; i < 600; i++) source.append([line(`row ${i}`)], () => undefined);
    const cp = source.checkpoint();
    assert.equal(cp.state.endRow, 600);
    assert.ok(cp.blocks.length >= 2);
    const last = cp.blocks[cp.blocks.length - 1]!;
    const restored = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    restored.restore(cp.blocks.slice(0, -1), cp.state);
    assert.equal(restored.endRow, 600, 'numbers go on where the checkpoint left them');
    assert.equal(restored.firstRow, 0, 'the rows below the hole are held');
    assert.equal(restored.lostRows, last.rows);
    assert.equal(restored.droppedRows, last.rows, 'counted as dropped too');
    for (let r = 0; r < last.firstRow; r++) assert.equal(text(restored, r), `row ${r}`);
    for (let r = last.firstRow; r < 600; r++) assert.equal(text(restored, r), marker(restored, r), `row ${r} says it was lost`);
    source.dispose();
    restored.dispose();
  });

  test('a block missing in the middle (a damaged record): marked lost in its place, the rows on both sides as they were, and the count survives the next checkpoint', () => {
    const source = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    for (let i = 0; i < 1000; i++) source.append([line(`row ${i}`)], () => undefined);
    const cp = source.checkpoint();
    assert.ok(cp.blocks.length >= 4);
    const missing = cp.blocks[1]!;
    const restored = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    restored.restore(cp.blocks.filter((b) => b !== missing), cp.state);
    assert.equal(restored.firstRow, 0);
    assert.equal(restored.lostRows, missing.rows);
    assert.equal(restored.droppedRows, missing.rows);
    for (let r = 0; r < 1000; r++) {
      const inHole = r >= missing.firstRow && r < missing.firstRow + missing.rows;
      if (inHole) assert.equal(text(restored, r), marker(restored, r), `row ${r} says it was lost`);
      else assert.deepEqual(restored.row(r), source.row(r), `row ${r} as it was`);
    }
    const again = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    const next = restored.checkpoint();
    again.restore(next.blocks, next.state);
    assert.equal(again.lostRows, restored.lostRows, 'a second restore still knows the rows were lost');
    assert.equal(again.droppedRows, restored.droppedRows);
    for (const h of [source, restored, again]) h.dispose();
  });

  test('a hole too large to mark ends the run: the rows below it are dropped and counted as lost', () => {
    const source = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    for (let i = 0; i < MAX_MARKED_LOST_ROWS + 2000; i++) source.append([line(`row ${i}`)], () => undefined);
    const cp = source.checkpoint();
    const kept = cp.blocks.filter((b) => b.firstRow < 256 || b.firstRow + b.rows > cp.state.endRow - 256);
    const restored = new History({ maxRows: 100_000, maxBytes: 1 << 30 });
    restored.restore(kept, cp.state);
    const top = kept.find((b) => b.firstRow >= 256)!; // the first block above the hole
    assert.ok(top.firstRow - 256 > MAX_MARKED_LOST_ROWS);
    assert.equal(restored.firstRow, top.firstRow);
    assert.equal(restored.lostRows, top.firstRow, 'the hole and the rows below it');
    for (const h of [source, restored]) h.dispose();
  });
});
