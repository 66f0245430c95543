// History rows turned back into xterm rows, so everything that reads a
// terminal's rows (the snapshot painter, `tend screen`, command output) reads
// history the same way: through IBufferLine.
//
// A row keeps the width it had when it left the live buffer. Read as text it
// is just that row. Painted into a terminal of another width (the session
// was resized since), a narrower row is padded and a wider one is cut into
// rows of the new width, the later ones wrapped onto the first — so nothing
// is lost, though history is not reflowed the way xterm reflows live rows.
// A row only continues the row above (its wrap flag) when both are painted
// at the width they were written at.
import type { IBufferLine } from '@xterm/headless';
import type { LineFactory, LinkData, RawLine } from '../xterm-private.js';
import type { DecodedRow } from './row-codec.js';

const CELL_WORDS = 3;
const WIDTH_SHIFT = 22;

export class HistoryLines {
  /** Links seen in the rows built, under ids of their own (negative: never a terminal's). */
  private readonly linkIds = new Map<string, number>();
  private readonly linkData = new Map<number, LinkData>();

  constructor(
    private readonly factory: LineFactory,
    /** The link a row's cell names, resolved by the history. */
    private readonly linkOf: (row: number, link: number) => LinkData | undefined,
  ) {}

  /** Distinct links named so far. */
  get linkCount(): number {
    return this.linkData.size;
  }

  /** Resolves a link id of a built row (undefined for ids that are not this builder's). */
  link(urlId: number): LinkData | undefined {
    return this.linkData.get(urlId);
  }

  /** Row `r` at its own width, as written. */
  line(r: number, row: DecodedRow): IBufferLine {
    return this.factory.view(this.build(r, row, 0, row.cols, row.cols, row.wrapped));
  }

  /**
   * Row `r` as rows of `cols` cells for painting into a terminal that wide;
   * `prevCols` is the width of the row above it, if there is one (the wrap
   * flag holds only when both widths are `cols`; with no row above, a
   * snapshot paints the wrap as xterm had it).
   */
  paintLines(r: number, row: DecodedRow, cols: number, prevCols: number | undefined): IBufferLine[] {
    const wrapped = row.wrapped && row.cols === cols && (prevCols === undefined || prevCols === cols);
    if (row.cols <= cols) return [this.factory.view(this.build(r, row, 0, Math.min(row.used, cols), cols, wrapped))];
    const out: IBufferLine[] = [];
    let start = 0;
    do {
      let end = Math.min(start + cols, row.used);
      // A wide character that would straddle the edge moves to the next row whole.
      if (end < row.used && end - start === cols && widthAt(row, end - 1) === 2) end--;
      out.push(this.factory.view(this.build(r, row, start, end, cols, start === 0 ? wrapped : true)));
      start = end;
    } while (start < row.used);
    return out;
  }

  /** An xterm row of `cols` cells holding the row's cells [from, to). */
  private build(r: number, row: DecodedRow, from: number, to: number, cols: number, wrapped: boolean): RawLine {
    const line = this.factory.line(cols, wrapped);
    // Cells past `used` are the row's empty tail: the new row is already empty there.
    const last = Math.min(to, row.used);
    if (last > from) line._data.set(row.cells.subarray(from * CELL_WORDS, last * CELL_WORDS), 0);
    for (const [x, text] of row.combined) if (x >= from && x < to) line._combined[x - from] = text;
    for (const [x, e] of row.extended) {
      if (x < from || x >= to) continue;
      line._extendedAttrs[x - from] = this.factory.extended(e.ext, this.urlIdFor(r, e.link));
    }
    return line;
  }

  private urlIdFor(r: number, link: number): number {
    const data = this.linkOf(r, link);
    if (data === undefined) return 0;
    const key = `${data.id ?? ''}\u0000${data.uri}`;
    let id = this.linkIds.get(key);
    if (id === undefined) {
      id = -(this.linkIds.size + 1);
      this.linkIds.set(key, id);
      this.linkData.set(id, data);
    }
    return id;
  }
}

function widthAt(row: DecodedRow, x: number): number {
  return row.cells[x * CELL_WORDS]! >>> WIDTH_SHIFT;
}
