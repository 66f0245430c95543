// Turns a headless terminal into ANSI text that, written as one write into a
// fresh terminal of the same size, rebuilds it exactly: every cell (chars,
// width, colours in their original mode, every SGR flag, underline style and
// colour, OSC 8 links, blanks that carry attributes), every line's wrap flag,
// both buffers, and the state outside the cells.
//
// How rows are painted: strictly top to bottom, left to right, with CR LF
// between hard lines and a real print across the right margin for soft-wrapped
// ones (the only way a terminal sets a line's wrap flag). Cells that already
// look right in the target (blanks equal to the row's fill) are skipped with
// CUF; blanks with only a background are made with ECH; blanks with any other
// attribute ("styled blanks", e.g. the cell left when half of a wide character
// is overwritten while inverse is on) are made the way xterm itself makes them:
// print a wide character there and then print over its right half.
//
// State after the cells, in an order that never moves the final cursor:
// per buffer (tab stops, scroll region, saved cursor — each while that buffer
// is active; the alternate screen is entered with 1049 from the normal one's
// saved cursor, as programs enter it), then DECOM, the cursor (re-entering the pending-wrap position
// when the cursor stood past the last column), the pen and link, charsets,
// DECAWM/IRM (they change how printing works, so after all printing), the
// other modes, mouse encoding, cursor style and visibility, title.
import type { IBuffer, IBufferCell, IBufferLine, Terminal } from '@xterm/headless';
import { DEFAULT_ATTRS, eraseAttrsFor, isEraseBlank, oscLinkOf, sameAttrs, sgrKeepingUnderline, sgrOf } from './cell-style.js';
import { penPlan, type PenPlan } from './pen-state.js';
import type { LeftState, PaintedLines, PaintState } from './painted-lines.js';
import {
  BG_HAS_EXTENDED, BG_PROTECTED, FG_UNDERLINE, charsetDesignator, linkOf, rawAttrsOf, rawBg, rawExtended, rawFg,
  type BufferInternals, type LinkData, type RawAttrs, type TerminalInternals,
} from './xterm-private.js';

const ESC = '\x1b';
const CSI = '\x1b[';
/** Printed and then half overwritten to leave a styled blank: any width-2 character will do. */
const WIDE_PROBE = '\u4e00';
/** How many rows a sliced paint does between clock checks. */
const ROWS_PER_CLOCK_CHECK = 32;
const TAB_WIDTH_COLUMNS = 8;
/**
 * A link opened only so that a saved cursor keeps a bg word that shows the
 * pen's extended record without an underline (it was saved inside a link):
 * no cell ever carries it.
 */
const SAVED_PEN_LINK: LinkData = { id: undefined, uri: 'about:blank' };

export interface SnapshotRequest {
  /** Rows of normal-buffer scrollback to include (all if larger than what is there). */
  scrollbackRows: number;
  title: string;
  /**
   * Rows older than the live buffer (the history), already at the terminal's
   * width, painted above it; they count towards scrollbackRows. `link`
   * resolves the link ids their cells carry.
   */
  older?: {
    readonly count: number;
    getLine(i: number): IBufferLine | undefined;
    link(urlId: number): LinkData | undefined;
    /** The key line `i` is kept under in `painted` (undefined: not to be kept). */
    keyOf?(i: number): number | undefined;
  };
  /**
   * Lines painted by earlier snapshots (painted-lines.ts), used where the
   * painter arrives in the state they were painted from, and kept for later
   * ones. Only lines given a key are: those that can no longer change.
   */
  painted?: {
    lines: PaintedLines;
    /** The key of line `index` of the live normal buffer (undefined: not to be kept). */
    liveKey(index: number): number | undefined;
  };
}

/** Rows a painter walks: the normal buffer's, or history rows followed by them. */
interface Rows {
  getLine(i: number): IBufferLine | undefined;
}

/** Which lines of the rows a painter walks may be taken from, and kept in, a PaintedLines. */
interface KeptLines {
  lines: PaintedLines;
  keyOf(i: number): number | undefined;
}

export interface SnapshotResult {
  data: string;
  /** Scrollback rows actually included. */
  scrollbackRows: number;
}

/** The row painter for one buffer; it tracks the target terminal's cursor and pen as it writes. */
class Painter {
  readonly out: string[] = [];
  private pen: RawAttrs = DEFAULT_ATTRS;
  private penLink = 0;
  /** Target cursor: column (may equal cols: the pending-wrap position) and screen row. */
  private cx = 0;
  private y = 0;
  /** Attributes of the cells of the current target row that nothing has written yet. */
  private fill: RawAttrs = DEFAULT_ATTRS;
  /** Whether the target has scrolled a line off since beginBuffer(). */
  private scrolled = false;
  private readonly cell: IBufferCell;
  private readonly probeCell: IBufferCell;
  private readonly cols: number;
  private readonly rows: number;

