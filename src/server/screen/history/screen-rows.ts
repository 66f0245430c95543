// A screen's rows as readers see them: the history below, the live normal
// buffer above, numbered as one sequence (see history.ts). Everything that
// reads past the live rows — snapshots with deep scrollback, `tend screen`,
// a viewer's older rows, the command index — goes through here, so history
// rows and live rows read alike.
import type { IBufferLine, Terminal } from '@xterm/headless';
import type { SnapshotRequest } from '../snapshot-writer.js';
import type { TextRows } from '../screen-text.js';
import { lineFactory, linkOf, type LineFactory, type LinkData } from '../xterm-private.js';
import type { History } from './history.js';
import { HistoryLines } from './history-lines.js';
import { OlderRows } from './older-rows.js';
import { PaintedLines } from '../painted-lines.js';
import type { ScrollbackCount } from '../../../protocol/api/index.js';

/** Distinct links one history-row builder names before a fresh one takes over (bounds its map). */
const MAX_BUILDER_LINKS = 10_000;

export class ScreenRows {
  private factory: LineFactory | undefined;
  private builder: HistoryLines | undefined;
  /** Snapshot text of lines that scrolled off, kept for later snapshots (painted-lines.ts). */
  readonly painted = new PaintedLines();

  constructor(
    readonly terminal: Terminal,
    private readonly history: History,
  ) {}

  /** The row number of live line 0 of the normal buffer (rows before it are history). */
  get rowBase(): number {
    return this.history.endRow;
  }

  /** The oldest row still held (history or live). */
  get firstRow(): number {
    return this.history.rowCount > 0 ? this.history.firstRow : this.history.endRow;
  }

  /** Row `r` of the normal buffer, history or live, at its own width (undefined if not held). */
  lineAt(r: number): IBufferLine | undefined {
    const base = this.history.endRow;
    if (r >= base) return this.terminal.buffer.normal.getLine(r - base);
    const row = this.history.row(r);
    return row === undefined ? undefined : this.historyLines().line(r, row);
  }

  /** The link a cell of a row from lineAt() names (history rows carry negative ids). */
  linkOf(urlId: number): LinkData | undefined {
    return urlId < 0 ? this.builder?.link(urlId) : linkOf(this.terminal, urlId);
  }

  /** The row number of the top scrollback row a snapshot with `scrollbackRows` would show now. */
  snapshotTopRow(scrollbackRows: number): number {
    const normal = this.terminal.buffer.normal;
    return Math.max(this.firstRow, this.rowBase + normal.baseY - scrollbackRows);
  }

  /**
   * History rows to paint above the live scrollback for a snapshot of
   * `scrollbackRows` (undefined if none are needed), and the row number of
   * the snapshot's top scrollback row.
   */
  older(scrollbackRows: number, withHistory: boolean): { request: SnapshotRequest['older']; firstRow: number; painted: SnapshotRequest['painted'] } {
    const normal = this.terminal.buffer.normal;
    const liveTop = this.rowBase + normal.baseY - Math.min(scrollbackRows, normal.baseY);
    const wanted = scrollbackRows - normal.baseY;
    const painted = { lines: this.painted, liveKey: (index: number) => this.liveKey(index) };
    if (!withHistory || wanted <= 0 || this.history.rowCount === 0) return { request: undefined, firstRow: liveTop, painted };
    const builder = this.historyLines();
    const to = this.history.endRow;
    const from = Math.max(this.history.firstRow, to - wanted);
    const factory = this.lines();
    const cols = this.terminal.cols;
    const rows = new OlderRows(this.history, builder, from, to, cols, () => factory.view(factory.line(cols, false)));
    // Split rows (painted narrower than written) make more lines than rows: the snapshot keeps the last ones.
    const firstRow = rows.count === 0 ? liveTop : rows.rowOfLine(Math.max(0, rows.count - wanted));
    // History lines are keyed apart from live ones (a row painted from the history can differ from
    // itself painted live), and the last one by its next line being live (it moves to the history later).
    const lastLine = rows.count - 1;
    const keyOf = (i: number): number | undefined => {
      if (i === lastLine && normal.baseY === 0) return undefined; // its next line is on the screen, which changes
      const rowLine = rows.rowLineOf(i);
      return rowLine === undefined ? undefined : rowLine * 2 + (i === lastLine ? 1 : 0);
    };
    return {
      request: { count: rows.count, getLine: (i) => rows.getLine(i), link: (urlId) => builder.link(urlId), keyOf },
      firstRow,
      painted,
    };
  }

