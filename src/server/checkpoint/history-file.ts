// A session's history on disk: `<dir>/<session id>.hist`, the history's
// sealed blocks (screen/history/) appended once each, in order. A block never
// changes after it is sealed, so a checkpoint writes only the blocks sealed
// since the last one, never the whole history again: checkpoint cost stays
// flat however deep the scrollback.
//
//   file    := magic "TENDHIST" (8)  u16 version  u16 0  record*
//   record  := u32 payload bytes  u32 CRC-32 of the payload  payload
//   payload := u8 kind (1: block)  f64 first row  u32 rows  u32 data bytes  u32 link bytes
//              u32 × rows (where each row starts in data)  data  links (JSON: [{id?, uri}])
//
// Appends are not atomic: a crash can leave a torn last record. A reader
// skips a record that is short or fails its CRC and reads on from the next
// one that checks out (a flipped bit costs one block, not the blocks after
// it); with none after it, the file is truncated there. The checkpoint says
// which rows it needs (it is written only after the blocks it counts are
// synced), so a torn tail is never a row a checkpoint relied on; rows a
// damaged record held are a gap between the blocks read, the reader's
// caller's to mark or count as lost (screen/history/history.ts restorePlan). The file is rewritten (temp file + rename) when the
// history was erased, when blocks went missing in between (checkpoints were
// off), or when blocks dropped from memory take more room than the rest.
import { crc32 } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import type { LinkData } from '../screen/xterm-private.js';
import type { HistoryBlock } from '../screen/history/history.js';
import { nodeFs, type CheckpointFs } from './files.js';

export const HISTORY_SUFFIX = '.hist';
const MAGIC = Buffer.from('TENDHIST', 'ascii');
const VERSION = 1;
const FILE_HEADER_BYTES = 12;
const RECORD_HEADER_BYTES = 8;
const BLOCK_FIXED_BYTES = 1 + 8 + 4 + 4 + 4;
const KIND_BLOCK = 1;
/** A record longer than this is damage, not a block (blocks are ~32 KiB). */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;
const FILE_MODE = 0o600;
/** Rewrite when the bytes of dropped blocks pass the kept ones and this. */
const MIN_WASTE_BYTES = 1024 * 1024;

const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export function historyFilePath(dir: string, sessionId: string): string {
  if (!SESSION_ID_PATTERN.test(sessionId)) throw new Error(`not a valid session id for a history file: ${JSON.stringify(sessionId)}`);
  return join(dir, sessionId + HISTORY_SUFFIX);
}

/** A block as read back: what a history needs to take it in (it gives it a serial of its own). */
export type StoredBlock = Omit<HistoryBlock, 'serial'>;

