import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { Screen } from '../screen.js';
import { ParseScheduler } from '../parse-scheduler.js';
import { randomStream, seededRandom } from '../../../../test/support/random-stream.js';
import { diffTerminals, unrestorableState } from '../../../../test/support/terminal-diff.js';
import { linkOf, rawAttrsOf } from '../xterm-private.js';
import { screenText } from '../screen-text.js';
import { HistoryBudget } from './budget.js';

const scheduler = new ParseScheduler();

function reference(cols: number, rows: number): Terminal {
  return new xtermHeadless.Terminal({ cols, rows, scrollback: 1_000_000, allowProposedApi: true });
}

function feed(terminal: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => terminal.write(data, resolve));
}

/** What a cell looks like, links by value, for comparing rows of different terminals. */
function cellKey(cell: IBufferCell, link: (urlId: number) => unknown): string {
  const attrs = rawAttrsOf(cell);
  // A link id whose data the terminal has already forgotten is no link at all (the painter writes none).
  const linkValue = attrs.urlId === 0 ? null : link(attrs.urlId) ?? null;
  return JSON.stringify([cell.getChars(), cell.getWidth(), attrs.fg, attrs.bg, attrs.underlineStyle, attrs.underlineColor, linkValue]);
}

function rowDiff(row: number, a: IBufferLine, b: IBufferLine, linkA: (id: number) => unknown, linkB: (id: number) => unknown, cell: IBufferCell): string | null {
  if (a.isWrapped !== b.isWrapped) return `row ${row}: wrapped ${a.isWrapped} != ${b.isWrapped}`;
  if (a.length !== b.length) return `row ${row}: ${a.length} != ${b.length} columns`;
  for (let x = 0; x < a.length; x++) {
    const ka = cellKey(a.getCell(x, cell)!, linkA);
    const kb = cellKey(b.getCell(x, cell)!, linkB);
    if (ka !== kb) return `row ${row} col ${x}: ${ka} != ${kb}`;
  }
  return null;
}

/** Every row the screen holds (history and live) against the reference's row of the same number, cell by cell. */
function compareRows(screen: Screen, ref: Terminal): string[] {
  const diffs: string[] = [];
  const cell = ref.buffer.normal.getNullCell();
  const refLink = (id: number) => linkOf(ref, id);
  const end = screen.rowBase + screen.terminal.buffer.normal.length;
  assert.equal(end, ref.buffer.normal.length, 'the screen numbers as many rows as the reference holds');
  for (let r = screen.firstRow; r < end && diffs.length < 10; r++) {
    const mine = screen.lineAt(r);
    const theirs = ref.buffer.normal.getLine(r)!;
    if (mine === undefined) {
      diffs.push(`row ${r} missing`);
      continue;
    }
    const d = rowDiff(r, mine, theirs, (id) => screen.linkOf(id), refLink, cell);
    if (d !== null) diffs.push(d);
  }
  return diffs;
}

/**
 * A screen with `live` rows of live scrollback, and the reference: a screen
 * (so with the same xterm bug guards) that keeps every row live in xterm.
 */
async function fedPair(stream: string, size: { cols: number; rows: number }, live: number): Promise<{ screen: Screen; ref: Terminal; refScreen: Screen }> {
  const screen = new Screen({ ...size, scrollbackRows: 1_000_000, liveScrollbackRows: live, scheduler });
  const refScreen = new Screen({ ...size, scrollbackRows: 1_000_000, liveScrollbackRows: 1_000_000, scheduler });
  screen.write(stream, { live: false });
  refScreen.write(stream, { live: false });
  await Promise.all([screen.flush(), refScreen.flush()]);
  assert.equal(refScreen.history.endRow, 0, 'the reference keeps every row in xterm');
  return { screen, ref: refScreen.terminal, refScreen };
}

