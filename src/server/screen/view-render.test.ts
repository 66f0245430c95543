import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import { VIEW_PAD_CHAR, renderView, viewOffset } from './view-render.js';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

function terminal(cols: number, rows: number): HeadlessTerminal {
  return new Terminal({ cols, rows, scrollback: 100, allowProposedApi: true });
}

function write(t: HeadlessTerminal, data: string): Promise<void> {
  return new Promise((resolve) => t.write(data, resolve));
}

/** A cell as the reference compares it: what it shows and how. */
function look(t: HeadlessTerminal, x: number, y: number): string {
  const b = t.buffer.active;
  const c = b.getLine(b.baseY + y)!.getCell(x)!;
  return `${c.getChars() || ' '}|w${c.getWidth()}|fg${c.getFgColorMode()}:${c.getFgColor()}|bg${c.getBgColorMode()}:${c.getBgColor()}` +
    `|${c.isBold()}${c.isItalic()}${c.isUnderline()}${c.isInverse()}${c.isDim()}`;
}

/** The same look with another character in it (a cut wide character shows as a blank of its look). */
function withChar(cellLook: string, char: string, width: number): string {
  const [, , ...rest] = cellLook.split('|');
  return [char, `w${width}`, ...rest].join('|');
}

const PAD_LOOK = `${VIEW_PAD_CHAR}|w1|fg0:-1|bg0:-1|00000`;

/**
 * What a viewer of view size must show, cell by cell, worked out from the
 * session's cells alone: the window at (ox, oy), cut wide characters as
 * blanks of their look, the rest dots.
 */
function expectedView(session: HeadlessTerminal, view: { cols: number; rows: number }, ox: number, oy: number): string[] {
  const shownCols = Math.min(view.cols, session.cols - ox);
  const shownRows = Math.min(view.rows, session.rows - oy);
  const rows: string[] = [];
  for (let y = 0; y < view.rows; y++) {
    const cells: string[] = [];
    for (let x = 0; x < view.cols; x++) {
      if (x >= shownCols || y >= shownRows) {
        cells.push(PAD_LOOK);
        continue;
      }
      const l = look(session, ox + x, oy + y);
      const width = Number(l.split('|')[1]!.slice(1));
      if (width === 0 && x === 0) cells.push(withChar(l, ' ', 1));
      else if (width === 2 && x === shownCols - 1) cells.push(withChar(l, ' ', 1));
      else cells.push(l);
    }
    rows.push(`${y}: ${cells.join(' ')}`);
  }
  return rows;
}

/** Equal cell for cell; a difference is reported as its first cell, not as two screens of text. */
function assertSameCells(actual: string[], expected: string[]): void {
  assert.equal(actual.length, expected.length, 'rows');
  for (let y = 0; y < actual.length; y++) {
    if (actual[y] === expected[y]) continue;
    const a = actual[y]!.split(' ');
    const e = expected[y]!.split(' ');
    const x = a.findIndex((cell, i) => cell !== e[i]);
    assert.fail(`row ${y}, cell ${x - 1}: shown ${a[x]}, expected ${e[x]}`);
  }
}

function shown(t: HeadlessTerminal): string[] {
  const rows: string[] = [];
  for (let y = 0; y < t.rows; y++) {
    const cells: string[] = [];
    for (let x = 0; x < t.cols; x++) cells.push(look(t, x, y));
    rows.push(`${y}: ${cells.join(' ')}`);
  }
  return rows;
}

async function viewOf(session: HeadlessTerminal, view: { cols: number; rows: number }) {
  const rendered = renderView(session, view);
  const outer = terminal(view.cols, view.rows);
  // What the outer terminal held before (the stream of another size) must not show through.
  await write(outer, 'x'.repeat(view.cols * view.rows));
  await write(outer, rendered.data);
  return { rendered, outer };
}

