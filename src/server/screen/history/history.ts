// A session's history: the rows that scrolled off the short live scrollback
// of its headless xterm, in compact form (row-codec.ts), oldest first.
//
// Rows are numbered absolutely: row r is the r-th row that ever left the
// live buffer's top, so a number keeps meaning the same row while rows come
// and go. The history holds rows [firstRow, endRow); the live buffer's line i
// is row endRow + i. Rows below firstRow were erased (ED 3, RIS: the program
// asked) or dropped (a budget, or a row lost in a reflow): `droppedRows`
// counts the latter since the last erase, so readers can say that rows are
// missing rather than show the rest as complete. It also counts the rows a
// damaged history file lost (`lostRows`), which a restore marks in place.
//
// Rows are appended to an open block; a block is sealed at BLOCK_ROWS rows or
// BLOCK_BYTES bytes and never changes again, which is what lets a checkpoint
// append it to the session's history file once (history-file.ts) and a budget
// drop it whole. Limits: at least `maxRows` rows are kept (whole blocks are
// dropped only while the rest still holds maxRows), and never more than
// `maxBytes` bytes; a server-wide budget (HistoryBudget) drops the oldest
// blocks across sessions first.
import type { LinkData } from '../xterm-private.js';
import type { RawBufferLine } from '../scrollback-tap.js';
import { ByteReader, ByteWriter } from './bytes.js';
import { decodeRow, encodeRow, LinkTable, type DecodedRow } from './row-codec.js';
import { sharedBytes, sharedWords } from './shared-block.js';
import { BlockBuffers } from './block-buffers.js';
import { lostRowBlocks, MAX_MARKED_LOST_ROWS } from './lost-rows.js';
import type { HistoryBlock } from './history-block.js';

export type { HistoryBlock } from './history-block.js';

/** A sealed block holds at most this many rows… */
export const BLOCK_ROWS = 256;
/** …or about this many bytes of encoded rows (a block of wide, dense rows seals early). */
export const BLOCK_BYTES = 32 * 1024;
/** Links a block can name (ids are block serial * LINKS_PER_BLOCK + index + 1). */
const LINKS_PER_BLOCK = 0xffff;
/** Room past BLOCK_BYTES for the row that crosses it (a dense 500-column row is ~5 KiB). */
const WRITER_HEADROOM_BYTES = 8 * 1024;
/** Sealed blocks' shared memory, reused for every history of this thread (block-buffers.ts). */
const blockBuffers = new BlockBuffers(BLOCK_BYTES + WRITER_HEADROOM_BYTES, BLOCK_ROWS);
/** The open block's writer until the first row arrives (never written to). */
const EMPTY_WRITER = new ByteWriter(0);
/** What a block costs besides its bytes: the object, its row index, its link table. */
const BLOCK_OVERHEAD_BYTES = 200;

/** Where a history stands: the rows it holds, and those dropped just below them. */
export interface HistoryState {
  firstRow: number;
  endRow: number;
  droppedRows: number;
  /** Of droppedRows, those lost because the history file lacked them (damaged, cut short); absent in older checkpoints. */
  lostRows?: number;
}

export interface HistoryCheckpoint {
  /** Changes with each erase: a history file of another epoch starts over. */
  epoch: number;
  blocks: readonly HistoryBlock[];
  state: HistoryState;
}

export interface HistoryLimits {
  /** Keep at least this many rows (whole blocks beyond it are dropped). */
  maxRows: number;
  /** Never keep more than this many bytes. */
  maxBytes: number;
}

/**
 * What the server-wide budget sees of a history: its sealed blocks (the
 * open block, at most BLOCK_BYTES and a row, is left out, so rows that
 * scroll off are appended without a word to the budget; blocks are charged
 * as they seal).
 */
export interface BudgetMember {
  readonly budgetBytes: number;
  /** Serial of the oldest block, or Infinity when there is none. */
  readonly oldestSerial: number;
  /** Drops the oldest block; returns the bytes freed. */
  dropOldestBlock(reason: 'budget'): number;
}

export interface HistoryBudgetLike {
  nextSerial(): number;
  /** `member`'s sealed blocks grew by `bytes` (negative: shrank); the budget may drop blocks anywhere. */
  charge(member: BudgetMember, bytes: number): void;
  remove(member: BudgetMember): void;
}

export function blockBytes(block: HistoryBlock): number {
  let linkBytes = 0;
  for (const l of block.links) linkBytes += 2 * (l.uri.length + (l.id?.length ?? 0)) + 32;
  return block.data.length + block.starts.byteLength + linkBytes + BLOCK_OVERHEAD_BYTES;
}

interface OpenBlock {
  writer: ByteWriter;
  starts: number[];
  links: LinkTable;
  firstRow: number;
}