function varied(lines: number, seed: number, cols: number): string {
  const random = seededRandom(seed);
  const words = ['build', 'ok', 'é', 'e\u0301', '世界', '\u{1f600}', 'x'.repeat(cols + 7), 'tab\there', '', 'ｱｲ'];
  let out = '';
  for (let i = 0; i < lines; i++) {
    const r = random();
    if (r < 0.2) out += `\x1b[3${i % 8};4${(i >> 3) % 8}m`;
    else if (r < 0.25) out += `\x1b[38;2;${i % 256};${(i * 7) % 256};9m\x1b[4:3m\x1b[58;5;${i % 256}m`;
    else if (r < 0.3) out += '\x1b[0m';
    else if (r < 0.33) out += `\x1b]8;id=${i % 3};https://e.x/${i % 5}\x1b\\link\x1b]8;;\x1b\\`;
    else if (r < 0.36) out += `\x1b[7m \x1b[27m\x1b[44m\x1b[5X\x1b[0m`;
    out += `${i} ${words[Math.floor(random() * words.length)]} ${words[Math.floor(random() * words.length)]}\r\n`;
  }
  return out;
}

describe('history: rows that leave the live buffer', { timeout: 120_000 }, () => {
  test('50 000 varied lines (colours, wide characters, wraps, links, styled blanks): every row equals the reference cell by cell', async () => {
    const { screen, ref, refScreen } = await fedPair(varied(50_000, 7, 80), { cols: 80, rows: 24 }, 100);
    try {
      assert.ok(screen.history.rowCount > 49_000, `history holds ${screen.history.rowCount} rows`);
      assert.deepEqual(compareRows(screen, ref), []);
      const text = screen.text({ scrollbackRows: 60_000 });
      const refRows = { count: ref.buffer.normal.length, getLine: (i: number) => ref.buffer.normal.getLine(i), link: (urlId: number) => linkOf(ref, urlId) };
      assert.equal(text, screenText(refRows, ref.buffer.normal.getNullCell()));
      assert.equal(screen.text({ scrollbackRows: 60_000, joinWrapped: true }), screenText(refRows, ref.buffer.normal.getNullCell(), { joinWrapped: true }));
      assert.equal(screen.text({ scrollbackRows: 60_000, ansi: true }), screenText(refRows, ref.buffer.normal.getNullCell(), { ansi: true }));
      const read = await screen.textAsync({ scrollbackRows: 60_000 });
      assert.equal(read.text, text);
      assert.deepEqual(read.scrollback, { shown: screen.history.rowCount + 100, available: screen.history.rowCount + 100, dropped: 0, lost: 0 });
    } finally {
      screen.dispose();
      refScreen.dispose();
    }
  });

  test('random terminal streams (regions, inserts, alternate screen, charsets): history rows equal the reference, and a snapshot with history rebuilds it as well as one without', async () => {
    let clean = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const size = { cols: 30, rows: 8 };
      const stream = randomStream(seededRandom(seed), 1500, size.cols, size.rows);
      const { screen, ref, refScreen } = await fedPair(stream, size, 5);
      try {
        assert.deepEqual(compareRows(screen, ref), [], `seed ${seed}`);
        if (unrestorableState(ref) !== undefined) continue;
        const diffsOf = async (snapshot: { data: string }): Promise<string[]> => {
          const copy = reference(size.cols, size.rows);
          await feed(copy, snapshot.data);
          const diffs = diffTerminals(ref, copy, { titles: ['', ''] }).filter((d) => !d.startsWith('title'));
          copy.dispose();
          return diffs;
        };
        // The painter's own known limits (screen.ts) show up in the reference's snapshot too; history must add none.
        const withHistory = await diffsOf(screen.snapshot());
        const allLive = await diffsOf(refScreen.snapshot());
        if (allLive.length === 0) {
          assert.deepEqual(withHistory, [], `seed ${seed}`);
          clean++;
        }
      } finally {
        screen.dispose();
        refScreen.dispose();
      }
    }
    assert.ok(clean >= 30, `only ${clean} of 40 seeds round-trip even without history`);
  });

  test('ED 3 erases the history with the scrollback, RIS too; rows keep their numbers', async () => {
    const { screen, ref, refScreen } = await fedPair(varied(500, 3, 40), { cols: 40, rows: 10 }, 20);
    try {
      const before = screen.history.endRow;
      assert.ok(screen.history.rowCount > 400);
      screen.write('\x1b[3J', { live: false });
      await screen.flush();
      assert.equal(screen.history.rowCount, 0);
      assert.equal(screen.history.droppedRows, 0, 'erased rows are not "dropped": the program erased them');
      assert.equal(screen.rowBase, before + 20, 'the 20 live scrollback rows went too, and numbering goes on after them');
      assert.equal(screen.text({ scrollbackRows: 1000 }), screen.text());
      screen.write(varied(100, 4, 40) + '\x1bc' + 'after reset', { live: false });
      await screen.flush();
      assert.equal(screen.history.rowCount, 0);
      assert.equal(screen.text({ scrollbackRows: 1000 }), 'after reset');
    } finally {
      screen.dispose();
      refScreen.dispose();
    }
  });

  test('a scroll region anchored at the top pushes rows into the history (apt-style status line)', async () => {
    let stream = '\x1b[1;9r';
    for (let i = 0; i < 300; i++) stream += `\x1b[9;1Hline ${i}\n\x1b[10;1H\x1b[2Kstatus ${i}`;
    const { screen, ref, refScreen } = await fedPair(stream, { cols: 40, rows: 10 }, 10);
    try {
      assert.ok(screen.history.rowCount > 250);
      assert.deepEqual(compareRows(screen, ref), []);
    } finally {
      screen.dispose();
      refScreen.dispose();
    }
  });

  test('narrower and taller at once: the taller screen pulls rows down from the scrollback, as a terminal does', async () => {
    let stream = '';
    for (let i = 0; i < 300; i++) stream += `row ${i}\r\n`;
    const { screen, refScreen } = await fedPair(stream + '$ ', { cols: 120, rows: 5 }, 50);
    try {
      screen.resize(90, 31);
      refScreen.resize(90, 31);
      await Promise.all([screen.flush(), refScreen.flush()]);
      assert.equal(screen.text(), refScreen.text());
      assert.match(screen.text(), /^row 270\n[^]*\nrow 299\n\$$/);
      assert.deepEqual([screen.cursor.x, screen.cursor.y], [refScreen.cursor.x, refScreen.cursor.y]);
      assert.equal(screen.rowBase + screen.terminal.buffer.normal.length, refScreen.terminal.buffer.normal.length, 'every row still numbered as the reference numbers it');
    } finally {
      screen.dispose();
      refScreen.dispose();
    }
  });

  test('resizes of every kind after history exists: the screen equals a terminal that keeps every row live, and every logical line is still there', async () => {
    // Narrower and taller at once: a terminal pulls rows down from its scrollback into the taller screen;
    // tend's screen did not, once a narrower resize had moved its whole live scrollback to the history.
    const sizes: Array<[number, number]> = [[30, 25], [45, 8], [20, 40], [70, 12], [25, 30], [80, 24]];
    const stream = varied(400, 5, 60);
    const { screen, ref, refScreen } = await fedPair(stream, { cols: 60, rows: 10 }, 50);
    try {
      for (const [cols, rows] of sizes) {
        screen.resize(cols, rows);
        refScreen.resize(cols, rows);
        await Promise.all([screen.flush(), refScreen.flush()]);
        const when = `at ${cols}x${rows}`;
        assert.equal(screen.text(), refScreen.text(), `${when}: the screen`);
        assert.deepEqual([screen.cursor.x, screen.cursor.y], [refScreen.cursor.x, refScreen.cursor.y], `${when}: the cursor`);
        assert.equal(screen.history.droppedRows, 0, `${when}: nothing dropped`);
        // History rows keep the width they were written at, so rows are numbered apart from the
        // reference's reflowed ones; the logical lines they make are the same.
        const lines = (text: string): string[] => text.split('\n').map((l) => l.replace(/ +$/, ''));
        const refRows = { count: ref.buffer.normal.length, getLine: (i: number) => ref.buffer.normal.getLine(i) };
        assert.deepEqual(lines(screen.text({ scrollbackRows: 100_000, joinWrapped: true })),
          lines(screenText(refRows, ref.buffer.normal.getNullCell(), { joinWrapped: true })), `${when}: every logical line`);
      }
    } finally {
      screen.dispose();
      refScreen.dispose();
    }
  });
});