function fileHeader(): Buffer {
  const header = Buffer.alloc(FILE_HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt16LE(VERSION, 8);
  return header;
}

export function encodeBlockRecord(block: StoredBlock): Buffer {
  const links = Buffer.from(JSON.stringify(block.links), 'utf8');
  const payloadBytes = BLOCK_FIXED_BYTES + block.rows * 4 + block.data.length + links.length;
  const record = Buffer.alloc(RECORD_HEADER_BYTES + payloadBytes);
  let at = RECORD_HEADER_BYTES;
  at = record.writeUInt8(KIND_BLOCK, at);
  at = record.writeDoubleLE(block.firstRow, at);
  at = record.writeUInt32LE(block.rows, at);
  at = record.writeUInt32LE(block.data.length, at);
  at = record.writeUInt32LE(links.length, at);
  for (let i = 0; i < block.rows; i++) at = record.writeUInt32LE(block.starts[i]!, at);
  record.set(block.data, at);
  at += block.data.length;
  links.copy(record, at);
  record.writeUInt32LE(payloadBytes, 0);
  record.writeUInt32LE(crc32(record.subarray(RECORD_HEADER_BYTES)), 4);
  return record;
}

function decodeBlock(payload: Buffer): StoredBlock | null {
  if (payload.length < BLOCK_FIXED_BYTES || payload[0] !== KIND_BLOCK) return null;
  const firstRow = payload.readDoubleLE(1);
  const rows = payload.readUInt32LE(9);
  const dataBytes = payload.readUInt32LE(13);
  const linkBytes = payload.readUInt32LE(17);
  if (!Number.isSafeInteger(firstRow) || firstRow < 0 || rows === 0) return null;
  if (BLOCK_FIXED_BYTES + rows * 4 + dataBytes + linkBytes !== payload.length) return null;
  let at = BLOCK_FIXED_BYTES;
  const starts = new Uint32Array(rows);
  for (let i = 0; i < rows; i++, at += 4) {
    starts[i] = payload.readUInt32LE(at);
    if (starts[i]! >= dataBytes || (i > 0 && starts[i]! <= starts[i - 1]!)) return null;
  }
  const data = new Uint8Array(payload.subarray(at, at + dataBytes));
  at += dataBytes;
  let links: LinkData[];
  try {
    const parsed: unknown = JSON.parse(payload.subarray(at, at + linkBytes).toString('utf8'));
    if (!Array.isArray(parsed) || !parsed.every((l) => typeof l === 'object' && l !== null && typeof (l as LinkData).uri === 'string')) return null;
    links = (parsed as LinkData[]).map((l) => ({ id: typeof l.id === 'string' ? l.id : undefined, uri: l.uri }));
  } catch {
    return null;
  }
  return { firstRow, rows, data, starts, links };
}

export interface HistoryFileContents {
  /**
   * Whole blocks, in order, ending at or before the row asked for; where a
   * damaged record was skipped the next block does not continue the one
   * before (the caller counts the rows between as lost).
   */
  blocks: StoredBlock[];
  /** Bytes of the file up to the end of those blocks (header included): the file is cut there. */
  bytes: number;
  /** What was wrong with the file, for the log ('' when it was whole). */
  problem: string;
}

/** A record that checks out, and the bytes it takes (header included); null for damage. */
function recordAt(file: Buffer, at: number): { block: StoredBlock; bytes: number } | null {
  if (file.length - at < RECORD_HEADER_BYTES) return null;
  const length = file.readUInt32LE(at);
  if (length < BLOCK_FIXED_BYTES || length > MAX_RECORD_BYTES || file.length - at - RECORD_HEADER_BYTES < length) return null;
  // The cheap checks first, on the file itself: a scan for the next record tries every offset of a damaged stretch.
  const fixed = at + RECORD_HEADER_BYTES;
  if (file[fixed] !== KIND_BLOCK) return null;
  const rows = file.readUInt32LE(fixed + 9);
  if (BLOCK_FIXED_BYTES + rows * 4 + file.readUInt32LE(fixed + 13) + file.readUInt32LE(fixed + 17) !== length) return null;
  const payload = file.subarray(fixed, fixed + length);
  if (crc32(payload) !== file.readUInt32LE(at + 4)) return null;
  const block = decodeBlock(payload);
  return block === null ? null : { block, bytes: RECORD_HEADER_BYTES + length };
}

/**
 * Where the first record that checks out starts, at or after `from` (trying
 * `likely` first: where a damaged record's own length says the next one
 * is), or -1. A flipped bit costs the block it hit, not every block after it.
 */
function nextRecordAt(file: Buffer, from: number, likely: number): number {
  if (likely > from && recordAt(file, likely) !== null) return likely;
  for (let at = from; at + RECORD_HEADER_BYTES + BLOCK_FIXED_BYTES <= file.length; at++) {
    if (recordAt(file, at) !== null) return at;
  }
  return -1;
}

/** Where a damaged record's length field says it ends (0 when it cannot say). */
function claimedEnd(file: Buffer, at: number): number {
  if (file.length - at < RECORD_HEADER_BYTES) return 0;
  const end = at + RECORD_HEADER_BYTES + file.readUInt32LE(at);
  return end <= file.length ? end : 0;
}

/**
 * Reads `<id>.hist` up to the blocks that end at or before `endRow` (what a
 * checkpoint covers), and cuts the file after them: later blocks are rows
 * the replay after the checkpoint will archive again, and a torn tail is
 * dropped. A damaged record is skipped (the blocks after it are read on;
 * the gap it leaves is the caller's to count), so one flipped bit costs one
 * block. A missing file is an empty history.
 */
export async function readHistoryFile(dir: string, sessionId: string, endRow: number, options: { fs?: CheckpointFs } = {}): Promise<HistoryFileContents> {
  const fs = options.fs ?? nodeFs;
  const path = historyFilePath(dir, sessionId);
  let file: Buffer;
  try {
    file = await fs.readFile(path);
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return { blocks: [], bytes: 0, problem: '' };
    return { blocks: [], bytes: 0, problem: `cannot read ${path}: ${(err as Error).message}` };
  }
  const problems: string[] = [];
  const headerWhole = file.length >= FILE_HEADER_BYTES && file.subarray(0, 8).equals(MAGIC);
  if (headerWhole && file.readUInt16LE(8) !== VERSION) {
    // A newer tend's file: left as it is, for that tend.
    return { blocks: [], bytes: 0, problem: `${path} is a tend history file of version ${file.readUInt16LE(8)}; this tend reads version ${VERSION}` };
  }
  if (!headerWhole && nextRecordAt(file, FILE_HEADER_BYTES, 0) < 0) {
    return { blocks: [], bytes: 0, problem: `${path} is not a tend history file of version ${VERSION}` };
  }
  if (!headerWhole) problems.push('its header is damaged');
  const blocks: StoredBlock[] = [];
  let at = FILE_HEADER_BYTES;
  let keptEnd = at;
  while (at < file.length) {
    const record = recordAt(file, at);
    if (record === null) {
      const next = nextRecordAt(file, at + 1, claimedEnd(file, at));
      if (next < 0) {
        problems.push(`torn or damaged record at byte ${at} (cut off with what follows)`);
        break;
      }
      problems.push(`damaged record at bytes ${at}..${next} (skipped)`);
      at = next;
      continue;
    }
    const { block, bytes } = record;
    if (block.firstRow + block.rows > endRow) break;
    const previous = blocks[blocks.length - 1];
    if (previous !== undefined && block.firstRow < previous.firstRow + previous.rows) {
      // Rows numbered again from lower down: the blocks before are of another history, not older rows of this one.
      blocks.length = 0;
    }
    // A gap after `previous` (a damaged record was skipped) is kept as a gap: the history marks or drops its rows.
    blocks.push(block);
    at += bytes;
    keptEnd = at;
  }
  // A damaged file is written whole again by the next checkpoint (the writer does not adopt it).
  if (keptEnd < file.length) {
    const handle = await fs.open(path, 'r+');
    try {
      await handle.truncate(keptEnd);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  return { blocks, bytes: keptEnd, problem: problems.length === 0 ? '' : `${path}: ${problems.join('; ')}` };
}

/** What a checkpoint hands the writer: the history's sealed blocks at the cut. */
export interface HistorySource {
  /** Changes when the history is erased (ED 3, RIS): a file of another epoch starts over. */
  epoch: number;
  blocks: readonly StoredBlock[];
}

interface FileState {
  epoch: number;
  /** The row after the file's last block. */
  endRow: number;
  /** Bytes in the file. */
  bytes: number;
}

/**
 * Keeps each session's history file in step with its history: appends the
 * blocks sealed since the last sync, or rewrites the file when appending
 * would not do. One sync per session at a time (the checkpoint writer's lane
 * sees to that).
 */
export class HistoryFiles {
  private readonly state = new Map<string, FileState>();

  constructor(
    private readonly dir: string,
    private readonly fs: CheckpointFs = nodeFs,
  ) {}

  /** The file as recovery found it: it holds blocks up to `endRow` of this epoch. */
  adopt(sessionId: string, state: FileState): void {
    this.state.set(sessionId, state);
  }

  forget(sessionId: string): void {
    this.state.delete(sessionId);
  }

  /** Makes the file hold `source`'s blocks, synced; throws the file system's error. */
  async sync(sessionId: string, source: HistorySource): Promise<void> {
    const known = this.state.get(sessionId);
    const blocks = source.blocks;
    const keptBytes = blocks.reduce((n, b) => n + b.data.length + b.rows * 4, 0);
    const first = blocks.findIndex((b) => b.firstRow + b.rows > (known?.endRow ?? 0));
    const fresh = first < 0 ? [] : blocks.slice(first);
    const appendable = known !== undefined && known.epoch === source.epoch &&
      (fresh.length === 0 || fresh[0]!.firstRow === known.endRow) &&
      known.bytes - keptBytes < Math.max(MIN_WASTE_BYTES, keptBytes);
    if (appendable) {
      if (fresh.length === 0) return;
      await this.append(sessionId, known, fresh);
      return;
    }
    if (blocks.length === 0 && known === undefined) return;
    await this.rewrite(sessionId, source);
  }

  private async append(sessionId: string, known: FileState, blocks: readonly StoredBlock[]): Promise<void> {
    const handle = await this.fs.open(historyFilePath(this.dir, sessionId), 'a', FILE_MODE);
    let bytes = 0;
    try {
      bytes = await writeBlocks(handle, blocks);
      await handle.sync();
    } finally {
      await handle.close();
    }
    const last = blocks[blocks.length - 1]!;
    this.state.set(sessionId, { epoch: known.epoch, endRow: last.firstRow + last.rows, bytes: known.bytes + bytes });
  }

  private async rewrite(sessionId: string, source: HistorySource): Promise<void> {
    const path = historyFilePath(this.dir, sessionId);
    const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const handle = await this.fs.open(temp, 'wx', FILE_MODE);
    let bytes = 0;
    try {
      try {
        const header = fileHeader();
        await writeAll(handle, header);
        bytes = header.length + await writeBlocks(handle, source.blocks);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.fs.rename(temp, path);
    } catch (err) {
      await this.fs.unlink(temp).catch(() => {});
      throw err;
    }
    const last = source.blocks[source.blocks.length - 1];
    this.state.set(sessionId, { epoch: source.epoch, endRow: last === undefined ? 0 : last.firstRow + last.rows, bytes });
  }

  /** Deletes the session's file; a missing one is fine. */
  async remove(sessionId: string): Promise<void> {
    this.state.delete(sessionId);
    try {
      await this.fs.unlink(historyFilePath(this.dir, sessionId));
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err;
    }
  }
}

async function writeAll(handle: FileHandle, part: Buffer): Promise<void> {
  for (let at = 0; at < part.length; ) at += (await handle.write(part, at, part.length - at)).bytesWritten;
}

/**
 * Encodes and writes blocks one at a time: each write hands the loop back,
 * so a whole history (hundreds of blocks) never holds it for long.
 * Returns the bytes written.
 */
async function writeBlocks(handle: FileHandle, blocks: readonly StoredBlock[]): Promise<number> {
  let bytes = 0;
  for (const block of blocks) {
    const record = encodeBlockRecord(block);
    await writeAll(handle, record);
    bytes += record.length;
  }
  return bytes;
}
