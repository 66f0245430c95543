// Text of a screen for people and scripts (`tend screen`): plain or with SGR,
// trailing blanks trimmed, soft-wrapped rows optionally joined. Rows come
// from any source of xterm rows (history rows first, then the live buffer),
// each at its own width.
import type { IBufferCell, IBufferLine } from '@xterm/headless';
import { DEFAULT_ATTRS, sameAttrs, sgrOf } from './cell-style.js';
import { rawAttrsOf, type RawAttrs } from './xterm-private.js';

export interface TextOptions {
  /** Rows of scrollback above the screen (default 0). */
  scrollbackRows?: number;
  /** SGR colours and attributes, each line ending with a reset. */
  ansi?: boolean;
  /** A soft-wrapped row continues the line above instead of starting a new one. */
  joinWrapped?: boolean;
}

/** Rows to print, top to bottom; a row that is gone (dropped meanwhile) reads as undefined and is skipped. */
export interface TextRows {
  readonly count: number;
  getLine(i: number): IBufferLine | undefined;
}

/** How many rows go between two chances to yield. */
const ROWS_PER_SLICE_CHECK = 64;

function ansiLine(line: IBufferLine, cell: IBufferCell, trimRight: boolean): string {
  let end = line.length;
  if (trimRight) {
    while (end > 0) {
      line.getCell(end - 1, cell);
      const chars = cell.getChars();
      if ((chars !== '' && chars !== ' ') || !sameAttrs(rawAttrsOf(cell), DEFAULT_ATTRS)) break;
      end--;
    }
  }
  let out = '';
  let pen: RawAttrs = DEFAULT_ATTRS;
  for (let x = 0; x < end; x++) {
    line.getCell(x, cell);
    if (cell.getWidth() === 0) continue;
    const attrs = { ...rawAttrsOf(cell), urlId: 0 };
    if (!sameAttrs(attrs, pen)) {
      out += sgrOf(attrs);
      pen = attrs;
    }
    out += cell.getChars() || ' ';
  }
  return pen === DEFAULT_ATTRS ? out : out + '\x1b[0m';
}

/** One row as text: plain (trailing blanks dropped) or with SGR (ending in a reset). */
export function rowText(line: IBufferLine, cell: IBufferCell, options: { ansi?: boolean }): string {
  return options.ansi === true ? ansiLine(line, cell, true) : line.translateToString(true).replace(/ +$/, '');
}

/** The text as a generator: each `yield` is a point where a sliced caller may hand the loop back. */
export function* textSlices(rows: TextRows, cell: IBufferCell, options: TextOptions = {}): Generator<void, string, void> {
  const lines: string[] = [];
  let prevKept = false;
  for (let i = 0; i < rows.count; i++) {
    if (i % ROWS_PER_SLICE_CHECK === ROWS_PER_SLICE_CHECK - 1) yield;
    const line = rows.getLine(i);
    if (line === undefined) {
      prevKept = false;
      continue;
    }
    const next = i + 1 < rows.count ? rows.getLine(i + 1) : undefined;
    const continues = options.joinWrapped === true && next !== undefined && next.isWrapped;
    const text = options.ansi === true
      ? ansiLine(line, cell, !continues)
      : continues ? line.translateToString(false) : line.translateToString(true).replace(/ +$/, '');
    if (options.joinWrapped === true && line.isWrapped && prevKept && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
    prevKept = true;
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

export function screenText(rows: TextRows, cell: IBufferCell, options: TextOptions = {}): string {
  const slices = textSlices(rows, cell, options);
  for (;;) {
    const step = slices.next();
    if (step.done) return step.value;
  }
}
