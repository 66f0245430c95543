// History rows as the snapshot painter reads them: lines of the terminal's
// width, decoded one row at a time as the painter walks down (so a snapshot
// with 50 000 rows of history never holds 50 000 xterm rows at once).
// A row wider than the terminal becomes several lines (history-lines.ts), so
// a first pass reads each row's width from its header to number the lines.
import type { IBufferLine } from '@xterm/headless';
import type { History } from './history.js';
import type { HistoryLines } from './history-lines.js';

/** Lines of one row (a row wider than the screen is painted as several) that rowLineOf tells apart. */
export const LINES_PER_ROW_KEYED = 256;

export class OlderRows {
  /** Lines in all. */
  readonly count: number;
  /** prefix[k]: index of the first line of row from + k; prefix[n] = count. */
  private readonly prefix: Int32Array;
  private readonly widths: Int32Array;
  private cached: { k: number; lines: IBufferLine[] } | null = null;

  constructor(
    private readonly history: History,
    private readonly builder: HistoryLines,
    private readonly from: number,
    to: number,
    private readonly cols: number,
    private readonly blank: () => IBufferLine,
  ) {
    const n = Math.max(0, to - from);
    this.prefix = new Int32Array(n + 1);
    this.widths = new Int32Array(n);
    let lines = 0;
    for (let k = 0; k < n; k++) {
      this.prefix[k] = lines;
      const width = history.rowWidth(from + k);
      this.widths[k] = width ?? cols;
      lines += width === undefined || width <= cols ? 1 : this.rowLines(k).length;
    }
    this.prefix[n] = lines;
    this.count = lines;
  }

  /** The row number line `i` belongs to. */
  rowOfLine(i: number): number {
    return this.from + this.indexOfLine(i);
  }

  private indexOfLine(i: number): number {
    let lo = 0;
    let hi = this.widths.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.prefix[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Line `i` as (row, line of the row): the row number times
   * LINES_PER_ROW_KEYED plus the line's index in its row, or undefined past
   * that many lines of one row.
   */
  rowLineOf(i: number): number | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const k = this.indexOfLine(i);
    const j = i - this.prefix[k]!;
    return j < LINES_PER_ROW_KEYED ? (this.from + k) * LINES_PER_ROW_KEYED + j : undefined;
  }

  getLine(i: number): IBufferLine | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const lo = this.indexOfLine(i);
    const lines = this.cached?.k === lo ? this.cached.lines : this.rowLines(lo);
    this.cached = { k: lo, lines };
    return lines[i - this.prefix[lo]!] ?? this.blank();
  }

  private rowLines(k: number): IBufferLine[] {
    const r = this.from + k;
    const row = this.history.row(r);
    // Dropped by the server's budget since the first pass: an empty row stands in.
    if (row === undefined) return [this.blank()];
    const prevCols = k > 0 ? this.widths[k - 1] : this.history.rowWidth(r - 1);
    return this.builder.paintLines(r, row, this.cols, prevCols);
  }
}