  constructor(
    private readonly terminal: Terminal,
    private readonly olderLink: (urlId: number) => LinkData | undefined = () => undefined,
  ) {
    this.cols = terminal.cols;
    this.rows = terminal.rows;
    this.cell = terminal.buffer.normal.getNullCell();
    this.probeCell = terminal.buffer.normal.getNullCell();
  }

  setPen(attrs: RawAttrs): void {
    if (!(attrs.fg === this.pen.fg && attrs.bg === this.pen.bg && attrs.underlineStyle === this.pen.underlineStyle &&
      attrs.underlineColor === this.pen.underlineColor)) {
      this.out.push(sgrOf(attrs));
    }
    if (attrs.urlId !== this.penLink) {
      this.out.push(oscLinkOf(attrs.urlId < 0 ? this.olderLink(attrs.urlId) : linkOf(this.terminal, attrs.urlId)));
      this.penLink = attrs.urlId;
    }
    this.pen = attrs;
  }

  /** Starts a buffer at the target's top-left, all cells default (fresh terminal, or a just-entered alternate screen). */
  beginBuffer(): void {
    this.cx = 0;
    this.y = 0;
    this.fill = DEFAULT_ATTRS;
    this.scrolled = false;
  }

  /**
   * Paints lines [from, to) of `buffer` as yielding slices (one yield per
   * ROWS_PER_CLOCK_CHECK rows; the caller decides whether to pause).
   */
  *paint(buffer: Rows, from: number, to: number, isAlternate: boolean, kept?: KeptLines): Generator<void, void, void> {
    let last = to - 1;
    const count = to - from;
    const first = buffer.getLine(from);
    // The alternate screen has no scrollback, so a throwaway line scrolls away for good; in the normal
    // buffer it is erased with ED 3 the moment it has scrolled off (it is then the only scrollback line).
    const dummyTop = first !== undefined && first.isWrapped && (isAlternate ? count === this.rows : from === 0);
    let dummyPending = dummyTop && !isAlternate;
    if (count <= this.rows && !dummyTop) {
      // Nothing scrolls, so trailing blank lines need no LF at all.
      while (last >= from && this.isBlankLine(buffer.getLine(last)!)) last--;
    }
    if (dummyTop) {
      // The top line continues one that scrolled away: paint a throwaway line above it and wrap
      // into it; the throwaway scrolls off as the screen fills.
      this.setPen(DEFAULT_ATTRS);
      this.out.push(' '.repeat(this.cols));
      this.cx = this.cols;
    }
    let lastCellFix: RawAttrs | undefined;
    let wideAcrossMargin = false;
    for (let i = from; i <= last; i++) {
      // A kept line's text holds from its line feed on: so never the first line, nor one whose next is
      // not painted, nor while a throwaway line waits for its ED 3.
      const key = kept !== undefined && i > from && i < last && !dummyPending ? kept.keyOf(i) : undefined;
      let arrived: PaintState | undefined;
      if (key !== undefined) {
        arrived = { pen: this.pen, penLink: this.penLink, cx: this.cx, y: this.y, lastCellFix, wideAcrossMargin };
        const painted = kept!.lines.take(key, arrived);
        if (painted !== undefined) {
          this.out.push(painted.text);
          this.arriveAt(painted.to);
          lastCellFix = painted.to.lastCellFix;
          wideAcrossMargin = painted.to.wideAcrossMargin;
          if ((i - from) % ROWS_PER_CLOCK_CHECK === ROWS_PER_CLOCK_CHECK - 1) yield;
          continue;
        }
      }
      const mark = this.out.length;
      const line = buffer.getLine(i)!;
      const next = i < last ? buffer.getLine(i + 1) : undefined;
      const nextWrapped = next !== undefined && next.isWrapped;
      const dirty: number[] = [];
      let startX = 0;
      if (i > from || dummyTop) {
        if (line.isWrapped) {
          startX = this.wrapInto(line, wideAcrossMargin, dirty);
          if (lastCellFix !== undefined) this.fixLastCellAbove(lastCellFix);
        } else {
          this.out.push('\r\n');
          this.advanceRow();
        }
      }
      if (dummyPending && this.scrolled) {
        this.out.push(`${CSI}3J`);
        dummyPending = false;
      }
      const painted = this.paintRow(line, startX, nextWrapped ? next : undefined, dirty);
      lastCellFix = painted.lastCellFix;
      wideAcrossMargin = painted.wideAcrossMargin;
      if (key !== undefined) {
        const text = this.out.slice(mark).join('');
        this.out.length = mark;
        this.out.push(text);
        kept!.lines.keep(key, arrived!, text, { pen: this.pen, penLink: this.penLink, cx: this.cx, y: this.y, fill: this.fill, lastCellFix, wideAcrossMargin });
      }
      if ((i - from) % ROWS_PER_CLOCK_CHECK === ROWS_PER_CLOCK_CHECK - 1) yield;
    }
  }

