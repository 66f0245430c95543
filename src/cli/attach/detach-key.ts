// The detach key of `tend attach`: a prefix byte (default Ctrl-\) then `d`.
// Everything else the user types goes to the session unchanged: the prefix
// followed by another byte sends both, the prefix twice sends one prefix (so
// the session can still be given the prefix itself). The filter is a two-state
// machine over bytes and accepts any chunking: a prefix at the end of one
// stdin read waits for the next read.

/** Ctrl-\ (FS, 0x1c): rarely bound by shells or editors, unlike Ctrl-a or Ctrl-b. */
export const DEFAULT_DETACH_PREFIX = 0x1c;
/** The key after the prefix that detaches. */
export const DETACH_FINAL_BYTE = 0x64; // 'd'

export class DetachKeyError extends Error {}

/**
 * Parses a detach prefix as a person writes it: `C-\`, `C-a`, `^A`, `ctrl-]`,
 * or a single control character. Only control keys are accepted: a printable
 * prefix would eat a letter the user means to type.
 */
export function parseDetachKey(spec: string): number {
  const text = spec.trim();
  if (text.length === 1 && text.charCodeAt(0) < 0x20) return text.charCodeAt(0);
  const m = /^(?:c-|ctrl-|ctrl\+|\^)(.)$/i.exec(text);
  if (m) {
    const ch = m[1]!;
    if (ch === '?') throw new DetachKeyError('Ctrl-? is DEL, which terminals send for Backspace; choose another detach key');
    const code = ch.toUpperCase().charCodeAt(0);
    // Ctrl-@ .. Ctrl-_ map to 0x00 .. 0x1f (the key's code with bit 0x40 cleared).
    if (code >= 0x40 && code <= 0x5f) return code & 0x1f;
  }
  throw new DetachKeyError(
    `cannot use "${spec}" as a detach key: give a control key like C-\\ (the default), C-a or ^]`,
  );
}

/** How a prefix byte is shown to people: `Ctrl-\`. */
export function describeDetachKey(prefix: number): string {
  return `Ctrl-${String.fromCharCode(prefix | 0x40)}`;
}

export interface FilteredInput {
  /** Bytes for the session, in order (may be empty). */
  forward: Uint8Array;
  /** The detach key was pressed; bytes after it in the same read are dropped. */
  detach: boolean;
}

export class DetachKeyFilter {
  /** A prefix was seen and its next byte has not arrived yet. */
  private pending = false;

  constructor(private readonly prefix: number = DEFAULT_DETACH_PREFIX) {}

  get isPending(): boolean {
    return this.pending;
  }

  feed(chunk: Uint8Array): FilteredInput {
    // Fast path: most reads hold no prefix at all and are passed as they are.
    if (!this.pending && !chunk.includes(this.prefix)) return { forward: chunk, detach: false };
    const out: number[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.pending) {
        this.pending = false;
        if (byte === DETACH_FINAL_BYTE) return { forward: Uint8Array.from(out), detach: true };
        out.push(this.prefix);
        // The prefix twice means one prefix for the session.
        if (byte !== this.prefix) out.push(byte);
        continue;
      }
      if (byte === this.prefix) this.pending = true;
      else out.push(byte);
    }
    return { forward: Uint8Array.from(out), detach: false };
  }
}
