// The prefix key of `tend attach` (default Ctrl-\), as a person writes it
// and as it is shown; the keys that follow it are in prefix-keys.ts
// (`d` detaches, hence the option's name, --detach-key).

/** Ctrl-\ (FS, 0x1c): rarely bound by shells or editors, unlike Ctrl-a or Ctrl-b. */
export const DEFAULT_DETACH_PREFIX = 0x1c;

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
