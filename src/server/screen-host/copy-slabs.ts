// Buffers the screen host copies writes into, used again once the bytes are
// parsed. A flood's write waits in its screen's parse queue, so it needs a
// copy of its own out of the byte lane; a new buffer per write (64 KiB reads,
// ~50 MB/s beside 20 floods) made V8 run a full collection of the host every
// half second for "external memory pressure", and each one held the host
// (and the cores the floods and the keys share) for milliseconds.
//
//   const view = slabs.take(n);   // n bytes, in a slab when n is a flood's size
//   ... parsed ...
//   slabs.give(view);             // only once nothing reads it any more

/** The largest write the server's loop hands on: one read of its holder buffer. */
export const SLAB_BYTES = 64 * 1024;
/** Smaller writes (an echo, a prompt) are cheap to allocate and come back at once. */
export const MIN_SLAB_USE_BYTES = 4 * 1024;
/** Slabs kept for reuse: beside 20 floods about 160 are in flight (512 KiB of backlog each). */
export const MAX_SPARE_SLABS = 128;

export class CopySlabs {
  /** Slabs ready to go out again (a Set: a slab given back twice must not go out twice). */
  private readonly spare = new Set<ArrayBuffer>();
  /** Slabs this pool made: only they come back into it. */
  private readonly mine = new WeakSet<ArrayBuffer>();

  constructor(private readonly maxSpare: number = MAX_SPARE_SLABS) {}

  /** A buffer of n bytes, whose contents are undefined. */
  take(n: number): Uint8Array {
    if (n < MIN_SLAB_USE_BYTES || n > SLAB_BYTES) return new Uint8Array(n);
    let slab: ArrayBuffer | undefined = this.spare.values().next().value;
    if (slab !== undefined) this.spare.delete(slab);
    else {
      slab = new ArrayBuffer(SLAB_BYTES);
      this.mine.add(slab);
    }
    return new Uint8Array(slab, 0, n);
  }

  /** Hands a buffer from take() back; nothing may read `view` after this. */
  give(view: Uint8Array): void {
    const slab = view.buffer as ArrayBuffer;
    if (this.mine.has(slab) && this.spare.size < this.maxSpare) this.spare.add(slab);
  }

  get spareCount(): number {
    return this.spare.size;
  }
}