/** Coloured rows 0..rows-1, each with its number, wide characters, and a background run to the edge. */
async function paintBusyScreen(session: HeadlessTerminal): Promise<void> {
  let s = '\x1b[H\x1b[2J';
  for (let y = 0; y < session.rows; y++) {
    s += `\x1b[${y + 1};1H\x1b[3${y % 8};4${(y + 3) % 8}mrow ${y}\x1b[0m \x1b[1;38;5;${200 + y}m${'abcdefghij'.repeat(2)}\x1b[0m`;
    s += ` 世界\x1b[7m反\x1b[0m \x1b[48;2;10;20;${y * 5}m${' '.repeat(12)}\x1b[0m`;
  }
  await write(session, s);
}

describe('renderView', () => {
  test('a smaller viewer shows exactly the window of the session that keeps the cursor in view', async () => {
    const session = terminal(100, 30);
    await paintBusyScreen(session);
    // Wide characters straddling the window's right edge (columns 79-80) and ending the row.
    await write(session, '\x1b[5;79H\x1b[32m宽\x1b[0m\x1b[6;80H字\x1b[7;99H\x1b[44m全\x1b[0m');
    await write(session, '\x1b[29;40H'); // the cursor near the bottom: the window shows the bottom rows
    const view = { cols: 80, rows: 24 };
    const { rendered, outer } = await viewOf(session, view);
    assert.equal(rendered.offsetX, 0);
    assert.equal(rendered.offsetY, 6);
    assertSameCells(shown(outer), expectedView(session, view, 0, 6));
    assert.deepEqual([outer.buffer.active.cursorX, outer.buffer.active.cursorY], [39, 22]);
    assert.equal(outer.buffer.active.baseY, 0, 'the paint never scrolls');
  });

  test('a cursor far right moves the window right; a wide character its left edge cuts shows as a blank', async () => {
    const session = terminal(120, 10);
    await paintBusyScreen(session);
    // With the cursor at column 110 the window of 50 starts at 70: put a wide character at 69-70.
    await write(session, '\x1b[3;70H\x1b[31;43m広\x1b[0m\x1b[4;119H\x1b[35m端\x1b[0m\x1b[2;111H');
    const view = { cols: 50, rows: 8 };
    const { rendered, outer } = await viewOf(session, view);
    assert.equal(rendered.offsetX, 70);
    assert.equal(rendered.offsetY, 0);
    assertSameCells(shown(outer), expectedView(session, view, 70, 0));
    assert.deepEqual([outer.buffer.active.cursorX, outer.buffer.active.cursorY], [40, 1]);
  });

  test('a larger viewer shows the whole session and dots beyond it', async () => {
    const session = terminal(60, 10);
    await paintBusyScreen(session);
    await write(session, '\x1b[10;61H'); // at the last column
    const view = { cols: 80, rows: 24 };
    const { rendered, outer } = await viewOf(session, view);
    assert.deepEqual([rendered.offsetX, rendered.offsetY], [0, 0]);
    assertSameCells(shown(outer), expectedView(session, view, 0, 0));
    assert.deepEqual([outer.buffer.active.cursorX, outer.buffer.active.cursorY], [59, 9]);
  });

  test('the alternate screen is shown while a program is on it', async () => {
    const session = terminal(90, 12);
    await write(session, 'shell line\r\n\x1b[?1049h\x1b[H\x1b[2J\x1b[1;31mEDITOR\x1b[0m\x1b[12;1H-- INSERT --\x1b[1;7H');
    const view = { cols: 40, rows: 6 };
    const { outer } = await viewOf(session, view);
    assertSameCells(shown(outer), expectedView(session, view, 0, 0));
    assert.match(outer.buffer.active.getLine(0)!.translateToString(true), /^EDITOR/);
  });

  test('viewOffset keeps the cursor in the window', () => {
    for (const screen of [10, 30, 57]) {
      for (const view of [1, 5, 24, 60]) {
        for (let cursor = 0; cursor < screen; cursor++) {
          const o = viewOffset(cursor, screen, view);
          assert.ok(o >= 0 && o <= Math.max(0, screen - view), `offset ${o} for screen ${screen} view ${view}`);
          if (screen > view) assert.ok(cursor >= o && cursor < o + view, `cursor ${cursor} outside ${o}+${view}`);
        }
      }
    }
  });
});