  /** Where a kept line's text leaves the target: the pen, column, row and fill it left (its line feed scrolled from the bottom row). */
  private arriveAt(state: LeftState): void {
    if (this.y === this.rows - 1) this.scrolled = true;
    this.pen = state.pen;
    this.penLink = state.penLink;
    this.cx = state.cx;
    this.y = state.y;
    this.fill = state.fill;
  }

  private isBlankLine(line: IBufferLine): boolean {
    if (line.isWrapped) return false;
    for (let x = 0; x < this.cols; x++) {
      const cell = line.getCell(x, this.cell)!;
      if (cell.getChars() !== '' || rawFg(cell) !== 0 || !sameAttrs(rawAttrsOf(cell), DEFAULT_ATTRS)) return false;
    }
    return true;
  }

  /** After a line feed or a wrap: the target row below, or a fresh one if the screen scrolled. */
  private advanceRow(): void {
    if (this.y === this.rows - 1) {
      this.scrolled = true;
      // Scrolling fills the new line with the pen's background (BCE).
      this.fill = eraseAttrsFor(this.pen.bg);
    } else {
      this.y++;
      this.fill = DEFAULT_ATTRS;
    }
    this.cx = 0;
  }

  /** Crosses the right margin by printing the continuation's first cell; returns the first column still to paint. */
  private wrapInto(line: IBufferLine, wideAcrossMargin: boolean, dirty: number[]): number {
    const cell = line.getCell(0, this.cell)!;
    const chars = cell.getChars();
    if (wideAcrossMargin) this.moveTo(this.cols - 1);
    if (chars !== '' || wideAcrossMargin) {
      // wideAcrossMargin: the cursor stands at the last column, and this wide character does not
      // fit there, so the terminal blanks that column with the pen and wraps — as the original did.
      this.setPen(rawAttrsOf(cell));
      this.out.push(chars);
      this.advanceRow();
      this.cx = cell.getWidth();
      return this.cx;
    }
    // A continuation that begins with a blank: wrap with a placeholder, come back, and paint column 0 properly.
    const attrs = rawAttrsOf(cell);
    this.setPen(isEraseBlank(attrs) ? attrs : DEFAULT_ATTRS);
    this.out.push(' ');
    this.advanceRow();
    this.out.push('\r');
    this.cx = 0;
    dirty.push(0);
    return 0;
  }

  /** The line above ended in a blank at the last column, which had to be printed to wrap: erase it now. */
  private fixLastCellAbove(attrs: RawAttrs): void {
    const back = this.cx;
    this.out.push(`${CSI}A${CSI}${this.cols}G`);
    this.setPen(attrs);
    this.out.push(`${CSI}X${CSI}B${CSI}${back + 1}G`);
    this.cx = back;
  }

  private moveTo(x: number): void {
    if (x === this.cx) return;
    if (x > this.cx && this.cx < this.cols) this.out.push(x - this.cx === 1 ? `${CSI}C` : `${CSI}${x - this.cx}C`);
    else this.out.push(`${CSI}${x + 1}G`);
    this.cx = x;
  }

