// The mutations the fuzz loop makes to an input it already has: bit and byte
// changes, integers at the edges of their range (as the decoders read them:
// little-endian u8/u16/u32/u64), inserted, deleted and repeated runs, tokens
// (the parsers' own constants), and splices with another input. A few are
// stacked per try, as libFuzzer and AFL do.

/** A small fast generator (mulberry32); seeded, so a run can be repeated. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** 32 random bits. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in 0..n-1 (n ≥ 1). */
  below(n: number): number {
    return this.next() % n;
  }

  chance(oneIn: number): boolean {
    return this.below(oneIn) === 0;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

const INTERESTING_8 = [0, 1, 2, 0x7f, 0x80, 0xff, 0x0a, 0x0d, 0x1b, 0x20, 0x22, 0x5c, 0x7b, 0x7d, 0xc0, 0xe2, 0xef, 0xf0];
const INTERESTING_32 = [0, 1, 2, 4, 5, 8, 16, 24, 64, 100, 127, 128, 255, 256, 999, 1000, 1001, 1023, 1024, 4096, 10_000, 10_001, 0x7fff, 0x8000, 0xffff, 0x1_0000, 0x10_0000, 0x10_0001, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];
/** Halves of a u64: around 2^53 (the largest safe integer), and all ones. */
const INTERESTING_64_HIGH = [0, 1, 0x1f_ffff, 0x20_0000, 0x7fff_ffff, 0xffff_ffff];
/**
 * UTF-8 a text decoder may stumble on: characters of 2, 3 and 4 bytes, the
 * byte-order mark, U+FFFD, the last code point, and the invalid kinds
 * (a surrogate, an overlong form, a lone continuation byte, a cut sequence).
 */
export const UTF8_TOKENS: readonly Uint8Array[] = [
  [0xc3, 0xa9], [0xe4, 0xb8, 0x96], [0xf0, 0x9f, 0x98, 0x80], [0xef, 0xbb, 0xbf], [0xef, 0xbf, 0xbd], [0xf4, 0x8f, 0xbf, 0xbf],
  [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80], [0xe4, 0xb8],
].map((bytes) => Uint8Array.from(bytes));

export class Mutator {
  /** Inputs grow only as far as this; the fuzz loop raises it (short inputs first, as libFuzzer's len_control). */
  maxLength: number;

  constructor(
    private readonly random: Random,
    private readonly tokens: readonly Uint8Array[],
    maxLength: number,
  ) {
    this.maxLength = maxLength;
  }

  /** A new input made from `input` (never changed) by 1 to 16 stacked mutations. */
  mutate(input: Uint8Array, another: () => Uint8Array): Uint8Array {
    let out = input;
    const stack = 1 << this.random.below(5);
    for (let i = 0; i < stack; i++) out = this.once(out, another);
    if (out === input) out = input.slice();
    return out.length > this.maxLength ? out.subarray(0, this.maxLength) : out;
  }

  private once(data: Uint8Array, another: () => Uint8Array): Uint8Array {
    const r = this.random;
    if (data.length === 0) return this.insert(data, 0, this.freshBytes());
    switch (r.below(13)) {
      case 0: {
        const out = data.slice();
        out[r.below(out.length)]! ^= 1 << r.below(8);
        return out;
      }
      case 1: {
        const out = data.slice();
        out[r.below(out.length)] = r.chance(2) ? r.pick(INTERESTING_8) : r.below(256);
        return out;
      }
      case 2: {
        const out = data.slice();
        const at = r.below(out.length);
        out[at] = (out[at]! + (r.below(35) - 17)) & 0xff;
        return out;
      }
      case 3:
        return this.writeInteger(data, r.pick(INTERESTING_32), r.pick([2, 4]));
      case 4:
        return this.writeU64(data);
      case 5:
        return this.insert(data, r.below(data.length + 1), this.freshBytes());
      case 6: {
        const at = r.below(data.length);
        const n = 1 + r.below(Math.min(data.length - at, 16));
        return concat(data.subarray(0, at), data.subarray(at + n));
      }
      case 7: {
        // Repeat a run: lengths and counts drift apart, and long inputs come quickly.
        const at = r.below(data.length);
        const n = 1 + r.below(Math.min(data.length - at, 64));
        return this.insert(data, r.below(data.length + 1), data.subarray(at, at + n));
      }
      case 8:
      case 9: {
        if (this.tokens.length === 0) return this.insert(data, r.below(data.length + 1), this.freshBytes());
        const token = r.pick(this.tokens);
        const at = r.below(data.length + 1);
        if (r.chance(2)) return this.insert(data, at, token);
        const out = data.slice();
        out.set(token.subarray(0, out.length - Math.min(at, out.length)), Math.min(at, out.length));
        return out;
      }
      case 10: {
        const other = another();
        if (other.length === 0) return data;
        const cut = r.below(data.length + 1);
        const from = r.below(other.length);
        return concat(data.subarray(0, cut), other.subarray(from, from + 1 + r.below(other.length - from)));
      }
      case 11:
        return data.subarray(0, r.below(data.length + 1));
      default: {
        // A length field a decoder trusts: set a u16 or u32 to the bytes that follow it.
        const at = r.below(data.length);
        const width = r.pick([2, 4]);
        return this.writeIntegerAt(data, at, Math.max(0, data.length - at - width - r.below(3)), width);
      }
    }
  }

  private freshBytes(): Uint8Array {
    const n = 1 + this.random.below(8);
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.random.chance(2) ? this.random.pick(INTERESTING_8) : this.random.below(256);
    return out;
  }

  private insert(data: Uint8Array, at: number, bytes: Uint8Array): Uint8Array {
    if (data.length + bytes.length > this.maxLength) return data;
    return concat(data.subarray(0, at), bytes, data.subarray(at));
  }

  private writeInteger(data: Uint8Array, value: number, width: 2 | 4): Uint8Array {
    const v = this.random.chance(4) ? value + this.random.below(5) - 2 : value;
    return this.writeIntegerAt(data, this.random.below(data.length), v, width);
  }

  private writeIntegerAt(data: Uint8Array, at: number, value: number, width: number): Uint8Array {
    const out = data.slice();
    for (let i = 0; i < width && at + i < out.length; i++) out[at + i] = (value >>> (8 * i)) & 0xff;
    return out;
  }

  private writeU64(data: Uint8Array): Uint8Array {
    const at = this.random.below(data.length);
    const out = this.writeIntegerAt(data, at, this.random.pick(INTERESTING_32), 4);
    return this.writeIntegerAt(out, at + 4, this.random.pick(INTERESTING_64_HIGH), 4);
  }
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
