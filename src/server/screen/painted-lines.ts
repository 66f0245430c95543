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
//     column, and what the line above left to fix at the margin,
// once its cursor stands on the target's bottom row (every line then
// scrolls the target as the line feed before it is written). A line that
// scrolled off, and whose next line scrolled off too, never changes (only a
// resize's reflow, an erase of the scrollback, a reset or a restore touch
// such rows, and the screen forgets everything then). So each entry keeps
// the text with the state it was painted from and the state it left, and is
// used only when the painter arrives in exactly that state: the snapshot's
// bytes are those of a fresh paint, by construction. Lines are known by a
// key the screen's rows give (history.ts numbers rows for good): history
// lines and live lines have keys of their own, because a row painted from
// the history can differ from the same row painted live (its wrap flag is
// kept only when the row above has the same width).
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
// MAX_PAINTED_CHARS characters of text per screen (a 1 000-row attach of
// 80-column coloured text is ~105 000 characters); past either, the lines
// kept first go first.
import type { RawAttrs } from './xterm-private.js';

/** Lines a screen keeps painted: a first attach's 1 000 rows of history, each from two states, with room to spare. */
export const MAX_PAINTED_LINES = 2_560;
/** Characters of painted text a screen keeps (UTF-16 units; one byte each for Latin-1 text, two otherwise). */
export const MAX_PAINTED_CHARS = 640 * 1024;
/** States one line is kept painted from. */
export const MAX_VARIANTS = 2;

/** The painter's state where one line's text starts or ends (its row is always the target's bottom one). */
export interface PaintState {
  pen: RawAttrs;
  penLink: number;
  /** Target column (may equal cols: the pending-wrap position). */
  cx: number;
  /** The line above ended in a blank at the last column printed to reach the margin: this erases it. */
  lastCellFix: RawAttrs | undefined;
  /** The line above ends where a wide character crossed the margin. */
  wideAcrossMargin: boolean;
}

/** The state a line's text leaves, with the attributes of the target row's blanks nothing has written yet. */
export interface LeftState extends PaintState {
  fill: RawAttrs;
}

interface PaintedLine {
  /** The state the text was painted from. */
  from: PaintState;
  text: string;
  to: LeftState;
}

export class PaintedLines {
  /** By key, the line as painted from each state it was met in, oldest first. */
  private readonly lines = new Map<number, PaintedLine[]>();
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
  take(key: number, state: PaintState): PaintedLine | undefined {
    const variants = this.lines.get(key);
    if (variants === undefined) return undefined;
    for (const line of variants) {
      if (sameState(line.from, state)) {
        this.hitCount++;
        return line;
      }
    }
    return undefined;
  }

  /** Keeps line `key` as painted from `from` (beside other states it is kept from, the oldest of which may go). */
  keep(key: number, from: PaintState, text: string, to: LeftState): void {
    if (text.length > this.maxChars) return;
    this.paintCount++;
    let variants = this.lines.get(key);
    if (variants === undefined) {
      variants = [];
      this.lines.set(key, variants);
    }
    const same = variants.findIndex((line) => sameState(line.from, from));
    const gone = same >= 0 ? variants.splice(same, 1) : variants.length >= this.maxVariants ? variants.splice(0, 1) : [];
    for (const line of gone) this.dropped(line);
    variants.push({ from, text, to });
    this.lineCount++;
    this.chars += text.length;
    // Oldest keys first: in the sliding window of a first attach those are the rows that fell out of it.
    for (const [oldest, lines] of this.lines) {
      if (this.lineCount <= this.maxLines && this.chars <= this.maxChars) break;
      if (oldest === key) continue;
      this.lines.delete(oldest);
      for (const line of lines) this.dropped(line);
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

function sameState(a: PaintState, b: PaintState): boolean {
  // penLink NaN (a pen written in full next) never matches: such a state is not kept reused.
  return a.penLink === b.penLink && a.cx === b.cx && a.wideAcrossMargin === b.wideAcrossMargin &&
    sameAttrs(a.pen, b.pen) &&
    (a.lastCellFix === undefined ? b.lastCellFix === undefined : b.lastCellFix !== undefined && sameAttrs(a.lastCellFix, b.lastCellFix));
}