  private paintRow(
    line: IBufferLine, startX: number, wrappedNext: IBufferLine | undefined, dirty: number[],
  ): { lastCellFix: RawAttrs | undefined; wideAcrossMargin: boolean } {
    const cols = this.cols;
    const cell = this.cell;
    const mustFill = wrappedNext !== undefined;
    let endX = cols;
    if (!mustFill) {
      while (endX > startX && this.isFillCell(line.getCell(endX - 1, cell)!, endX - 1, dirty)) endX--;
    }
    // Styled blanks first: making one disturbs the cell to its right, which the main pass then paints.
    let fixed: number[] | undefined;
    let wideAcrossMargin = false;
    for (let x = startX; x < endX; x++) {
      line.getCell(x, cell);
      if (cell.getChars() !== '' || cell.getWidth() !== 1) continue;
      const attrs = rawAttrsOf(cell);
      if (isEraseBlank(attrs)) continue;
      if (x < cols - 1) {
        this.moveTo(x);
        this.setPen(attrs);
        this.out.push(WIDE_PROBE);
        this.out.push(`${CSI}${x + 2}G `);
        this.cx = x + 2;
        (fixed ??= []).push(x);
        dirty.push(x + 1);
      } else if (mustFill && this.startsWithWideLike(wrappedNext, attrs)) {
        (fixed ??= []).push(x);
        wideAcrossMargin = true;
      } else if (!mustFill) {
        // The last column: put a wide character over the last two columns, then insert (IRM) one
        // cell before it; xterm blanks the half that lands on the last column with the pen.
        this.moveTo(cols - 2);
        this.out.push(`${WIDE_PROBE}${CSI}${cols - 1}G${CSI}4h`);
        this.setPen(attrs);
        this.out.push(` ${CSI}4l`);
        this.cx = cols - 1;
        (fixed ??= []).push(x);
        dirty.push(cols - 2);
      }
      // Otherwise (a soft-wrapped row) a styled space stands in for it (see screen.ts, known limits).
    }
    if (fixed !== undefined) this.moveTo(startX);
    for (const d of dirty) if (d + 1 > endX) endX = d + 1;

    let lastCellFix: RawAttrs | undefined;
    let x = startX;
    while (x < endX) {
      line.getCell(x, cell);
      const width = cell.getWidth();
      if (width === 0 || (fixed !== undefined && fixed.includes(x))) {
        x++;
        continue;
      }
      const chars = cell.getChars();
      if (chars === '') {
        const attrs = rawAttrsOf(cell);
        if (!isEraseBlank(attrs)) {
          this.moveTo(x);
          this.setPen(attrs);
          this.out.push(' ');
          this.cx = x + 1;
          x++;
          continue;
        }
        if (mustFill && x === cols - 1) {
          // Must be printed to reach the margin; erased once the wrap has happened.
          lastCellFix = attrs;
          break;
        }
        if (!dirty.includes(x) && sameAttrs(attrs, this.fill)) {
          x++;
          continue;
        }
        // A run of blanks with this background, erased in one go (ECH does not move the cursor).
        let end = x + 1;
        const limit = mustFill ? cols - 1 : endX;
        while (end < limit) {
          line.getCell(end, this.probeCell);
          if (this.probeCell.getChars() !== '' || this.probeCell.getWidth() !== 1 || !sameAttrs(rawAttrsOf(this.probeCell), attrs)) break;
          end++;
        }
        this.moveTo(x);
        this.setPen(attrs);
        this.out.push(end - x === 1 ? `${CSI}X` : `${CSI}${end - x}X`);
        x = end;
        continue;
      }
      this.moveTo(x);
      // Consecutive characters with the same look: compare the raw words before building attributes.
      this.setPen(rawAttrsOf(cell));
      let text = chars;
      let nextX = x + width;
      const fg = rawFg(cell);
      const bg = rawBg(cell);
      const ext = rawExtended(cell);
      while (nextX < endX) {
        line.getCell(nextX, this.probeCell);
        const w = this.probeCell.getWidth();
        const c = this.probeCell.getChars();
        if (c === '' || w === 0 || rawFg(this.probeCell) !== fg || rawBg(this.probeCell) !== bg ||
          rawExtended(this.probeCell) !== ext) break;
        text += c;
        nextX += w;
      }
      this.out.push(text);
      this.cx = nextX;
      x = nextX;
    }
    if (mustFill && !wideAcrossMargin && this.cx !== cols) {
      // The last cell was a blank left unpainted: print a placeholder to stand at the margin.
      const lastAttrs = lastCellFix ?? rawAttrsOf(line.getCell(cols - 1, cell)!);
      this.moveTo(cols - 1);
      this.out.push(' ');
      this.cx = cols;
      lastCellFix = lastAttrs;
    }
    return { lastCellFix, wideAcrossMargin };
  }

  private isFillCell(cell: IBufferCell, x: number, dirty: number[]): boolean {
    return cell.getChars() === '' && cell.getWidth() === 1 && !dirty.includes(x) && sameAttrs(rawAttrsOf(cell), this.fill);
  }

  private startsWithWideLike(line: IBufferLine, attrs: RawAttrs): boolean {
    const first = line.getCell(0, this.probeCell)!;
    return first.getWidth() === 2 && sameAttrs(rawAttrsOf(first), attrs);
  }

  // ---- state outside the cells ----

