// Named keys for `tend send --keys`: what a terminal sends when the key is
// pressed, in tmux's spelling (C-c, M-x, Up, BSpace, F5). Cursor and
// function keys are sent in the normal-mode form (CSI A, not SS3 A); programs
// that switch the keypad to application mode accept both.

const ESC = '\x1b';

const NAMED: Readonly<Record<string, string>> = {
  Enter: '\r',
  Tab: '\t',
  BTab: `${ESC}[Z`,
  Escape: ESC,
  Space: ' ',
  Comma: ',',
  BSpace: '\x7f',
  Up: `${ESC}[A`,
  Down: `${ESC}[B`,
  Right: `${ESC}[C`,
  Left: `${ESC}[D`,
  Home: `${ESC}[H`,
  End: `${ESC}[F`,
  Insert: `${ESC}[2~`,
  Delete: `${ESC}[3~`,
  PageUp: `${ESC}[5~`,
  PageDown: `${ESC}[6~`,
  F1: `${ESC}OP`,
  F2: `${ESC}OQ`,
  F3: `${ESC}OR`,
  F4: `${ESC}OS`,
  F5: `${ESC}[15~`,
  F6: `${ESC}[17~`,
  F7: `${ESC}[18~`,
  F8: `${ESC}[19~`,
  F9: `${ESC}[20~`,
  F10: `${ESC}[21~`,
  F11: `${ESC}[23~`,
  F12: `${ESC}[24~`,
};

// Other spellings people type; each maps to a name above.
const ALIASES: Readonly<Record<string, string>> = {
  Return: 'Enter',
  Esc: 'Escape',
  Backspace: 'BSpace',
  BS: 'BSpace',
  PgUp: 'PageUp',
  PPage: 'PageUp',
  PgDn: 'PageDown',
  NPage: 'PageDown',
  Del: 'Delete',
  DC: 'Delete',
  IC: 'Insert',
};

const lowerIndex = new Map<string, string>(
  [...Object.keys(NAMED), ...Object.keys(ALIASES)].map((name) => [name.toLowerCase(), ALIASES[name] ?? name]),
);

export class KeyNameError extends Error {}

/** The control character for C-x: the key's code with bits 5 and 6 cleared. */
function controlOf(key: string): string | null {
  if (key === 'Space' || key === '@' || key === ' ') return '\x00';
  if (key === '?') return '\x7f';
  if (key.length !== 1) return null;
  const code = key.toUpperCase().charCodeAt(0);
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code & 0x1f);
  return null;
}

/** The bytes (as a string) one key name stands for; throws KeyNameError. */
export function keyBytes(spec: string): string {
  let rest = spec;
  let control = false;
  let meta = false;
  // Modifiers in any order: C-M-x and M-C-x are the same key.
  for (;;) {
    if (/^C-./i.test(rest) && rest.length > 2) {
      control = true;
      rest = rest.slice(2);
    } else if (/^M-./i.test(rest) && rest.length > 2) {
      meta = true;
      rest = rest.slice(2);
    } else break;
  }
  let base: string;
  const named = lowerIndex.get(rest.toLowerCase());
  if (control) {
    const c = controlOf(named === 'Space' ? 'Space' : rest);
    if (c === null) throw new KeyNameError(`"${spec}": C- goes with a letter or one of @[\\]^_? or Space`);
    base = c;
  } else if (named !== undefined) {
    base = NAMED[named]!;
  } else if ([...rest].length === 1) {
    base = rest; // a single character stands for itself
  } else {
    throw new KeyNameError(`"${spec}" is not a key name`);
  }
  return meta ? ESC + base : base;
}

/** Parses "C-c,Up,Enter" (and repeated --keys options) into the bytes to send. */
export function parseKeys(specs: readonly string[]): string {
  let out = '';
  for (const spec of specs) {
    for (const name of splitKeyList(spec)) {
      try {
        out += keyBytes(name);
      } catch (err) {
        if (err instanceof KeyNameError) throw new KeyNameError(`${err.message}; known keys: ${KEY_NAMES_HELP}`);
        throw err;
      }
    }
  }
  return out;
}

// "C-c,Up,Enter": names are split on commas, so the comma key is "Comma".
function splitKeyList(spec: string): string[] {
  return spec.split(',').map((n) => n.trim()).filter((n) => n !== '');
}

export const KEY_NAMES_HELP = `C-a..C-z, C-@, C-[, C-\\, C-], C-^, C-_, M-KEY, ${Object.keys(NAMED).filter((n) => !/^F\d/.test(n)).join(', ')}, F1..F12, or one character`;