export class History implements BudgetMember {
  private blocks: HistoryBlock[] = [];
  private open: OpenBlock;
  private _firstRow = 0;
  private _endRow = 0;
  private _droppedRows = 0;
  private _lostRows = 0;
  private sealedBytes = 0;
  /**
   * Unique to this history and changed by erase(): a history file written
   * for another epoch (another history, or this one before an erase) is
   * rewritten, never appended to.
   */
  private _epoch = nextEpoch();
  /** The one writer open blocks are written with (created with the first row). */
  private writer: ByteWriter | null = null;
  /** The last decoded block, for reading rows in order. */
  private cache: { serial: number; rows: DecodedRow[] } | null = null;
  /**
   * Sealed blocks in a reused buffer that only this history has seen: one
   * dropped gives its buffer back. A checkpoint lends its blocks out, and
   * they leave this set.
   */
  private readonly ownBlocks = new Set<HistoryBlock>();

  constructor(
    private limits: HistoryLimits,
    private readonly budget: HistoryBudgetLike | null = null,
  ) {
    this.open = this.newOpen();
  }

  get firstRow(): number {
    return this._firstRow;
  }
  get endRow(): number {
    return this._endRow;
  }
  get rowCount(): number {
    return this._endRow - this._firstRow;
  }
  /**
   * Rows a memory budget dropped (or a reflow lost) just below firstRow,
   * and rows a damaged history file lost (marked in place, see lostRows),
   * since the last erase: rows the program wrote that tend no longer holds.
   */
  get droppedRows(): number {
    return this._droppedRows;
  }
  /** Of droppedRows, those a restore did not find in the history file (damaged or cut short): marked lost in place, or below firstRow. */
  get lostRows(): number {
    return this._lostRows;
  }
  get epoch(): number {
    return this._epoch;
  }
  /** Bytes held, sealed and open. */
  get bytes(): number {
    return this.sealedBytes + this.open.writer.length + this.open.starts.length * 4;
  }
  get oldestSerial(): number {
    return this.blocks[0]?.serial ?? Number.POSITIVE_INFINITY;
  }
  /** Sealed blocks, oldest first. */
  get sealed(): readonly HistoryBlock[] {
    return this.blocks;
  }

  setLimits(limits: HistoryLimits): void {
    this.limits = limits;
    this.enforceLimits();
  }