  /**
   * DECSC in the target with the original's saved position, attributes and
   * charset. `cells` is the buffer whose cells the target shows now (a
   * column saved in the pending-wrap position is re-entered past its row's
   * last cell), or null when the target's are thrown away.
   */
  savedCursor(state: BufferInternals, cells: IBuffer | null): void {
    const saved = state.saved;
    if (saved.x === 0 && saved.absY - state.ybase <= 0 && saved.fg === 0 && saved.bg === 0 && saved.charset === undefined) return;
    const blank = this.placeSaved(state, cells);
    const designator = saved.charset === undefined ? undefined : charsetDesignator(saved.charset);
    if (designator !== undefined) this.out.push(`${ESC}(${designator}${ESC}7${ESC}(B`);
    else this.out.push(`${ESC}7`);
    if (blank !== undefined) this.eraseLastCell(blank.row, blank.attrs);
  }

  /**
   * Enters the alternate screen the way programs do, with 1049 standing at
   * the normal screen's saved cursor with its saved pen and charset. In
   * xterm 1049 saves the cursor as DECSC does, in the same place; tmux (and
   * others) keep 1049's save apart from DECSC's and restore only it when the
   * program leaves, so entering with 1047 after a DECSC left their cursor
   * wherever the alternate screen had it. Both saves are set here.
   */
  enterAlternateScreen(normal: BufferInternals, normalCells: IBuffer): void {
    const saved = normal.saved;
    // A blank last cell printed over to stand past it stays a space: 1049 must save from there (see known limits).
    this.placeSaved(normal, normalCells);
    const savedBg = saved.bg & ~(BG_HAS_EXTENDED | BG_PROTECTED);
    const designator = saved.charset === undefined ? undefined : charsetDesignator(saved.charset);
    this.out.push(`${designator === undefined ? '' : `${ESC}(${designator}`}${ESC}7${CSI}?1049h${designator === undefined ? '' : `${ESC}(B`}`);
    // Entering filled the alternate screen with that pen's background colour: the painter starts from default blanks.
    const filledWithColour = eraseAttrsFor(savedBg).bg !== 0;
    this.setPen(DEFAULT_ATTRS);
    this.out.push(filledWithColour ? `${CSI}H${CSI}2J` : `${CSI}H`);
  }

  /**
   * Stands where the saved cursor stood, with its fg and bg words exactly
   * (DECSC keeps them whole: the bg's flag decides whether a DECRC shows the
   * pen's underline style and link). Says which blank last cell it printed
   * over to stand past the last column, for eraseLastCell.
   */
  private placeSaved(state: BufferInternals, cells: IBuffer | null): { row: number; attrs: RawAttrs } | undefined {
    const saved = state.saved;
    const relY = Math.max(0, Math.min(this.rows - 1, saved.absY - state.ybase));
    const underline = (saved.fg & FG_UNDERLINE) !== 0;
    const shows = (saved.bg & BG_HAS_EXTENDED) !== 0;
    const bg = saved.bg & ~(BG_HAS_EXTENDED | BG_PROTECTED);
    if (underline && !shows) {
      // The flag without a record showing: SGR 4 always shows one. Made as a program makes it: save
      // the pen with SGR 4, empty the record (SGR 24), DECRC (the flag comes back, the record stays
      // empty), and an OSC 8 that looks at the record again and hides it.
      this.out.push(`${CSI}${relY + 1};${Math.min(saved.x, this.cols - 1) + 1}H`);
      this.setPen({ fg: saved.fg, bg, underlineStyle: 0, underlineColor: 0, urlId: 0 });
      this.out.push(`${ESC}7${CSI}24m${ESC}8${oscLinkOf(undefined)}`);
      this.forgetPen();
      // Past the last column of the alternate screen this stays at the last column (reprinting would change the pen).
      if (saved.x >= this.cols) {
        if (cells === null) this.out.push(`${CSI}${relY + 1};${this.cols}H `);
        else if (cells.type === 'normal') this.visitToStandPast(relY);
      }
      return undefined;
    }
    let blank: { row: number; attrs: RawAttrs } | undefined;
    if (saved.x < this.cols) this.out.push(`${CSI}${relY + 1};${saved.x + 1}H`);
    else blank = this.standPastLastCell(cells, relY);
    if (underline || !shows) {
      // SGR 4 shows the record along with the flag; with neither, no link may be open (it would show).
      this.setPen({ fg: saved.fg, bg, underlineStyle: 0, underlineColor: 0, urlId: underline ? this.penLink : 0 });
    } else {
      // Shown without the flag: it was saved inside a link, and an open link makes it show.
      this.setPen({ fg: saved.fg, bg, underlineStyle: 0, underlineColor: 0, urlId: this.penLink });
      if (this.penLink === 0) {
        this.out.push(oscLinkOf(SAVED_PEN_LINK));
        this.penLink = Number.NaN; // a link no cell has: whatever link comes next is written
      }
    }
    return blank;
  }

  /**
   * Stands past the last column of screen row `row` (CUP row `cupRow`, which
   * origin mode may make another), the pending-wrap position: only printing
   * the last column gets there, so its character is printed again (the
   * first half, for a wide one), and a blank as a space, which is returned,
   * to be erased where the cursor need not stay there. (A visit to the
   * alternate screen would leave the cells alone, but tmux, as the outer
   * terminal of tend attach, does not keep the pending wrap across one.)
   * `cells` null: the target's cells are thrown away anyway.
   */
  private standPastLastCell(cells: IBuffer | null, row: number, cupRow = row + 1): { row: number; attrs: RawAttrs } | undefined {
    if (cells === null) {
      this.out.push(`${CSI}${cupRow};${this.cols}H `);
      return undefined;
    }
    const line = cells.getLine(cells.baseY + row)!;
    let cellX = this.cols - 1;
    let cell = line.getCell(cellX, this.cell)!;
    if (cell.getWidth() === 0 && cellX > 0) cell = line.getCell(--cellX, this.cell)!;
    const chars = cell.getChars();
    this.out.push(`${CSI}${cupRow};${cellX + 1}H`);
    const attrs = rawAttrsOf(cell);
    this.setPen(attrs);
    this.out.push(chars === '' ? ' ' : chars);
    return chars === '' ? { row, attrs } : undefined;
  }

  /** Makes the space standPastLastCell printed a blank again, where an erase can (a styled blank stays a space). */
  private eraseLastCell(row: number, attrs: RawAttrs): void {
    if (!isEraseBlank(attrs)) return;
    this.out.push(`${CSI}${row + 1};${this.cols}H`);
    this.setPen(attrs);
    this.out.push(`${CSI}X`);
  }

  tabStops(state: BufferInternals): void {
    const stops = state.tabStops;
    let isDefault = true;
    for (let x = 0, i = 0; x < this.cols; x++) {
      const expected = x % TAB_WIDTH_COLUMNS === 0;
      const has = stops[i] === x;
      if (has) i++;
      if (has !== expected) {
        isDefault = false;
        break;
      }
    }
    if (isDefault) return;
    this.out.push(`${CSI}3g`);
    for (const x of stops) this.out.push(`${CSI}${x + 1}G${ESC}H`);
  }

  scrollRegion(state: BufferInternals): void {
    if (state.scrollTop !== 0 || state.scrollBottom !== this.rows - 1) {
      this.out.push(`${CSI}${state.scrollTop + 1};${state.scrollBottom + 1}r`);
    }
  }

  /**
   * Places the final cursor; `x === cols` is the pending-wrap position,
   * re-entered by standPastLastCell. `origin`: origin mode is on, with this
   * scroll region (CUP counts rows from its top and cannot leave it).
   */
  cursor(buffer: IBuffer, origin: { top: number; bottom: number } | undefined): void {
    const y = buffer.cursorY;
    const x = buffer.cursorX;
    const row = origin === undefined ? y + 1 : y - origin.top + 1;
    if (x < this.cols) {
      if (origin !== undefined && (y < origin.top || y > origin.bottom) && buffer.type === 'normal') {
        // Outside the region with origin mode on (xterm gets there, e.g. by leaving the alternate
        // screen): placed on a visit to the alternate screen, whose region is the whole screen, and
        // brought back with it.
        this.out.push(`${CSI}?1047h${CSI}${y + 1};${x + 1}H${CSI}?1047l`);
        return;
      }
      this.out.push(`${CSI}${row};${x + 1}H`);
      return;
    }
    // A blank last cell is left a space with its attributes (see known limits).
    this.standPastLastCell(buffer, y, row);
  }

  /**
   * Makes the pen a DECRC has to make (pen-state.ts), after cursor(): the
   * record (link, style, colour), DECRC to the saved fg and bg, the other
   * flags and colours, an OSC 8 to show the record if the saved bg did not,
   * then the cursor put back as the plan says.
   */
  penByDecrc(plan: Extract<PenPlan, { kind: 'decrc' }>, internals: TerminalInternals, buffer: IBuffer, origin: { top: number; bottom: number } | undefined): void {
    const y = buffer.cursorY;
    const ext = internals.penExtended;
    const link = ext.urlId === 0 ? undefined : linkOf(this.terminal, ext.urlId);
    // SGR 0 keeps the link: the link first, then the style and colour.
    this.out.push(oscLinkOf(link));
    this.out.push(sgrOf({ fg: 0, bg: 0, underlineStyle: ext.underlineStyle, underlineColor: ext.underlineColor, urlId: 0 }));
    this.out.push(`${ESC}8`);
    this.out.push(sgrKeepingUnderline(plan.pen));
    if (plan.showRecord) this.out.push(oscLinkOf(link));
    if (plan.back === 'cup') this.cursor(buffer, origin);
    else if (plan.back === 'visit') this.visitToStandPast(y);
    else {
      // The last cell looks exactly like the pen: printed again with it, it stays as it is.
      const line = buffer.getLine(buffer.baseY + y)!;
      let cellX = this.cols - 1;
      if (line.getCell(cellX, this.cell)!.getWidth() === 0) cellX--;
      const row = origin === undefined ? y + 1 : y - origin.top + 1;
      this.out.push(`${CSI}${row};${cellX + 1}H${line.getCell(cellX, this.cell)!.getChars()}`);
    }
    this.pen = plan.pen;
    this.penLink = plan.pen.urlId;
  }

  /**
   * Stands past the last column of the normal screen's row `row` without
   * touching its cells or the pen: prints there on a short visit to the
   * alternate screen (whose cells are thrown away as it is left, while the
   * cursor comes back with it: so in xterm; tmux loses the pending wrap and
   * leaves it on the last column). Its region is the whole screen (it is set
   * only while it is active), so the row is the screen's. Only where a
   * reprint would change the pen.
   */
  private visitToStandPast(row: number): void {
    this.out.push(`${CSI}?1047h${CSI}${row + 1};${this.cols}H ${CSI}?1047l`);
  }

  /**
   * After DECRC the target's pen is whatever was saved (and its bg decides
   * whether the link shows): write the next one in full, link included.
   */
  forgetPen(): void {
    this.penLink = Number.NaN;
    this.pen = { fg: -1, bg: -1, underlineStyle: -1, underlineColor: -1, urlId: this.penLink };
  }

  push(text: string): void {
    this.out.push(text);
  }
}

function modeText(terminal: Terminal, internals: TerminalInternals): string {
  const m = terminal.modes;
  let s = '';
  if (m.applicationCursorKeysMode) s += `${CSI}?1h`;
  if (m.applicationKeypadMode) s += `${CSI}?66h`;
  if (m.bracketedPasteMode) s += `${CSI}?2004h`;
  if (m.sendFocusMode) s += `${CSI}?1004h`;
  if (m.reverseWraparoundMode) s += `${CSI}?45h`;
  const tracking = { none: '', x10: '9', vt200: '1000', drag: '1002', any: '1003' }[m.mouseTrackingMode];
  if (tracking !== '') s += `${CSI}?${tracking}h`;
  if (internals.mouseEncoding === 'SGR') s += `${CSI}?1006h`;
  else if (internals.mouseEncoding === 'SGR_PIXELS') s += `${CSI}?1016h`;
  if (internals.cursorStyle !== undefined) {
    const steady = { block: 2, underline: 4, bar: 6 }[internals.cursorStyle];
    s += `${CSI}${steady - (internals.cursorBlink ? 1 : 0)} q`;
  }
  if (internals.cursorHidden) s += `${CSI}?25l`;
  if (m.synchronizedOutputMode) s += `${CSI}?2026h`;
  return s;
}

/**
 * After DECRC the active table can differ from the designated one (DECRC
 * restores the table DECSC saved). A restore gets there the same way: DECRC
 * with the saved cursor already in place. Only when the active table is not
 * the saved one either does this give up (the designated one stays active).
 */
function needsRestoredCharset(internals: TerminalInternals, active: BufferInternals): boolean {
  return internals.activeCharset !== internals.charsets[internals.glevel] && internals.activeCharset === active.saved.charset;
}

function charsetText(internals: TerminalInternals): string {
  const intermediates = ['(', ')', '*', '+'];
  let s = '';
  for (let g = 0; g < 4; g++) {
    const table = internals.charsets[g];
    if (table === undefined) continue;
    const designator = charsetDesignator(table);
    if (designator !== undefined) s += `${ESC}${intermediates[g]}${designator}`;
  }
  // SI is level 0 already; SO for G1, LS2/LS3 (ESC n / ESC o) for G2/G3.
  if (internals.glevel === 1) s += '\x0e';
  else if (internals.glevel === 2) s += `${ESC}n`;
  else if (internals.glevel === 3) s += `${ESC}o`;
  return s;
}

function isDefaultSaved(state: BufferInternals): boolean {
  const s = state.saved;
  return s.x === 0 && s.absY - state.ybase <= 0 && s.fg === 0 && s.bg === 0 && s.charset === undefined;
}

/**
 * The snapshot as a generator: each `yield` is a point where a sliced caller
 * may hand the event loop back. The terminal must not change until it is done.
 */
export function* snapshotSlices(terminal: Terminal, internals: TerminalInternals, request: SnapshotRequest): Generator<void, SnapshotResult, void> {
  const painter = new Painter(terminal, request.older?.link);
  const normal = terminal.buffer.normal;
  const isAlternate = terminal.buffer.active.type === 'alternate';
  const liveIncluded = Math.max(0, Math.min(request.scrollbackRows, normal.baseY));
  const from = normal.baseY - liveIncluded;
  // History rows go above the live ones only when every live scrollback row is in.
  const older = request.older !== undefined && liveIncluded === normal.baseY ? request.older : undefined;
  const olderCount = older === undefined ? 0 : Math.min(older.count, Math.max(0, request.scrollbackRows - liveIncluded));
  const olderStart = (older?.count ?? 0) - olderCount;
  const rows: Rows = older === undefined || olderCount === 0 ? normal : {
    getLine: (i) => (i < olderCount ? older.getLine(olderStart + i) : normal.getLine(from + i - olderCount)),
  };
  const included = liveIncluded + olderCount;
  const painted = request.painted;
  let kept: KeptLines | undefined;
  if (painted !== undefined) {
    painted.lines.sizeIs(terminal.cols, terminal.rows);
    kept = {
      lines: painted.lines,
      keyOf: (i) => (i < olderCount ? older!.keyOf?.(olderStart + i) : painted.liveKey(olderCount === 0 ? i : from + i - olderCount)),
    };
  }

  painter.beginBuffer();
  yield* painter.paint(rows, olderCount === 0 ? from : 0, olderCount === 0 ? normal.length : olderCount + normal.length - from, false, kept);
  // Saved cursor, tab stops and region belong to each buffer: set each while its buffer is active.
  // xterm keeps the saved row as ybase + y, i.e. relative to the screen's top, which the target's screen shares.
  painter.tabStops(internals.normal);
  painter.scrollRegion(internals.normal);
  if (!isAlternate) {
    painter.savedCursor(internals.normal, normal);
    if (!isDefaultSaved(internals.alternate)) {
      // The alternate buffer keeps its saved cursor between visits: set it on a short visit.
      painter.setPen(DEFAULT_ATTRS);
      painter.push(`${CSI}?1047h`);
      painter.savedCursor(internals.alternate, null);
      painter.setPen(DEFAULT_ATTRS);
      painter.push(`${CSI}?1047l`);
    }
  } else {
    const alternate = terminal.buffer.alternate;
    painter.enterAlternateScreen(internals.normal, normal);
    painter.beginBuffer();
    yield* painter.paint(alternate, 0, alternate.length, true);
    painter.savedCursor(internals.alternate, alternate);
    painter.tabStops(internals.alternate);
    painter.scrollRegion(internals.alternate);
  }
  const active = isAlternate ? internals.alternate : internals.normal;
  const m = terminal.modes;
  // Charsets go after the cursor's pending-wrap reprint (which prints plain text) unless a DECRC
  // is needed for them, which moves the cursor and so must come first.
  const restoreCharset = needsRestoredCharset(internals, active);
  if (restoreCharset) {
    painter.push(`${charsetText(internals)}${ESC}8`);
    painter.forgetPen(); // the DECRC took the saved pen: a reprinted last cell must set its own
  }
  if (m.originMode) painter.push(`${CSI}?6h`);
  const origin = m.originMode ? { top: active.scrollTop, bottom: active.scrollBottom } : undefined;
  painter.cursor(terminal.buffer.active, origin);
  const plan = penPlan(terminal, internals);
  const byDecrc = plan.kind === 'decrc';
  if (byDecrc) painter.penByDecrc(plan, internals, terminal.buffer.active, origin);
  else {
    // (a pen no stream makes is written as the nearest one SGR makes: the same look now)
    painter.forgetPen();
    painter.setPen(plan.pen);
  }
  if (!restoreCharset) {
    // A DECRC made the saved charset the active one: G0 as designated puts it back (ASCII has no table to designate).
    const reassert = byDecrc && internals.glevel === 0 && internals.charsets[0] === undefined;
    painter.push(charsetText(internals) + (reassert ? `${ESC}(B` : ''));
  }
  if (!m.wraparoundMode) painter.push(`${CSI}?7l`);
  if (m.insertMode) painter.push(`${CSI}4h`);
  painter.push(modeText(terminal, internals));
  if (request.title !== '') painter.push(`${ESC}]2;${request.title}\x07`);
  return { data: painter.out.join(''), scrollbackRows: included };
}

export function snapshotNow(terminal: Terminal, internals: TerminalInternals, request: SnapshotRequest): SnapshotResult {
  const slices = snapshotSlices(terminal, internals, request);
  for (;;) {
    const step = slices.next();
    if (step.done) return step.value;
  }
}
