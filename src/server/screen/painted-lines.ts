// The snapshot text of scrolled-off lines, kept per screen so that a viewer's
// first attach (the screen and 1 000 rows of history above it) paints only
// the lines it has not painted before: decoding and painting a thousand rows
// took ~13 ms of the screen host's time on every attach; a cached line costs
// a lookup.
//
// Why a line's text can be kept: the painter (snapshot-writer.ts) writes
// lines top to bottom, and what it writes for a line depends only on
//   * the line itself and whether the line below continues it (its wrap
//     flag and its first cell),
//   * the terminal's size,
//   * the painter's state on arriving: the pen and link it last wrote, its
//     column and row (a line feed on the target's bottom row scrolls and
//     fills the new row with the pen's background; above it, it does not),
//     and what the line above left to fix at the margin.
// A line that scrolled off, and whose next line scrolled off too, never
// changes (only a resize's reflow, an erase of the scrollback, a reset or a
// restore touch such rows, and the screen forgets everything then). So each
// entry keeps the text with the state it was painted from and the state it
// left, and is used only when the painter arrives in exactly that state:
// the snapshot's bytes are those of a fresh paint, by construction. Lines
// are known by a key the screen's rows give (history.ts numbers rows for
// good): history lines and live lines have keys of their own, because a
// row painted from the history can differ from the same row painted live
// (its wrap flag is kept only when the row above has the same width).
//
// A line may be kept painted from more than one state (MAX_VARIANTS): the
// state a line is reached in can depend on where the snapshot's window
// starts. Rows that end in a coloured background are the common case: the
// target fills the new row after a line feed with the pen's background, so
// the painter erases its blanks or not, and the pen a row leaves alternates
// from row to row; a window one row lower meets every line in the other
// state.
//
// Bounded: at most MAX_PAINTED_LINES lines (each state counted) and
// MAX_PAINTED_CHARS characters of text per screen; past either, the lines
// kept first go first. What it costs: a 1 000-row attach of coloured text
// keeps ~975 lines, ~105 000 characters, ~340 KiB of heap at 80 columns
// (~450 KiB at 200); a screen whose lines are met in two states up to
// twice that.
import type { RawAttrs } from './xterm-private.js';

/** Lines a screen keeps painted: a first attach's 1 000 rows of history, each from two states, with room to spare. */
export const MAX_PAINTED_LINES = 2_560;
/** Characters of painted text a screen keeps (UTF-16 units; one byte each for Latin-1 text, two otherwise). */
export const MAX_PAINTED_CHARS = 640 * 1024;
/** States one line is kept painted from. */
export const MAX_VARIANTS = 2;

/** The painter's state where one line's text starts or ends. */
export interface PaintState {
  pen: RawAttrs;
  penLink: number;
  /** Target column (may equal cols: the pending-wrap position). */
  cx: number;
  /** Target row. */
  y: number;
  /** The line above ended in a blank at the last column printed to reach the margin: this erases it. */
  lastCellFix: RawAttrs | undefined;
  /** The line above ends where a wide character crossed the margin. */
  wideAcrossMargin: boolean;
}

/** The state a line's text leaves, with the attributes of the target row's blanks nothing has written yet. */
export interface LeftState extends PaintState {
  fill: RawAttrs;
}

/**
 * One line's text with the state it was painted from and the state it
 * leaves, flat (one object a line: the states as objects cost more than
 * the text). The pens are the painter's own objects, shared with the lines
 * around (a line's pen on arrival is the one the line above left).
 */
class PaintedLine {
  constructor(
    readonly text: string,
    private readonly fromPen: RawAttrs,
    private readonly fromLink: number,
    private readonly fromCx: number,
    private readonly fromY: number,
    private readonly fromWide: boolean,
    private readonly fromFix: RawAttrs | undefined,
    private readonly toPen: RawAttrs,
    private readonly toLink: number,
    private readonly toCx: number,
    private readonly toY: number,
    private readonly toWide: boolean,
    private readonly toFix: RawAttrs | undefined,
    private readonly toFill: RawAttrs,
  ) {}

  static of(from: PaintState, text: string, to: LeftState): PaintedLine {
    // (the fill is the default one or an erase colour: kept as DEFAULT_FILL when it is the default)
    const fill = sameAttrs(to.fill, DEFAULT_FILL) ? DEFAULT_FILL : to.fill;
    return new PaintedLine(text, from.pen, from.penLink, from.cx, from.y, from.wideAcrossMargin, from.lastCellFix,
      to.pen, to.penLink, to.cx, to.y, to.wideAcrossMargin, to.lastCellFix, fill);
  }

