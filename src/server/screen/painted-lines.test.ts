// Snapshots that take scrolled-off lines from the text earlier snapshots
// painted must be the very bytes a fresh paint gives: compared here, byte
// for byte, over random output that scrolls into the live scrollback and the
// history (wide characters, wrapped rows, styled blanks at the margin, links,
// the alternate screen), with resizes, erases, resets, restores and budget
// drops in between; and the kept lines must actually be used, and bounded.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen, type ScreenOptions } from './screen.js';
import { PaintedLines, MAX_PAINTED_CHARS, MAX_PAINTED_LINES } from './painted-lines.js';
import { randomStream, seededRandom } from '../../../test/support/random-stream.js';

const WORDS = ['ab', 'Z', '0', '.', '─', 'é', 'e\u0301', '\u4e00', '\u754c', '\u{1f600}', 'ｱ', ' ', '  '];
const PENS = ['0', '1', '4', '4:3', '7', '31', '92', '38;5;200', '38;2;10;20;30', '44', '48;5;12', '58;5;9', '1;2', '0;44'];
const LINKS = ['\x1b]8;;https://e.x/a\x1b\\', '\x1b]8;id=k;https://e.x/b\x1b\\', '\x1b]8;;\x1b\\'];

/** Lines that scroll: text longer and shorter than the screen, colours, links, styled blanks left at the margin. */
function scrollingLines(random: () => number, count: number, cols: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let out = '';
  for (let i = 0; i < count; i++) {
    const target = Math.floor(random() * cols * 2.5);
    let line = '';
    let width = 0;
    while (width < target) {
      const r = random();
      if (r < 0.15) line += `\x1b[${pick(PENS)}m`;
      else if (r < 0.2) line += pick(LINKS);
      else {
        const word = pick(WORDS);
        line += word;
        width += word.length;
      }
    }
    const end = random();
    // Ends: plain, a coloured erase to the margin, a wide character at the last column, a blank there.
    if (end < 0.15) line += `\x1b[4${Math.floor(random() * 8)}m\x1b[K`;
    else if (end < 0.25) line += `\x1b[${cols}G\u4e00`;
    else if (end < 0.32) line += `\x1b[7m\x1b[${cols - 1}G\u4e00\x1b[${cols}G \x1b[0m`;
    out += `${line}\x1b[0m${random() < 0.9 ? '\r\n' : '\n'}`;
  }
  return out;
}

/** One step of the session's life between snapshots. */
function step(random: () => number, cols: number, rows: number): { bytes?: string; resize?: [number, number]; away?: [number, number] } {
  const r = random();
  // There and back between two snapshots: the size is the same, the rows were reflowed.
  if (r < 0.06) return { away: [Math.max(4, cols - 1 - Math.floor(random() * cols / 2)), rows], bytes: random() < 0.5 ? scrollingLines(random, 2, cols) : '' };
  if (r < 0.45) return { bytes: scrollingLines(random, 1 + Math.floor(random() * rows * 3), cols) };
  if (r < 0.7) return { bytes: randomStream(random, 5 + Math.floor(random() * 20), cols, rows) };
  if (r < 0.78) {
    const c = Math.max(4, cols + Math.floor(random() * 9) - 4);
    const h = Math.max(3, rows + Math.floor(random() * 5) - 2);
    return { resize: [c, h] };
  }
  if (r < 0.81) return { bytes: '\x1b[3J' };
  if (r < 0.83) return { bytes: '\x1bc' };
  if (r < 0.88) return { bytes: `\x1b[?1049h${scrollingLines(random, rows, cols)}${random() < 0.5 ? '\x1b[?1049l' : ''}` };
  if (r < 0.93) return { bytes: `\x1b[1;${Math.max(2, rows - 1)}r\x1b[${rows - 1};1H${scrollingLines(random, rows, cols)}\x1b[r` };
  return { bytes: `\x1b[2J\x1b[H${scrollingLines(random, 2, cols)}` };
}

/** The screen's snapshot taking kept lines equals the one painted afresh, at each depth asked. */
async function sameAsFresh(screen: Screen, depths: readonly number[], what: string): Promise<void> {
  await screen.flush();
  for (const scrollbackRows of depths) {
    const fresh = screen.snapshot({ scrollbackRows, reusePainted: false });
    const reused = screen.snapshot({ scrollbackRows });
    assert.equal(reused.data, fresh.data, `${what}, scrollback ${scrollbackRows}`);
    assert.equal(reused.firstRow, fresh.firstRow, `${what}, scrollback ${scrollbackRows}`);
    assert.equal(reused.scrollbackRows, fresh.scrollbackRows, `${what}, scrollback ${scrollbackRows}`);
  }
}

