// Bytes in and out for the history's compact rows: a growable writer and a
// bounds-checked reader, with LEB128 varints for unsigned 32-bit words (a
// small number, the common case, takes one byte).

export class ByteWriter {
  private buf: Uint8Array;
  private pos = 0;

  constructor(initialBytes = 4096) {
    this.buf = new Uint8Array(initialBytes);
  }

  get length(): number {
    return this.pos;
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = Math.max(64, this.buf.length * 2);
    while (size < this.pos + bytes) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  byte(value: number): void {
    this.room(1);
    this.buf[this.pos++] = value;
  }

  /** An unsigned 32-bit value (numbers are taken modulo 2^32). */
  varint(value: number): void {
    this.room(5);
    this.put(value);
  }

  /** An op byte and one varint (one room check: the row encoder writes these per run). */
  op1(op: number, a: number): void {
    this.room(6);
    this.buf[this.pos++] = op;
    this.put(a);
  }

  /** An op byte and two varints. */
  op2(op: number, a: number, b: number): void {
    this.room(11);
    this.buf[this.pos++] = op;
    this.put(a);
    this.put(b);
  }

  private put(value: number): void {
    let v = value >>> 0;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }

  /**
   * An op byte, a count and the codepoints of a run of plain cells, in one
   * pass over the cells (the row encoder's hot loop, here so it can use the
   * buffer directly). The run starts at word `from` of `words` (3 words a
   * cell) and goes on while a cell's content word has exactly `plainHigh`
   * above `mask` and a codepoint under it, and its colour words are `fg` and
   * `bg`, up to word `to`. Returns the word after the run. The count comes
   * before the codepoints but is known only after them: it gets as many
   * bytes as the longest possible run would need, and the codepoints move
   * back if it took fewer, so the bytes are those of a count written first.
   */
  plainRun(op: number, words: Uint32Array, from: number, to: number, mask: number, plainHigh: number, fg: number, bg: number): number {
    const most = (to - from) / 3;
    const countBytes = varintBytes(most);
    // a codepoint has 21 bits: at most 3 bytes
    this.room(1 + countBytes + most * 3);
    const buf = this.buf;
    buf[this.pos] = op;
    const countAt = this.pos + 1;
    let pos = countAt + countBytes;
    let k = from;
    for (; k < to; k += 3) {
      const c = words[k]!;
      let v = c & mask;
      if ((c & ~mask) !== plainHigh || v === 0 || words[k + 1] !== fg || words[k + 2] !== bg) break;
      while (v >= 0x80) {
        buf[pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[pos++] = v;
    }
    const count = (k - from) / 3;
    const spare = countBytes - varintBytes(count);
    if (spare > 0) {
      buf.copyWithin(countAt + countBytes - spare, countAt + countBytes, pos);
      pos -= spare;
    }
    this.pos = countAt;
    this.put(count);
    this.pos = pos;
    return k;
  }

  bytes(data: Uint8Array): void {
    this.room(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /** A copy of what was written, exactly as long. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** The bytes from `start` on, as a view (valid until the next write). */
  view(start = 0, end = this.pos): Uint8Array {
    return this.buf.subarray(start, end);
  }

  reset(): void {
    this.pos = 0;
  }
}

/** How many bytes `value` takes as a varint. */
function varintBytes(value: number): number {
  let n = 1;
  for (let v = value >>> 7; v !== 0; v >>>= 7) n++;
  return n;
}

export class ByteReader {
  pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  byte(): number {
    if (this.pos >= this.end) throw new RangeError('history data ends early');
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      if (shift === 28) {
        if (b > 0x0f) throw new RangeError('history varint too long');
        return (value | (b << 28)) >>> 0;
      }
      value |= (b & 0x7f) << shift;
      if (b < 0x80) return value >>> 0;
      shift += 7;
    }
  }
}
