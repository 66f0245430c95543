// Places in a terminal's normal buffer that survive scrolling, trimming and
// reflow, and reading the text between two of them.
//
// A place is an xterm marker on its row (the marker moves when lines are
// trimmed or reflowed, and is disposed when its row leaves the buffer) plus
// how far into the *logical* line — the row and the rows wrapped onto it — the
// place is, in cells. Counting from the logical line's start keeps the column
// right after a resize rewraps the line, where a column on the row would not.
import type { IBuffer, IMarker, Terminal } from '@xterm/headless';

export interface BufferPosition {
  readonly marker: IMarker;
  /** Cells from the start of the logical line holding the marker's row. */
  readonly offset: number;
}

/** A resolved place: absolute row in the buffer (0 = oldest scrollback row) and column. */
export interface BufferCell {
  row: number;
  col: number;
}

/** The cursor's place, or null while the alternate screen is active (markers live in the normal buffer). */
export function positionAtCursor(terminal: Terminal): BufferPosition | null {
  if (terminal.buffer.active.type !== 'normal') return null;
  const buffer = terminal.buffer.normal;
  const row = buffer.baseY + buffer.cursorY;
  const marker = terminal.registerMarker(0);
  if (marker === undefined) return null;
  return { marker, offset: (row - logicalLineStart(buffer, row)) * terminal.cols + buffer.cursorX };
}

/** A place on an absolute row of the normal buffer (used to re-create saved places), or null if the row is not there. */
export function positionAtRow(terminal: Terminal, row: number, offset: number): BufferPosition | null {
  if (terminal.buffer.active.type !== 'normal') return null;
  const buffer = terminal.buffer.normal;
  if (!Number.isInteger(row) || row < 0 || row >= buffer.length) return null;
  if (!Number.isInteger(offset) || offset < 0) return null;
  // registerMarker only takes an offset from the cursor's row.
  const marker = terminal.registerMarker(row - (buffer.baseY + buffer.cursorY));
  if (marker === undefined || marker.line !== row) {
    marker?.dispose();
    return null;
  }
  return { marker, offset };
}

/** Where a place is now, or null if its row has left the buffer. */
export function resolvePosition(terminal: Terminal, position: BufferPosition): BufferCell | null {
  const { marker } = position;
  if (marker.isDisposed || marker.line < 0) return null;
  return resolveRowOffset(terminal, marker.line, position.offset);
}

/** Where the place `offset` cells into the logical line holding `row` is, or null if there is no such row. */
export function resolveRowOffset(terminal: Terminal, row: number, offset: number): BufferCell | null {
  const buffer = terminal.buffer.normal;
  if (row < 0 || row >= buffer.length) return null;
  const cols = terminal.cols;
  const start = logicalLineStart(buffer, row);
  const end = logicalLineEnd(buffer, start);
  const target = start + Math.floor(offset / cols);
  // A rewrap may have left the logical line with fewer rows than the offset
  // spans (trailing blanks are not kept): the place is then its end.
  if (target > end) return { row: end, col: cols };
  return { row: target, col: offset % cols };
}

/** The cursor of the normal buffer, resolved. */
export function normalCursor(terminal: Terminal): BufferCell {
  const buffer = terminal.buffer.normal;
  return { row: buffer.baseY + buffer.cursorY, col: buffer.cursorX };
}

/**
 * The text from one place to another: rows wrapped onto the previous one are
 * joined to it, other rows end in '\n', and trailing blanks of a row that ends
 * before `to` are dropped (the buffer does not tell typed spaces from empty cells).
 */
export function readBufferText(terminal: Terminal, from: BufferCell, to: BufferCell): string {
  if (to.row < from.row || (to.row === from.row && to.col <= from.col)) return '';
  const buffer = terminal.buffer.normal;
  const parts: string[] = [];
  for (let row = from.row; row <= to.row; row++) {
    const line = buffer.getLine(row);
    if (line === undefined) break;
    const startCol = row === from.row ? from.col : 0;
    if (row === to.row) {
      parts.push(line.translateToString(false, startCol, to.col));
      break;
    }
    const wrapsOn = buffer.getLine(row + 1)?.isWrapped === true;
    parts.push(wrapsOn ? line.translateToString(false, startCol) : line.translateToString(true, startCol) + '\n');
  }
  return parts.join('');
}

function logicalLineStart(buffer: IBuffer, row: number): number {
  let start = row;
  while (start > 0 && buffer.getLine(start)?.isWrapped === true) start--;
  return start;
}

function logicalLineEnd(buffer: IBuffer, start: number): number {
  let end = start;
  while (end + 1 < buffer.length && buffer.getLine(end + 1)?.isWrapped === true) end++;
  return end;
}