  /** Rows leaving the live buffer, oldest first; `linkOf` resolves the terminal's link ids. */
  append(lines: readonly RawBufferLine[], linkOf: (urlId: number) => LinkData | undefined): void {
    if (this.writer === null) {
      // First rows: an idle session never pays for the block buffer.
      this.writer = new ByteWriter(BLOCK_BYTES + WRITER_HEADROOM_BYTES);
      this.open.writer = this.writer;
    }
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const open = this.open;
      open.starts.push(open.writer.length);
      encodeRow(line, open.writer, open.links, linkOf);
      this._endRow++;
      if (open.starts.length >= BLOCK_ROWS || open.writer.length >= BLOCK_BYTES || open.links.size >= LINKS_PER_BLOCK - 64) {
        this.sealOpen();
      }
    }
  }

  /** Seals the open block if it holds rows (a checkpoint wants every row in a sealed block). */
  seal(): void {
    this.sealOpen();
  }

  get budgetBytes(): number {
    return this.sealedBytes;
  }

  private sealOpen(): void {
    const open = this.open;
    if (open.starts.length === 0) return;
    const pooled = blockBuffers.take(open.writer.view(), open.starts);
    const block: HistoryBlock = {
      serial: this.budget?.nextSerial() ?? nextLocalSerial(),
      firstRow: open.firstRow,
      rows: open.starts.length,
      data: pooled?.data ?? sharedBytes(open.writer.view()),
      starts: pooled?.starts ?? sharedWords(open.starts),
      links: open.links.links,
    };
    if (pooled !== null) this.ownBlocks.add(block);
    this.blocks.push(block);
    const bytes = blockBytes(block);
    this.sealedBytes += bytes;
    this.open = this.newOpen();
    // Limits are kept block by block, so checking as one seals is enough.
    this.budget?.charge(this, bytes);
    this.enforceLimits();
  }

  /**
   * What a checkpoint needs, at its cut: every row sealed (the open block
   * too, however small), the sealed blocks, and where the history stands.
   */
  checkpoint(): HistoryCheckpoint {
    this.seal();
    // Lent to the server's loop, which writes them to the history file: their buffers are never reused.
    this.ownBlocks.clear();
    return {
      epoch: this._epoch,
      blocks: [...this.blocks],
      state: { firstRow: this._firstRow, endRow: this._endRow, droppedRows: this._droppedRows, lostRows: this._lostRows },
    };
  }

  /**
   * Takes back blocks read from a history file (recovery), in order, before
   * any row is appended; `state` is what the checkpoint recorded. Rows the
   * blocks lack (a damaged file) are marked in their place or, below a hole
   * too large to mark, dropped; either way counted as dropped and as lost.
   */
  restore(stored: readonly Omit<HistoryBlock, 'serial'>[], state: HistoryState): void {
    const plan = restorePlan(stored, state);
    const blocks = plan.blocks.map((b) => ({ ...b, serial: this.budget?.nextSerial() ?? nextLocalSerial() }));
    this.blocks = blocks;
    this.sealedBytes = blocks.reduce((sum, b) => sum + blockBytes(b), 0);
    this._firstRow = blocks[0]?.firstRow ?? state.endRow;
    this._endRow = state.endRow;
    this._droppedRows = state.droppedRows + plan.lostRows;
    this._lostRows = (state.lostRows ?? 0) + plan.lostRows;
    this.open = this.newOpen();
    this.cache = null;
    this.budget?.charge(this, this.sealedBytes);
    this.enforceLimits();
  }

  /**
   * The program erased the scrollback (ED 3) or reset the terminal: every
   * row so far is gone, and `liveRowsRemoved` rows of the live buffer with
   * them (numbers move on past them).
   */
  erase(liveRowsRemoved: number): void {
    const before = this.sealedBytes;
    this._endRow += liveRowsRemoved;
    this.giveBackAll();
    this.blocks = [];
    this.sealedBytes = 0;
    this.open = this.newOpen();
    this._firstRow = this._endRow;
    this._droppedRows = 0;
    this._lostRows = 0;
    this._epoch = nextEpoch();
    this.cache = null;
    this.budget?.charge(this, -before);
  }

  /**
   * `count` rows left the live buffer without being offered (a reflow that
   * overflowed it): they are numbered and counted as dropped, and so are all
   * rows before them, so the history never reads across a hole.
   */
  lose(count: number): void {
    const before = this.sealedBytes;
    this._droppedRows += this.rowCount + count;
    this.giveBackAll();
    this.blocks = [];
    this.sealedBytes = 0;
    this._endRow += count;
    this.open = this.newOpen();
    this._firstRow = this._endRow;
    this._epoch = nextEpoch();
    this.cache = null;
    this.budget?.charge(this, -before);
  }

  /**
   * Drops the oldest block: for a memory budget (its rows count as dropped),
   * or because the rows beyond it already make the rows kept (the scrollback
   * ends there, as in any terminal: nothing above is missing).
   */
  dropOldestBlock(reason: 'budget' | 'rows'): number {
    const block = this.blocks.shift();
    if (block === undefined) return 0;
    this.giveBack(block);
    const freed = blockBytes(block);
    this.sealedBytes -= freed;
    if (reason === 'budget') this._droppedRows += block.rows;
    else {
      this._droppedRows = 0;
      this._lostRows = 0;
    }
    this._firstRow = this.blocks[0]?.firstRow ?? this.open.firstRow;
    if (this.cache?.serial === block.serial) this.cache = null;
    return freed;
  }

  private enforceLimits(): void {
    let freed = 0;
    while (this.blocks.length > 0) {
      const oldest = this.blocks[0]!;
      const overRows = this.rowCount - oldest.rows >= this.limits.maxRows;
      const overBytes = this.bytes > this.limits.maxBytes;
      if (!overRows && !overBytes) break;
      freed += this.dropOldestBlock(overBytes ? 'budget' : 'rows');
    }
    if (freed > 0) this.budget?.charge(this, -freed);
  }

  /** Decoded rows [from, to) (clamped to what is held), in order. */
  rows(from: number, to: number): DecodedRow[] {
    const out: DecodedRow[] = [];
    const end = Math.min(to, this._endRow);
    for (let r = Math.max(from, this._firstRow); r < end; r++) {
      const row = this.row(r);
      if (row !== undefined) out.push(row);
    }
    return out;
  }

  /** One decoded row, or undefined if it is not held. Rows read in order decode each block once. */
  row(r: number): DecodedRow | undefined {
    if (r < this._firstRow || r >= this._endRow) return undefined;
    if (r >= this.open.firstRow) {
      const i = r - this.open.firstRow;
      const starts = this.open.starts;
      const end = i + 1 < starts.length ? starts[i + 1]! : this.open.writer.length;
      return decodeRow(new ByteReader(this.open.writer.view(), starts[i]!, end));
    }
    const block = this.blockOf(r);
    if (block === undefined) return undefined;
    if (this.cache?.serial !== block.serial) {
      const rows: DecodedRow[] = [];
      for (let i = 0; i < block.rows; i++) {
        const end = i + 1 < block.rows ? block.starts[i + 1]! : block.data.length;
        rows.push(decodeRow(new ByteReader(block.data, block.starts[i]!, end)));
      }
      this.cache = { serial: block.serial, rows };
    }
    return this.cache.rows[r - block.firstRow];
  }

  /** A row's width, read from its header without decoding it. */
  rowWidth(r: number): number | undefined {
    if (r < this._firstRow || r >= this._endRow) return undefined;
    let reader: ByteReader;
    if (r >= this.open.firstRow) {
      reader = new ByteReader(this.open.writer.view(), this.open.starts[r - this.open.firstRow]!);
    } else {
      const block = this.blockOf(r);
      if (block === undefined) return undefined;
      reader = new ByteReader(block.data, block.starts[r - block.firstRow]!);
    }
    reader.byte();
    return reader.varint();
  }

  /** The link a decoded row's cell names (its `link` field), by the block the row is in. */
  linkOf(r: number, link: number): LinkData | undefined {
    if (link === 0) return undefined;
    if (r >= this.open.firstRow) return this.open.links.links[link - 1];
    return this.blockOf(r)?.links[link - 1];
  }

  private blockOf(r: number): HistoryBlock | undefined {
    let lo = 0;
    let hi = this.blocks.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const b = this.blocks[mid]!;
      if (r < b.firstRow) hi = mid - 1;
      else if (r >= b.firstRow + b.rows) lo = mid + 1;
      else return b;
    }
    return undefined;
  }

  /**
   * A fresh open block. Its writer is the history's one, reused block after
   * block: grown by doubling per block, a writer would leave ~4 times the
   * block's size of freed buffers behind it, which the allocator does not
   * give back to the system.
   */
  private newOpen(): OpenBlock {
    this.writer?.reset();
    return { writer: this.writer ?? EMPTY_WRITER, starts: [], links: new LinkTable(), firstRow: this._endRow };
  }

  /** A block leaves the history: its buffer is reused if no one else can be reading it. */
  private giveBack(block: HistoryBlock): void {
    if (this.ownBlocks.delete(block)) blockBuffers.give(block);
  }

  private giveBackAll(): void {
    for (const block of this.ownBlocks) blockBuffers.give(block);
    this.ownBlocks.clear();
  }

  dispose(): void {
    this.budget?.remove(this);
    this.giveBackAll();
    this.blocks = [];
    this.cache = null;
  }
}

