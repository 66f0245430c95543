// Text of a screen for people and scripts (`tend screen`): plain or with SGR
// and OSC 8 links, trailing blanks trimmed, soft-wrapped rows optionally
// joined. Rows come from any source of xterm rows (history rows first, then
// the live buffer), each at its own width.
//
// ANSI text joins soft-wrapped rows by default: a row that wrapped is one
// line the terminal folded, and printed without the break it folds the same
// way again at the same width (setting its own wrap flag, so a copy from it
// is one line), and refolds right at any other width. Printed with a break,
// as before, it stayed two lines for good.
import type { IBufferCell, IBufferLine } from '@xterm/headless';
import { DEFAULT_ATTRS, oscLinkOf, sameAttrs, sgrOf } from './cell-style.js';
import { rawAttrsOf, type LinkData, type RawAttrs } from './xterm-private.js';

export interface TextOptions {
  /** Rows of scrollback above the screen (default 0). */
  scrollbackRows?: number;
  /** SGR colours and attributes and OSC 8 links, each line ending with them closed. */
  ansi?: boolean;
  /** A soft-wrapped row continues the line above instead of starting a new one (default: with ansi only). */
  joinWrapped?: boolean;
}

/** Rows to print, top to bottom; a row that is gone (dropped meanwhile) reads as undefined and is skipped. */
export interface TextRows {
  readonly count: number;
  getLine(i: number): IBufferLine | undefined;
  /** What a link id in these rows' cells names (without it, ANSI text carries no links). */
  link?(urlId: number): LinkData | undefined;
}

type LinkLookup = (urlId: number) => LinkData | undefined;

/** How many rows go between two chances to yield. */
const ROWS_PER_SLICE_CHECK = 64;

/** The look and link the ANSI text has left open, carried across the rows of one joined line. */
class AnsiPen {
  private attrs: RawAttrs = DEFAULT_ATTRS;
  private urlId = 0;

  constructor(private readonly link: LinkLookup | undefined) {}

  /** What to write before a cell with these attributes. */
  change(cell: RawAttrs): string {
    let out = '';
    const attrs = { ...cell, urlId: 0 };
    if (!sameAttrs(attrs, this.attrs)) {
      out += sgrOf(attrs);
      this.attrs = attrs;
    }
    if (cell.urlId !== this.urlId) {
      // A link no one can resolve any more (or no lookup at all) is plain text.
      const data = cell.urlId === 0 || this.link === undefined ? undefined : this.link(cell.urlId);
      const urlId = data === undefined ? 0 : cell.urlId;
      if (urlId !== this.urlId) out += oscLinkOf(data);
      this.urlId = urlId;
    }
    return out;
  }

  /** Closes whatever is open, at the end of a line: a pasted line must not leak its colour or link. */
  close(): string {
    let out = '';
    if (this.urlId !== 0) out += oscLinkOf(undefined);
    if (!sameAttrs(this.attrs, DEFAULT_ATTRS)) out += '\x1b[0m';
    this.attrs = DEFAULT_ATTRS;
    this.urlId = 0;
    return out;
  }
}

/** Columns of a row to print: trailing blanks go when the line ends here. */
function printedEnd(line: IBufferLine, cell: IBufferCell, endsLine: boolean, next: IBufferLine | undefined): number {
  let end = line.length;
  if (endsLine) {
    while (end > 0) {
      line.getCell(end - 1, cell);
      const chars = cell.getChars();
      if ((chars !== '' && chars !== ' ') || !sameAttrs(rawAttrsOf(cell), DEFAULT_ATTRS)) break;
      end--;
    }
  } else if (end > 0 && next !== undefined && next.getCell(0, cell)?.getWidth() === 2) {
    // A wide character that did not fit in the last column left it empty and wrapped: that hole is not text.
    line.getCell(end - 1, cell);
    if (cell.getChars() === '' && sameAttrs(rawAttrsOf(cell), DEFAULT_ATTRS)) end--;
  }
  return end;
}

function ansiRow(line: IBufferLine, cell: IBufferCell, end: number, pen: AnsiPen): string {
  let out = '';
  for (let x = 0; x < end; x++) {
    line.getCell(x, cell);
    if (cell.getWidth() === 0) continue;
    out += pen.change(rawAttrsOf(cell));
    out += cell.getChars() || ' ';
  }
  return out;
}

/** One row as text: plain (trailing blanks dropped) or with SGR and links (all closed at its end). */
export function rowText(line: IBufferLine, cell: IBufferCell, options: { ansi?: boolean; link?: LinkLookup }): string {
  if (options.ansi !== true) return line.translateToString(true).replace(/ +$/, '');
  const pen = new AnsiPen(options.link);
  return ansiRow(line, cell, printedEnd(line, cell, true, undefined), pen) + pen.close();
}

/** The text as a generator: each `yield` is a point where a sliced caller may hand the loop back. */
export function* textSlices(rows: TextRows, cell: IBufferCell, options: TextOptions = {}): Generator<void, string, void> {
  const ansi = options.ansi === true;
  const join = options.joinWrapped ?? ansi;
  const link = rows.link?.bind(rows);
  const lines: string[] = [];
  const pen = new AnsiPen(link);
  let prevKept = false;
  for (let i = 0; i < rows.count; i++) {
    if (i % ROWS_PER_SLICE_CHECK === ROWS_PER_SLICE_CHECK - 1) yield;
    const line = rows.getLine(i);
    if (line === undefined) {
      prevKept = false;
      continue;
    }
    const next = i + 1 < rows.count ? rows.getLine(i + 1) : undefined;
    const continues = join && next !== undefined && next.isWrapped;
    let text: string;
    if (ansi) {
      text = ansiRow(line, cell, printedEnd(line, cell, !continues, next), pen);
      if (!continues) text += pen.close();
    } else {
      // Plain text trims a line's end with translateToString: only a continued row needs printedEnd.
      text = continues ? line.translateToString(false, 0, printedEnd(line, cell, false, next)) : line.translateToString(true).replace(/ +$/, '');
    }
    if (join && line.isWrapped && prevKept && lines.length > 0) lines[lines.length - 1] += text;
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
