// Keeps multi-byte characters whole across stdin reads. A terminal writes an
// IME-committed string in one go, but a large paste is read in pieces of the
// tty's buffer size, and a piece may end inside a UTF-8 sequence. Sending that
// as one INPUT frame and the rest as the next would hand the PTY half a
// character at a frame boundary, which the protocol promises never to do; so
// the incomplete tail waits for the next read (or for a short timeout, since
// a lone byte that is not UTF-8 at all must not be held forever).

/** How long an incomplete tail may wait for the rest of its character. */
export const UTF8_CARRY_FLUSH_MS = 10;

/** The length of an incomplete UTF-8 sequence at the end of bytes (0 when it ends on a boundary). */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const n = bytes.length;
  // A sequence is at most 4 bytes: look back over at most 3 continuation bytes.
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for its lead
    const need = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
    // An ASCII or invalid lead byte ends nothing incomplete; a lead with fewer
    // bytes after it than it needs is the incomplete tail.
    return need > back ? back : 0;
  }
  return 0;
}

export class Utf8Carry {
  private tail: Uint8Array | null = null;

  /** Joins a held tail with the next read; returns the bytes that end on a character boundary. */
  push(chunk: Uint8Array): Uint8Array {
    let bytes = chunk;
    if (this.tail) {
      bytes = new Uint8Array(this.tail.length + chunk.length);
      bytes.set(this.tail);
      bytes.set(chunk, this.tail.length);
      this.tail = null;
    }
    const cut = incompleteUtf8Tail(bytes);
    if (cut === 0) return bytes;
    this.tail = bytes.slice(bytes.length - cut);
    return bytes.subarray(0, bytes.length - cut);
  }

  get holding(): boolean {
    return this.tail !== null;
  }

  /** The held bytes, given up on (the rest never came): they are passed through as they are. */
  take(): Uint8Array {
    const t = this.tail ?? new Uint8Array(0);
    this.tail = null;
    return t;
  }
}
