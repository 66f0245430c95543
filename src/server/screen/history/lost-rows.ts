// Rows a damaged history file lost, marked in their place. A restored
// history is one run of rows; a hole in the file (a block whose record failed
// its CRC, a file cut short) would break it. Rather than drop every row below
// the hole, the hole is filled with rows that say they were lost: the rows on
// both sides keep their numbers and their text, nothing reads across the
// hole as if it were whole, and the marked rows are counted as lost.
import type { HistoryBlock } from './history-block.js';
import { ByteWriter } from './bytes.js';
import { encodeRow, LinkTable, NULL_CONTENT } from './row-codec.js';
import { sharedBytes, sharedWords } from './shared-block.js';

type StoredBlock = Omit<HistoryBlock, 'serial'>;

/** What each lost row reads as. */
export const LOST_ROW_TEXT = 'tend: this row was lost (the history file was damaged)';
/**
 * A hole larger than this is not filled: the rows below it are dropped
 * instead (and counted), so a file that lost nearly everything does not come
 * back as pages of markers.
 */
export const MAX_MARKED_LOST_ROWS = 4096;
/** Rows per marker block, as a sealed block holds at most (history.ts BLOCK_ROWS). */
const MARKER_BLOCK_ROWS = 256;
const WIDTH_SHIFT = 22;
const CELL_WORDS = 3;

/** Blocks of `count` marker rows from row `firstRow` on, each `cols` wide (the width of the rows around them). */
export function lostRowBlocks(firstRow: number, count: number, cols: number): StoredBlock[] {
  const width = Math.max(cols, 1);
  const cells = new Uint32Array(width * CELL_WORDS);
  for (let i = 0; i < width; i++) {
    const ch = LOST_ROW_TEXT.codePointAt(i);
    cells[i * CELL_WORDS] = i < LOST_ROW_TEXT.length && ch !== undefined ? ch | (1 << WIDTH_SHIFT) : NULL_CONTENT;
  }
  const line = { _data: cells, _combined: {}, _extendedAttrs: {}, length: width, isWrapped: false };
  const blocks: StoredBlock[] = [];
  for (let at = 0; at < count; at += MARKER_BLOCK_ROWS) {
    const rows = Math.min(MARKER_BLOCK_ROWS, count - at);
    const writer = new ByteWriter(64 * rows);
    const links = new LinkTable();
    const starts: number[] = [];
    for (let r = 0; r < rows; r++) {
      starts.push(writer.length);
      encodeRow(line, writer, links, () => undefined);
    }
    blocks.push({ firstRow: firstRow + at, rows, data: sharedBytes(writer.view()), starts: sharedWords(starts), links: [] });
  }
  return blocks;
}