describe('snapshots reuse painted lines and stay byte for byte the same', { timeout: 240_000 }, () => {
  test('random scrolling output with resizes, erases, resets and the alternate screen', async () => {
    const SEEDS = 120;
    let hits = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const random = seededRandom(seed);
      let cols = 8 + Math.floor(random() * 25);
      let rows = 3 + Math.floor(random() * 7);
      // Few live rows so that output reaches the history, and a history small enough to drop rows.
      const screen = new Screen({ cols, rows, scrollbackRows: 120, liveScrollbackRows: 4 + Math.floor(random() * 20), historyBytes: 16 * 1024 });
      try {
        for (let k = 0; k < 30; k++) {
          const next = step(random, cols, rows);
          if (next.away !== undefined) screen.resize(...next.away);
          if (next.bytes !== undefined) screen.write(next.bytes, { live: false });
          if (next.away !== undefined) screen.resize(cols, rows);
          if (next.resize !== undefined) {
            [cols, rows] = next.resize;
            screen.resize(cols, rows);
          }
          await sameAsFresh(screen, [0, rows, 3 * rows + 1, 1_000], `seed ${seed} step ${k}`);
        }
        hits += screen.painted.counts.hits;
      } finally {
        screen.dispose();
      }
    }
    // Vacuous unless kept lines were used in earnest.
    assert.ok(hits > 10_000, `only ${hits} lines taken from earlier snapshots`);
  });

  test('sliced snapshots (a first attach goes through one) reuse the same lines', async () => {
    const random = seededRandom(7);
    const screen = new Screen({ cols: 30, rows: 6, scrollbackRows: 400, liveScrollbackRows: 40 });
    try {
      for (let k = 0; k < 20; k++) {
        screen.write(scrollingLines(random, 25, 30), { live: false });
        const fresh = await screen.snapshotAsync({ scrollbackRows: 200, reusePainted: false, sliceMs: 0 });
        const reused = await screen.snapshotAsync({ scrollbackRows: 200, sliceMs: 0 });
        assert.equal(reused.data, fresh.data, `step ${k}`);
      }
      assert.ok(screen.painted.counts.hits > 1_000);
    } finally {
      screen.dispose();
    }
  });

  test('a history row of another width, continued by a live row, moves into the history', async () => {
    // Written at 40 columns, the long line's first row goes to the history; at 30 columns its
    // continuation stays live and wrapped, and is painted wrapped onto it. Once it moves to the
    // history too it is painted unwrapped (history rows are not reflowed): the line above, whose text
    // depends on it, must not be taken from before.
    const screen = new Screen({ cols: 40, rows: 4, scrollbackRows: 100, liveScrollbackRows: 3 });
    try {
      screen.write(`${'a'.repeat(38)}\r\n${'x'.repeat(75)}\r\n1\r\n2\r\n3\r\n4\r\n5`, { live: false });
      await screen.flush();
      screen.resize(30, 4);
      for (let k = 0; k < 8; k++) {
        await sameAsFresh(screen, [100], `line ${k}`);
        screen.write(`\r\nmore ${k}`, { live: false });
      }
      await sameAsFresh(screen, [100], 'end');
    } finally {
      screen.dispose();
    }
  });

  test('a restored screen and a replaced link builder forget what they kept', async () => {
    const options: ScreenOptions = { cols: 20, rows: 4, scrollbackRows: 20_000, liveScrollbackRows: 10 };
    const screen = new Screen(options);
    let restored: Screen | undefined;
    try {
      // Past 10 000 distinct links the history's link names are handed out afresh, from the top of
      // the next snapshot down: below, two links run across lines in turns of three, so the new
      // names of the two are the old ones swapped when that snapshot's top is three rows lower.
      let lines = '';
      for (let i = 0; i < 10_050; i++) lines += `\x1b]8;;https://e.x/${i}\x1b\\l${i % 7}\x1b]8;;\x1b\\ ${i % 3 === 0 ? '\x1b[44m' : ''}t\x1b[0m\r\n`;
      for (let i = 0; i < 200; i++) lines += `${Math.floor(i / 3) % 2 === 0 ? LINKS[0] : LINKS[1]}row ${i}\r\n`;
      screen.write(lines, { live: false });
      await sameAsFresh(screen, [100], 'links');
      // (only the fresh paint reads every row: the kept lines stay those of the old names)
      screen.snapshot({ scrollbackRows: 20_000, reusePainted: false });
      await sameAsFresh(screen, [97, 100], 'links named afresh');
      restored = Screen.fromSnapshot(screen.snapshot({ scrollbackRows: 30 }), options);
      await sameAsFresh(restored, [30], 'restored');
      restored.write(scrollingLines(seededRandom(3), 40, 20), { live: false });
      await sameAsFresh(restored, [30, 1_000], 'restored and continued');
    } finally {
      screen.dispose();
      restored?.dispose();
    }
  });
});

