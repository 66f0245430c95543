// The recent output of one session, stamped with stream positions (seqs), so
// a viewer that paused or reconnected can be sent exactly the bytes after the
// point its terminal has parsed. Seqs count bytes. A session whose holder this
// server reads from numbers them by the holder's byte offset, so a position
// outlives the server (the session names the stream by the holder's
// generation); a session without one starts at a random base, so a seq of
// another stream is almost never mistaken for one of its own (and the stream
// id settles it anyway).
//
// The log is trimmed to the lowest ack across attached viewers (the session
// calls trimTo) but is also bounded by a byte cap on its own: a viewer that
// stopped acking cannot make it grow; it gets 'too-old' and then a snapshot.
//
// Every byte is copied in, into 16 KiB pages that a trim hands back for any
// log to reuse: the caller's array may be a socket's read buffer, reused as
// soon as it returns, and a flood's log then turns pages over instead of
// leaving a new buffer per read for the collector.

/**
 * Enough for any replay (≤ 64 KiB), for a paused viewer to catch up, and
 * for a snapshot: it is cut where the screen has parsed, which may lag the
 * log's end by the session's parse queue (≤ 512 KiB and one holder frame,
 * 1 MiB), and DATA must go on from there. Only sessions with a viewer keep
 * this much; with none the log keeps a replay's worth.
 */
export const DEFAULT_OUTPUT_LOG_CAP_BYTES = 4 * 1024 * 1024;

/** Below 2^48, so a session can stream 2^53 − 2^48 bytes (8 PiB) before a seq stops being exact. */
const RANDOM_BASE_SEQ_LIMIT = 2 ** 48;

/** A fresh random base seq for a session in this server boot. */
export function randomBaseSeq(): number {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return (words[0]! % 2 ** 16) * 2 ** 32 + words[1]!;
}

/**
 * The unit the log's bytes live in. Consecutive appends share a page (and
 * one chunk), so a shell echoing one byte per keystroke does not fill a
 * 1 MiB log with a million arrays; an idle session holds one page.
 */
const LOG_PAGE_BYTES = 16 * 1024;
/** Pages trimmed from any log wait to be reused, up to this many (4 MiB). */
const SPARE_PAGES_MAX = 256;
const sparePages: Uint8Array[] = [];

function takePage(): Uint8Array {
  return sparePages.pop() ?? new Uint8Array(LOG_PAGE_BYTES);
}

function givePage(page: Uint8Array): void {
  if (sparePages.length < SPARE_PAGES_MAX) sparePages.push(page);
}

export interface OutputLogOptions {
  /** The seq of the first byte this log will hold (see randomBaseSeq). */
  baseSeq: number;
  /** The most bytes kept, whatever the acks say. */
  capBytes?: number;
}

export type LogRead = Uint8Array | 'too-old' | 'ahead';

export class OutputLog {
  readonly capBytes: number;
  // Live chunks are chunks[head..]; starts[i] is the seq of chunks[i]'s first
  // byte, pages[i] the page it is a view of. A page holds at most one live
  // chunk: a new chunk goes on the tail page only once the last one is gone.
  private chunks: Uint8Array[] = [];
  private starts: number[] = [];
  private pages: Uint8Array[] = [];
  private head = 0;
  // Appends are copied into tail[0..tailUsed); while tailIsLast, the last
  // chunk is a view of it that ends at tailUsed.
  private tail: Uint8Array | null = null;
  private tailUsed = 0;
  private tailIsLast = false;
  private start: number;
  private end: number;

  constructor(options: OutputLogOptions) {
    if (!Number.isSafeInteger(options.baseSeq) || options.baseSeq < 0 || options.baseSeq >= RANDOM_BASE_SEQ_LIMIT) {
      throw new RangeError(`baseSeq must be an integer in 0..2^48-1, got ${options.baseSeq}`);
    }
    this.capBytes = options.capBytes ?? DEFAULT_OUTPUT_LOG_CAP_BYTES;
    if (!Number.isInteger(this.capBytes) || this.capBytes < 1) throw new RangeError(`capBytes must be a positive integer`);
    this.start = options.baseSeq;
    this.end = options.baseSeq;
  }

  /** The seq of the oldest byte still held (equal to endSeq when empty). */
  get startSeq(): number {
    return this.start;
  }

  /** The stream position after the newest byte: the seq a viewer that has everything is at. */
  get endSeq(): number {
    return this.end;
  }