describe('history: limits', { timeout: 60_000 }, () => {
  test('past the rows kept, the oldest blocks go and are not reported as dropped', async () => {
    const screen = new Screen({ cols: 40, rows: 10, scrollbackRows: 1100, liveScrollbackRows: 100, scheduler });
    try {
      screen.write(varied(5000, 9, 40), { live: false });
      await screen.flush();
      assert.ok(screen.history.rowCount >= 1000 && screen.history.rowCount < 1000 + 256, `${screen.history.rowCount} rows kept`);
      assert.equal(screen.history.droppedRows, 0);
    } finally {
      screen.dispose();
    }
  });

  test('blocks a checkpoint lent keep their bytes once dropped; blocks that never left hand their memory on', async () => {
    const screen = new Screen({ cols: 40, rows: 10, scrollbackRows: 1100, liveScrollbackRows: 100, scheduler });
    try {
      screen.write(varied(3000, 5, 40), { live: false });
      await screen.flush();
      const lent = screen.history.checkpoint().blocks;
      const copies = lent.map((b) => ({ data: Uint8Array.from(b.data), starts: Uint32Array.from(b.starts) }));
      const lentBuffers = new Set(lent.flatMap((b) => [b.data.buffer, b.starts.buffer]));
      const seen = new Set<ArrayBufferLike>();
      let sealed = 0;
      let lastSerial = lent.at(-1)!.serial;
      for (let piece = 0; piece < 40; piece++) {
        screen.write(varied(500, 100 + piece, 40), { live: false });
        await screen.flush();
        for (const b of screen.history.sealed) {
          if (lent.includes(b)) continue;
          seen.add(b.data.buffer);
          if (b.serial > lastSerial) {
            sealed++;
            lastSerial = b.serial;
          }
          assert.ok(!lentBuffers.has(b.data.buffer) && !lentBuffers.has(b.starts.buffer), 'no block is written into memory a checkpoint lent');
        }
      }
      assert.ok(lent[0]!.firstRow + lent[0]!.rows <= screen.history.firstRow, 'the lent blocks were dropped');
      lent.forEach((b, i) => {
        assert.deepEqual(b.data, copies[i]!.data, `lent block ${i}'s bytes are as lent`);
        assert.deepEqual(b.starts, copies[i]!.starts);
      });
      assert.ok(seen.size < sealed / 2, `${sealed} blocks sealed in ${seen.size} buffers`);
    } finally {
      screen.dispose();
    }
  });

  test('a byte budget drops the oldest rows and counts them; the rest stays exact', async () => {
    const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 1_000_000, liveScrollbackRows: 100, historyBytes: 64 * 1024, scheduler });
    const refScreen = new Screen({ cols: 80, rows: 24, scrollbackRows: 1_000_000, liveScrollbackRows: 1_000_000, scheduler });
    const ref = refScreen.terminal;
    try {
      const stream = varied(20_000, 11, 80);
      screen.write(stream, { live: false });
      refScreen.write(stream, { live: false });
      await Promise.all([screen.flush(), refScreen.flush()]);
      assert.ok(screen.history.bytes <= 64 * 1024, `${screen.history.bytes} bytes held`);
      assert.ok(screen.history.droppedRows > 0);
      assert.equal(screen.history.firstRow, screen.history.droppedRows, 'everything below the first row held was dropped');
      assert.deepEqual(compareRows(screen, ref), []);
    } finally {
      screen.dispose();
      refScreen.dispose();
    }
  });

  test('a server budget drops the oldest blocks across sessions first', async () => {
    const budget = new HistoryBudget(768 * 1024);
    const a = new Screen({ cols: 80, rows: 24, scrollbackRows: 1_000_000, liveScrollbackRows: 50, budget, scheduler });
    const b = new Screen({ cols: 80, rows: 24, scrollbackRows: 1_000_000, liveScrollbackRows: 50, budget, scheduler });
    try {
      a.write(varied(6000, 1, 80), { live: false });
      await a.flush();
      const aBefore = a.history.bytes;
      assert.equal(a.history.droppedRows, 0);
      b.write(varied(8000, 2, 80), { live: false });
      await b.flush();
      assert.ok(budget.bytes <= 768 * 1024, `${budget.bytes} bytes in all`);
      assert.ok(a.history.bytes < aBefore, 'the older session gave up rows');
      assert.ok(a.history.droppedRows > 0);
      assert.equal(budget.bytes, a.history.budgetBytes + b.history.budgetBytes);
    } finally {
      a.dispose();
      b.dispose();
    }
    assert.equal(budget.bytes, 0, 'disposed histories give their bytes back');
  });
});