describe('painted lines are used, and bounded', { timeout: 60_000 }, () => {
  test('a second first-attach snapshot of 1 000 rows paints only the lines at its top', async () => {
    const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 10_000 });
    try {
      screen.write(scrollingLines(seededRandom(11), 3_000, 80), { live: false });
      await screen.flush();
      const first = screen.snapshot({ scrollbackRows: 1_000 });
      const painted = screen.painted.counts.painted;
      assert.ok(painted > 900, `${painted} lines kept by the first snapshot`);
      const second = screen.snapshot({ scrollbackRows: 1_000 });
      assert.equal(second.data, first.data);
      assert.equal(screen.painted.counts.painted, painted, 'the second snapshot painted kept lines again');
      assert.ok(screen.painted.counts.hits > 900, `${screen.painted.counts.hits} lines taken`);
      // A few more rows scroll off: only they (and the new top of the window) are painted.
      screen.write(scrollingLines(seededRandom(12), 5, 80), { live: false });
      await screen.flush();
      screen.snapshot({ scrollbackRows: 1_000 });
      assert.ok(screen.painted.counts.painted - painted < 80, `${screen.painted.counts.painted - painted} lines painted after 5 new rows`);
    } finally {
      screen.dispose();
    }
  });

  test('lines met in two states (rows ending in a background colour) are kept from both', async () => {
    // After a row whose pen ends blue, the target's next row is blue until erased; so the pen each
    // row leaves alternates, and windows one row apart meet every line in the other state.
    const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 10_000 });
    try {
      let text = '';
      for (let i = 0; i < 2_000; i++) text += `\x1b[3${i % 8}mrow ${i} \x1b[44m${'x'.repeat(1 + (i % 40))}\x1b[0m\r\n`;
      screen.write(text, { live: false });
      await screen.flush();
      screen.snapshot({ scrollbackRows: 1_000 });
      screen.snapshot({ scrollbackRows: 999 });
      for (const depth of [1_000, 999, 1_000, 999]) {
        const painted = screen.painted.counts.painted;
        const reused = screen.snapshot({ scrollbackRows: depth });
        assert.ok(screen.painted.counts.painted - painted < 40, `depth ${depth}: ${screen.painted.counts.painted - painted} lines painted`);
        assert.equal(reused.data, screen.snapshot({ scrollbackRows: depth, reusePainted: false }).data);
      }
    } finally {
      screen.dispose();
    }
  });

  test('a resize forgets the kept lines (the reflow rewrote their rows)', async () => {
    const screen = new Screen({ cols: 30, rows: 5, scrollbackRows: 500 });
    try {
      screen.write(scrollingLines(seededRandom(5), 200, 30), { live: false });
      await screen.flush();
      screen.snapshot({ scrollbackRows: 300 });
      assert.ok(screen.painted.size > 100);
      screen.resize(25, 5);
      await screen.flush();
      assert.equal(screen.painted.size, 0);
    } finally {
      screen.dispose();
    }
  });

  test('the kept text stays under its limits, oldest lines going first', () => {
    const lines = new PaintedLines(10, 1_000);
    const state = { pen: { fg: 0, bg: 0, underlineStyle: 0, underlineColor: 0, urlId: 0 }, penLink: 0, cx: 0, y: 5, lastCellFix: undefined, wideAcrossMargin: false };
    const left = { ...state, fill: state.pen };
    for (let k = 0; k < 30; k++) lines.keep(k, state, 'x'.repeat(60), left);
    assert.equal(lines.size, 10);
    assert.equal(lines.take(0, state), undefined);
    assert.equal(lines.take(29, state)?.text, 'x'.repeat(60));
    for (let k = 30; k < 40; k++) lines.keep(k, state, 'y'.repeat(300), left);
    assert.ok(lines.textChars <= 1_000);
    assert.equal(lines.size, 3);
    // Painted from another state: not taken.
    assert.equal(lines.take(39, { ...state, cx: 1 }), undefined);
    assert.ok(MAX_PAINTED_LINES >= 1_000 && MAX_PAINTED_CHARS >= 256 * 1024);
  });
});