  paintedFrom(state: PaintState): boolean {
    // penLink NaN (a pen written in full next) never matches: such a state is not reused.
    return this.fromLink === state.penLink && this.fromCx === state.cx && this.fromY === state.y && this.fromWide === state.wideAcrossMargin &&
      sameAttrs(this.fromPen, state.pen) &&
      (this.fromFix === undefined ? state.lastCellFix === undefined : state.lastCellFix !== undefined && sameAttrs(this.fromFix, state.lastCellFix));
  }

  /** The state the text leaves. */
  get to(): LeftState {
    return { pen: this.toPen, penLink: this.toLink, cx: this.toCx, y: this.toY, lastCellFix: this.toFix, wideAcrossMargin: this.toWide, fill: this.toFill };
  }
}

const DEFAULT_FILL: RawAttrs = Object.freeze({ fg: 0, bg: 0, underlineStyle: 0, underlineColor: 0, urlId: 0 });

export class PaintedLines {
  /** By key, the line as painted from each state it was met in (an array only for more than one), oldest first. */
  private readonly lines = new Map<number, PaintedLine | PaintedLine[]>();
  private lineCount = 0;
  private chars = 0;
  private cols = 0;
  private rows = 0;
  private hitCount = 0;
  private paintCount = 0;

  constructor(
    private readonly maxLines = MAX_PAINTED_LINES,
    private readonly maxChars = MAX_PAINTED_CHARS,
    private readonly maxVariants = MAX_VARIANTS,
  ) {}

  /** Lines kept (each state a line is kept painted from counts). */
  get size(): number {
    return this.lineCount;
  }

  /** Characters of text kept. */
  get textChars(): number {
    return this.chars;
  }

  /** Lines taken from here and lines painted afresh (and kept) since the screen was made: for tests and figures. */
  get counts(): { hits: number; painted: number } {
    return { hits: this.hitCount, painted: this.paintCount };
  }

  /** The painter works at this size: text painted at another is forgotten. */
  sizeIs(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.forget();
    this.cols = cols;
    this.rows = rows;
  }

  /** Forgets every line (the rows they were painted from may have changed). */
  forget(): void {
    this.lines.clear();
    this.lineCount = 0;
    this.chars = 0;
  }

  /** The kept text of line `key` if it was painted from exactly `state`. */
  take(key: number, state: PaintState): { text: string; to: LeftState } | undefined {
    const kept = this.lines.get(key);
    if (kept === undefined) return undefined;
    const line = Array.isArray(kept) ? kept.find((l) => l.paintedFrom(state)) : kept.paintedFrom(state) ? kept : undefined;
    if (line !== undefined) this.hitCount++;
    return line;
  }

  /** Keeps line `key` as painted from `from` (beside other states it is kept from, the oldest of which may go). */
  keep(key: number, from: PaintState, text: string, to: LeftState): void {
    if (text.length > this.maxChars) return;
    this.paintCount++;
    const line = PaintedLine.of(from, text, to);
    const kept = this.lines.get(key);
    const variants = kept === undefined ? [] : Array.isArray(kept) ? kept : [kept];
    const same = variants.findIndex((l) => l.paintedFrom(from));
    const gone = same >= 0 ? variants.splice(same, 1) : variants.length >= this.maxVariants ? variants.splice(0, 1) : [];
    for (const l of gone) this.dropped(l);
    variants.push(line);
    this.lines.set(key, variants.length === 1 ? line : variants);
    this.lineCount++;
    this.chars += text.length;
    // Oldest keys first: in the sliding window of a first attach those are the rows that fell out of it.
    for (const [oldest, lines] of this.lines) {
      if (this.lineCount <= this.maxLines && this.chars <= this.maxChars) break;
      if (oldest === key) continue;
      this.lines.delete(oldest);
      if (Array.isArray(lines)) for (const l of lines) this.dropped(l);
      else this.dropped(lines);
    }
  }

  private dropped(line: PaintedLine): void {
    this.lineCount--;
    this.chars -= line.text.length;
  }
}

function sameAttrs(a: RawAttrs, b: RawAttrs): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.underlineStyle === b.underlineStyle && a.underlineColor === b.underlineColor && a.urlId === b.urlId;
}
