// The bytes of every write, from the server's loop to the screen host, through
// one ring of shared memory made when the server starts. The loop copies a
// write in as it arrives (into pages that stay mapped); the host copies it out
// when the batch naming it arrives and gives the space back. Posting a fresh
// buffer each turn instead made the loop fault in new pages for every byte of
// a flood and run a full GC every few hundred milliseconds for "external
// memory pressure" (docs/performance.md): time a waiting key paid for.
//
//   const lane = createByteLane();              // posted to the host once
//   const at = new LaneWriter(lane).put(bytes); // loop: -1 when it is full
//   new LaneReader(lane).copy(at, at + n);      // host, then release(at + n)

/**
 * Beside 20 floods (~50 MB/s into the host) a 1 MiB lane was full now and
 * then; 4 MiB never was. A write that finds it full still goes, in the batch.
 */
export const BYTE_LANE_BYTES = 4 * 1024 * 1024;

/** The lane's memory: the ring, and how far the host has copied out (a byte count, as BigInt64 for Atomics). */
export interface ByteLane {
  data: SharedArrayBuffer;
  released: SharedArrayBuffer;
}

export function createByteLane(capacityBytes: number = BYTE_LANE_BYTES): ByteLane {
  if (!Number.isSafeInteger(capacityBytes) || capacityBytes <= 0) throw new RangeError(`byte lane of ${capacityBytes} bytes`);
  return { data: new SharedArrayBuffer(capacityBytes), released: new SharedArrayBuffer(8) };
}

/** The loop's end: positions count every byte ever put, so they only grow. */
export class LaneWriter {
  private readonly data: Uint8Array;
  private readonly released: BigInt64Array;
  private written = 0;
  /** The host's released count as last read: reading it again is needed only when this looks full. */
  private freed = 0;

  constructor(lane: ByteLane) {
    this.data = new Uint8Array(lane.data);
    this.released = new BigInt64Array(lane.released);
  }

  /** Copies `bytes` in and returns the position of the first; -1 when the lane has no room for them now. */
  put(bytes: Uint8Array): number {
    const n = bytes.byteLength;
    const capacity = this.data.byteLength;
    if (n > capacity - (this.written - this.freed)) {
      this.freed = Number(Atomics.load(this.released, 0));
      if (n > capacity - (this.written - this.freed)) return -1;
    }
    const start = this.written;
    const at = start % capacity;
    const first = Math.min(n, capacity - at);
    this.data.set(first === n ? bytes : bytes.subarray(0, first), at);
    if (first < n) this.data.set(bytes.subarray(first), 0);
    this.written += n;
    return start;
  }
}

/** The host's end. */
export class LaneReader {
  private readonly data: Uint8Array;
  private readonly released: BigInt64Array;

  constructor(lane: ByteLane) {
    this.data = new Uint8Array(lane.data);
    this.released = new BigInt64Array(lane.released);
  }

  /** A copy of the bytes put at positions [start, end), into `out` if given (end - start bytes long). */
  copy(start: number, end: number, out: Uint8Array = new Uint8Array(end - start)): Uint8Array {
    if (out.byteLength !== end - start) throw new RangeError(`copying ${end - start} bytes into ${out.byteLength}`);
    const capacity = this.data.byteLength;
    const at = start % capacity;
    const first = Math.min(out.byteLength, capacity - at);
    out.set(this.data.subarray(at, at + first));
    if (first < out.byteLength) out.set(this.data.subarray(0, out.byteLength - first), first);
    return out;
  }

  /** Every byte before `end` has been copied out: the writer may put new ones there. */
  release(end: number): void {
    Atomics.store(this.released, 0, BigInt(end));
  }
}
