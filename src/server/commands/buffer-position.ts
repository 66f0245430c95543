// Places in a terminal's normal buffer that survive scrolling, trimming,
// reflow and the move to the history, and reading the text between two.
//
// Rows are numbered absolutely (see screen/history/history.ts): the live
// buffer's line i is row rowBase + i, and rows below rowBase are history. A
// place on a live row is an xterm marker (it moves when lines are trimmed or
// reflowed, and is disposed when its row leaves the buffer); when its row
// moves to the history, the index freezes it to the row's number, which never
// changes again. A place also says how far into its *logical* line — the row
// and the rows wrapped onto it — it is, in cells: counting from the logical
// line's start keeps the place right after a resize rewraps the line.
import type { IBufferLine, IMarker, Terminal } from '@xterm/headless';
import type { Disposable } from '../../common/lifecycle.js';

/** The rows a command index reads: a screen's (history and live), or a bare terminal's. */
export interface BufferRows {
  readonly terminal: Terminal;
  /** The row number of the normal buffer's line 0. */
  readonly rowBase: number;
  /** The oldest row still held. */
  readonly firstRow: number;
  /** Row `row` of the normal buffer, history or live, or undefined if it is not held. */
  lineAt(row: number): IBufferLine | undefined;
  /** Fires before rows leave the live buffer for the history (absent: rows that leave are gone). */
  onRowsLeaving?(listener: (event: { count: number; firstRow: number }) => void): Disposable;
}

/** A bare terminal's rows: no history, line i is row i. */
export function terminalRows(terminal: Terminal): BufferRows {
  return {
    terminal,
    rowBase: 0,
    firstRow: 0,
    lineAt: (row) => terminal.buffer.normal.getLine(row),
  };
}

export interface BufferPosition {
  /** The place's marker while its row is live; null once frozen. */
  marker: IMarker | null;
  /** The row number, once the row has moved to the history. */
  frozenRow: number;
  /** Cells from the start of the logical line holding the place's row. */
  readonly offset: number;
}

/** A resolved place: absolute row number and column. */
export interface BufferCell {
  row: number;
  col: number;
}

function endRow(rows: BufferRows): number {
  return rows.rowBase + rows.terminal.buffer.normal.length;
}

/** Cells of the logical line's rows before `row`. */
function cellsBefore(rows: BufferRows, start: number, row: number): number {
  let cells = 0;
  for (let r = start; r < row; r++) cells += rows.lineAt(r)?.length ?? rows.terminal.cols;
  return cells;
}

/** The cursor's place, or null while the alternate screen is active (markers live in the normal buffer). */
export function positionAtCursor(rows: BufferRows): BufferPosition | null {
  const terminal = rows.terminal;
  if (terminal.buffer.active.type !== 'normal') return null;
  const buffer = terminal.buffer.normal;
  const row = rows.rowBase + buffer.baseY + buffer.cursorY;
  const marker = terminal.registerMarker(0);
  if (marker === undefined) return null;
  return { marker, frozenRow: -1, offset: cellsBefore(rows, logicalLineStart(rows, row), row) + buffer.cursorX };
}

/** A place on row `row` (used to re-create saved places), or null if the row is not held. */
export function positionAtRow(rows: BufferRows, row: number, offset: number): BufferPosition | null {
  const terminal = rows.terminal;
  if (!Number.isSafeInteger(row) || !Number.isSafeInteger(offset) || offset < 0) return null;
  if (row < rows.rowBase) return rows.lineAt(row) === undefined ? null : { marker: null, frozenRow: row, offset };
  if (terminal.buffer.active.type !== 'normal') return null;
  const buffer = terminal.buffer.normal;
  const line = row - rows.rowBase;
  if (line >= buffer.length) return null;
  // registerMarker only takes an offset from the cursor's row.
  const marker = terminal.registerMarker(line - (buffer.baseY + buffer.cursorY));
  if (marker === undefined || marker.line !== line) {
    marker?.dispose();
    return null;
  }
  return { marker, frozenRow: -1, offset };
}

/** The place's row number now, or null if its row is no longer held. */
export function positionRow(rows: BufferRows, position: BufferPosition): number | null {
  const { marker } = position;
  if (marker === null) return rows.lineAt(position.frozenRow) === undefined ? null : position.frozenRow;
  if (marker.isDisposed || marker.line < 0) return null;
  return rows.rowBase + marker.line;
}

/**
 * Rows are leaving the live buffer (`count` of them, numbered from
 * `firstRow`): a place on one of them becomes that row's number. Returns
 * whether the place was on a leaving row.
 */
export function freezeIfLeaving(position: BufferPosition, event: { count: number; firstRow: number }): boolean {
  const { marker } = position;
  if (marker === null || marker.isDisposed || marker.line < 0 || marker.line >= event.count) return false;
  position.frozenRow = event.firstRow + marker.line;
  position.marker = null;
  marker.dispose();
  return true;
}

/** Where a place is now, or null if its row has left the buffer and the history. */
export function resolvePosition(rows: BufferRows, position: BufferPosition): BufferCell | null {
  const row = positionRow(rows, position);
  return row === null ? null : resolveRowOffset(rows, row, position.offset);
}

/** Where the place `offset` cells into the logical line holding `row` is, or null if there is no such row. */
export function resolveRowOffset(rows: BufferRows, row: number, offset: number): BufferCell | null {
  if (rows.lineAt(row) === undefined) return null;
  const start = logicalLineStart(rows, row);
  const end = logicalLineEnd(rows, start);
  let r = start;
  let rest = offset;
  for (;;) {
    const length = rows.lineAt(r)?.length ?? rows.terminal.cols;
    if (rest < length) return { row: r, col: rest };
    // A rewrap may have left the logical line with fewer rows than the offset
    // spans (trailing blanks are not kept): the place is then its end.
    if (r >= end) return { row: end, col: length };
    rest -= length;
    r++;
  }
}

/** The cursor of the normal buffer, resolved. */
export function normalCursor(rows: BufferRows): BufferCell {
  const buffer = rows.terminal.buffer.normal;
  return { row: rows.rowBase + buffer.baseY + buffer.cursorY, col: buffer.cursorX };
}

/**
 * The text from one place to another: rows wrapped onto the previous one are
 * joined to it, other rows end in '\n', and trailing blanks of a row that ends
 * before `to` are dropped (the buffer does not tell typed spaces from empty
 * cells). Null if a row in between is no longer held.
 */
export function readBufferText(rows: BufferRows, from: BufferCell, to: BufferCell): string | null {
  if (to.row < from.row || (to.row === from.row && to.col <= from.col)) return '';
  const parts: string[] = [];
  let line = rows.lineAt(from.row);
  for (let row = from.row; row <= to.row; row++) {
    if (line === undefined) return null;
    const startCol = row === from.row ? from.col : 0;
    if (row === to.row) {
      parts.push(line.translateToString(false, startCol, to.col));
      break;
    }
    const next = rows.lineAt(row + 1);
    parts.push(next?.isWrapped === true ? line.translateToString(false, startCol) : line.translateToString(true, startCol) + '\n');
    line = next;
  }
  return parts.join('');
}

function logicalLineStart(rows: BufferRows, row: number): number {
  let start = row;
  while (start > rows.firstRow && rows.lineAt(start)?.isWrapped === true) start--;
  return start;
}

function logicalLineEnd(rows: BufferRows, start: number): number {
  const last = endRow(rows) - 1;
  let end = start;
  while (end < last && rows.lineAt(end + 1)?.isWrapped === true) end++;
  return end;
}