  /**
   * The key line `index` of the live normal buffer is kept painted under
   * (negative: apart from history lines): only while it and the line below
   * it are in the scrollback, where nothing but a resize, an erase or a
   * reset changes them (the screen then forgets the painted lines).
   */
  private liveKey(index: number): number | undefined {
    return index + 1 < this.terminal.buffer.normal.baseY ? -(this.history.endRow + index + 1) : undefined;
  }

  /** Forgets the painted lines: the rows they were painted from were reflowed, erased or replaced. */
  forgetPainted(): void {
    this.painted.forget();
  }

  /** Rows of the active buffer from `scrollbackRows` above the screen to its bottom; history rows first where the live ones run out. */
  textRows(scrollbackRows: number): TextRows {
    const buffer = this.terminal.buffer.active;
    const wanted = Math.max(0, scrollbackRows);
    const liveFrom = Math.max(0, buffer.baseY - wanted);
    const liveCount = buffer.baseY + this.terminal.rows - liveFrom;
    const base = this.rowBase;
    const olderWanted = buffer.type === 'normal' ? wanted - buffer.baseY : 0;
    const olderFrom = olderWanted > 0 ? Math.max(this.history.firstRow, base - olderWanted) : base;
    const olderCount = base - olderFrom;
    return {
      count: olderCount + liveCount,
      getLine: (i) => (i < olderCount ? this.lineAt(olderFrom + i) : buffer.getLine(liveFrom + i - olderCount)),
      link: (urlId) => this.linkOf(urlId),
    };
  }

  /**
   * How `wanted` rows of scrollback above the active screen come out: rows
   * shown, rows there are (live and history), and rows missing (dropped by
   * a memory budget past the oldest one held, or lost from a damaged history
   * file; counted only when the request reaches past the oldest row held:
   * then what is shown is not all the program wrote).
   */
  scrollbackShown(wanted: number): ScrollbackCount {
    const buffer = this.terminal.buffer.active;
    const available = buffer.baseY + (buffer.type === 'normal' ? this.history.rowCount : 0);
    const shown = Math.min(wanted, available);
    const beyond = buffer.type === 'normal' && wanted > available;
    return { shown, available, dropped: beyond ? this.history.droppedRows : 0, lost: beyond ? this.history.lostRows : 0 };
  }

  /** Which rows older than row `before` (at most `count`) there are, and whether they reach the oldest held. */
  olderRange(before: number, count: number): { from: number; to: number; oldest: boolean; dropped: number } {
    const lowest = this.firstRow;
    const to = Math.max(lowest, Math.min(before, this.rowBase + this.terminal.buffer.normal.length));
    const from = Math.max(lowest, to - Math.max(0, count));
    const oldest = from <= lowest;
    return { from, to, oldest, dropped: oldest ? this.history.droppedRows : 0 };
  }

  private lines(): LineFactory {
    this.factory ??= lineFactory(this.terminal);
    return this.factory;
  }

  /**
   * The builder of history rows as xterm rows. Kept, so the link ids it gives
   * rows stay valid between calls (linkOf resolves them); replaced when it
   * has named many links (whoever still holds the old one keeps using it).
   */
  private historyLines(): HistoryLines {
    if (this.builder === undefined || this.builder.linkCount > MAX_BUILDER_LINKS) {
      // Painted lines name links by the old builder's ids, which the new one gives to other links.
      this.painted.forget();
      this.builder = new HistoryLines(this.lines(), (r, link) => this.history.linkOf(r, link));
    }
    return this.builder;
  }
}
