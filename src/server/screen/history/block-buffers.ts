// Shared memory for sealed history blocks, reused. A flood seals a block every
// 256 rows and, once the history holds its rows, drops the oldest as often:
// with a new SharedArrayBuffer per block every byte of history went through
// fresh memory, which the kernel faults in and zeroes page by page (12 % of
// the screen host's samples under a log flood, as much as encoding the rows).
// A dropped block's buffer is taken again only if the block never left its
// history: a checkpoint lends every block it holds to the server's loop,
// which may still be writing it to the history file, so those are left to
// the collector (see History.checkpoint).

/** Spare buffers kept for every history of this thread (about 5 MiB of 40 KiB blocks). */
const SPARE_BUFFERS_MAX = 128;

export class BlockBuffers {
  private readonly spares: SharedArrayBuffer[] = [];
  private readonly bufferBytes: number;

  /** Buffers for a block of up to `dataCapacity` bytes and `rowsCapacity` row starts. */
  constructor(
    private readonly dataCapacity: number,
    private readonly rowsCapacity: number,
  ) {
    this.bufferBytes = dataCapacity + rowsCapacity * 4;
  }

  /** `data` and `starts` copied into one reused buffer (starts after data), or null when they do not fit one. */
  take(data: Uint8Array, starts: readonly number[]): { data: Uint8Array; starts: Uint32Array } | null {
    if (data.length > this.dataCapacity || starts.length > this.rowsCapacity) return null;
    const buffer = this.spares.pop() ?? new SharedArrayBuffer(this.bufferBytes);
    const bytes = new Uint8Array(buffer, 0, data.length);
    bytes.set(data);
    const words = new Uint32Array(buffer, this.dataCapacity, starts.length);
    for (let i = 0; i < starts.length; i++) words[i] = starts[i]!;
    return { data: bytes, starts: words };
  }

  /** The buffer under a block take() made, which no one reads any more (dropped, and never lent). */
  give(block: { data: Uint8Array }): void {
    if (this.spares.length < SPARE_BUFFERS_MAX) this.spares.push(block.data.buffer as SharedArrayBuffer);
  }
}