  get byteLength(): number {
    return this.end - this.start;
  }

  /** Adds output (copied: the caller may reuse its array) and returns the seq after it. */
  append(bytes: Uint8Array): number {
    for (let at = 0; at < bytes.length; ) {
      if (this.tail === null || this.tailUsed === this.tail.length) {
        this.tail = takePage();
        this.tailUsed = 0;
        this.tailIsLast = false;
      }
      const n = Math.min(bytes.length - at, this.tail.length - this.tailUsed);
      this.tail.set(n === bytes.length ? bytes : bytes.subarray(at, at + n), this.tailUsed);
      const last = this.chunks.length - 1;
      // The tail's chunk can grow only while it is still the last, live chunk.
      if (this.tailIsLast && last >= this.head) {
        const viewStart = this.tailUsed - this.chunks[last]!.length;
        this.chunks[last] = this.tail.subarray(viewStart, this.tailUsed + n);
      } else {
        this.chunks.push(this.tail.subarray(this.tailUsed, this.tailUsed + n));
        this.starts.push(this.end + at);
        this.pages.push(this.tail);
        this.tailIsLast = true;
      }
      this.tailUsed += n;
      at += n;
    }
    this.end += bytes.length;
    if (this.end - this.start > this.capBytes) this.dropBefore(this.end - this.capBytes);
    return this.end;
  }

  /** Every byte after seq. */
  since(seq: number): LogRead {
    return this.read(seq, Infinity);
  }

  /**
   * Up to maxBytes of the bytes after seq: a view of the log's own pages when
   * they lie in one, good until the log is next trimmed (send or copy it).
   * Bytes from several pages are copied into `scratch` when it has room
   * (the caller's to reuse once it has sent them), else into a new array.
   */
  read(seq: number, maxBytes: number, scratch?: Uint8Array): LogRead {
    if (seq > this.end) return 'ahead';
    if (seq < this.start) return 'too-old';
    const want = Math.min(this.end - seq, maxBytes);
    if (want <= 0) return new Uint8Array(0);
    let i = this.chunkIndexOf(seq);
    const first = this.chunks[i]!;
    const offset = seq - this.starts[i]!;
    // The common case, a read inside one chunk, needs no copy.
    if (first.length - offset >= want) return first.subarray(offset, offset + want);
    const out = scratch !== undefined && scratch.length >= want ? scratch.subarray(0, want) : new Uint8Array(want);
    let filled = 0;
    for (let chunk = first.subarray(offset); filled < want; chunk = this.chunks[++i]!) {
      const take = Math.min(chunk.length, want - filled);
      out.set(chunk.subarray(0, take), filled);
      filled += take;
    }
    return out;
  }

  /**
   * Forgets every byte and goes on at seq: the stream jumped there (bytes
   * before it were lost, e.g. they left the holder's ring), or a new stream
   * starts. A reader behind seq gets 'too-old', and then a snapshot.
   */
  restartAt(seq: number): void {
    if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`a log restarts at a whole non-negative seq, got ${seq}`);
    this.dropBefore(this.end);
    this.start = seq;
    this.end = seq;
    // The tail page may hold the old stream's last bytes; the next append starts a chunk of its own.
    this.tailIsLast = false;
  }

  /** Forgets the bytes before seq (all viewers have them); a seq outside the log is clamped. */
  trimTo(seq: number): void {
    if (seq > this.start) this.dropBefore(Math.min(seq, this.end));
  }

  private dropBefore(seq: number): void {
    while (this.head < this.chunks.length && this.starts[this.head]! + this.chunks[this.head]!.length <= seq) {
      // A page goes back once its chunk is gone, unless appends still go into it.
      const page = this.pages[this.head]!;
      if (page !== this.tail) givePage(page);
      this.head++;
    }
    if (this.head < this.chunks.length && this.starts[this.head]! < seq) {
      const cut = seq - this.starts[this.head]!;
      this.chunks[this.head] = this.chunks[this.head]!.subarray(cut);
      this.starts[this.head] = seq;
    }
    this.start = seq;
    // Compact now and then so dropped chunks are released and the arrays stay short.
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.starts = this.starts.slice(this.head);
      this.pages = this.pages.slice(this.head);
      this.head = 0;
    }
  }

  /** Index of the live chunk holding seq (start ≤ seq < end). */
  private chunkIndexOf(seq: number): number {
    let lo = this.head;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= seq) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