type StoredBlock = Omit<HistoryBlock, 'serial'>;

/**
 * The blocks a restored history takes, as one run ending where the
 * checkpoint's does (state.endRow: the live rows are numbered from there),
 * and how many rows the checkpoint counted that `stored` lacks. A hole
 * between blocks, or between the last block and endRow (a record that failed
 * its CRC, a file cut short), is filled with rows marked lost (lost-rows.ts)
 * when it is at most MAX_MARKED_LOST_ROWS, so the rows below it stay; a larger
 * one ends the run, and the rows below it are dropped. Nothing is read
 * across a hole as if it were whole. Blocks wholly below state.firstRow were
 * gone when the checkpoint was taken.
 */
export function restorePlan(stored: readonly StoredBlock[], state: HistoryState): { blocks: StoredBlock[]; lostRows: number } {
  const run: StoredBlock[] = [];
  let lostRows = 0;
  let end = state.endRow;
  for (let i = stored.length - 1; i >= 0; i--) {
    const block = stored[i]!;
    const blockEnd = block.firstRow + block.rows;
    if (blockEnd > end || blockEnd <= state.firstRow) break;
    const hole = end - blockEnd;
    if (hole > MAX_MARKED_LOST_ROWS) break;
    if (hole > 0) {
      run.unshift(...lostRowBlocks(blockEnd, hole, firstRowWidth(run[0] ?? block)));
      lostRows += hole;
    }
    run.unshift(block);
    end = block.firstRow;
  }
  if (run.length === 0) return { blocks: [], lostRows: Math.max(0, state.endRow - state.firstRow) };
  return { blocks: run, lostRows: lostRows + Math.max(0, run[0]!.firstRow - state.firstRow) };
}

/** The width a block's first row was written at (the marks of a hole take the width of the rows around it). */
function firstRowWidth(block: StoredBlock): number {
  const reader = new ByteReader(block.data, block.starts[0]!);
  reader.byte();
  return reader.varint();
}

/** Rows a checkpoint counted as held that `stored` cannot give back (see restorePlan). */
export function rowsMissing(stored: readonly StoredBlock[], state: HistoryState): number {
  return restorePlan(stored, state).lostRows;
}

let epochs = 0;
function nextEpoch(): number {
  return ++epochs;
}

let localSerial = 0;
function nextLocalSerial(): number {
  return ++localSerial;
}
