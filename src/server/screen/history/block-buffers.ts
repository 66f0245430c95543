// Shared memory for sealed history blocks, reused. A flood seals a block every
// 256 rows and, once the history holds its rows, drops the oldest as often:
// with a new SharedArrayBuffer per block every byte of history went through
// fresh memory, which the kernel faults in and zeroes page by page (12 % of
// the screen host's time under a log flood, more than encoding the rows).
// A dropped block's buffer is taken again only if the block never left its
// history: a checkpoint lends every block it holds to the server's loop,
// which may still be writing it to the history file, so those are left to
// the collector (see History.checkpoint).

/** A block's bytes: BLOCK_BYTES and the headroom for the row that crosses it (history.ts). */
export const BLOCK_DATA_CAPACITY = 40 * 1024;
/** Its row starts: BLOCK_ROWS words. */
export const BLOCK_STARTS_CAPACITY = 256;
const BUFFER_BYTES = BLOCK_DATA_CAPACITY + BLOCK_STARTS_CAPACITY * 4;
/** Spare buffers kept for every history of this thread (about 5 MiB). */
const SPARE_BUFFERS_MAX = 128;
const spares: SharedArrayBuffer[] = [];

export interface PooledBlockBytes {
  buffer: SharedArrayBuffer;
  data: Uint8Array;
  starts: Uint32Array;
}

/** `data` and `starts` copied into one reused buffer, or null when they do not fit one. */
export function pooledBlockBytes(data: Uint8Array, starts: readonly number[]): PooledBlockBytes | null {
  if (data.length > BLOCK_DATA_CAPACITY || starts.length > BLOCK_STARTS_CAPACITY) return null;
  const buffer = spares.pop() ?? new SharedArrayBuffer(BUFFER_BYTES);
  const bytes = new Uint8Array(buffer, 0, data.length);
  bytes.set(data);
  const words = new Uint32Array(buffer, BLOCK_DATA_CAPACITY, starts.length);
  for (let i = 0; i < starts.length; i++) words[i] = starts[i]!;
  return { buffer, data: bytes, starts: words };
}

/** A buffer no one reads any more (its block was dropped and never lent). */
export function giveBlockBuffer(buffer: SharedArrayBuffer): void {
  if (spares.length < SPARE_BUFFERS_MAX) spares.push(buffer);
}
