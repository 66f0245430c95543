// The keys a phone's on-screen keyboard lacks, as the bytes a terminal's
// keyboard would send for them: Esc, Tab, the arrows, Ctrl-C, and a few
// characters that hide on a second or third layer (| ~ /). Ctrl is a sticky
// modifier (workspace/sticky-ctrl.ts): armed, it changes the next key, from
// this row or from the on-screen keyboard (withCtrl).
//
// The arrows follow the terminal's cursor-key mode (DECCKM): a program that
// asked for application mode (vim, less, readline with keypad_xmit) expects
// ESC O A, everything else ESC [ A — what xterm.js itself sends for a
// hardware arrow key.

export type PhoneKey = 'esc' | 'tab' | 'ctrl-c' | 'up' | 'down' | 'left' | 'right' | 'pipe' | 'tilde' | 'slash';

export interface PhoneKeyInfo {
  key: PhoneKey;
  /** What the button shows. */
  label: string;
  /** What a screen reader says. */
  name: string;
}

/** The row's keys, in the order shown (Ctrl, the modifier, is drawn before them by the row). */
export const PHONE_KEYS: readonly PhoneKeyInfo[] = [
  { key: 'esc', label: 'Esc', name: 'Escape' },
  { key: 'tab', label: 'Tab', name: 'Tab' },
  { key: 'ctrl-c', label: '^C', name: 'Control C' },
  { key: 'left', label: '←', name: 'left arrow' },
  { key: 'up', label: '↑', name: 'up arrow' },
  { key: 'down', label: '↓', name: 'down arrow' },
  { key: 'right', label: '→', name: 'right arrow' },
  { key: 'pipe', label: '|', name: 'vertical bar' },
  { key: 'tilde', label: '~', name: 'tilde' },
  { key: 'slash', label: '/', name: 'slash' },
];

const ESC = '\x1b';
const ARROW_FINAL: Partial<Record<PhoneKey, string>> = { up: 'A', down: 'B', right: 'C', left: 'D' };
const PLAIN: Partial<Record<PhoneKey, string>> = { esc: ESC, tab: '\t', 'ctrl-c': '\x03', pipe: '|', tilde: '~', slash: '/' };

export interface KeyModes {
  /** The terminal is in application cursor-key mode (xterm.js: modes.applicationCursorKeysMode). */
  applicationCursor: boolean;
  /** The sticky Ctrl was armed for this key. */
  ctrl: boolean;
}

/** The bytes (as a string of code units below 0x80) the key sends. */
export function keyBytes(key: PhoneKey, modes: KeyModes): string {
  const final = ARROW_FINAL[key];
  if (final !== undefined) {
    // A modified arrow is always CSI 1;5 X, whatever the cursor-key mode (xterm's own choice).
    if (modes.ctrl) return `${ESC}[1;5${final}`;
    return modes.applicationCursor ? `${ESC}O${final}` : `${ESC}[${final}`;
  }
  const text = PLAIN[key]!;
  return modes.ctrl ? withCtrl(text) : text;
}

/**
 * `data` (what the on-screen keyboard typed) with Ctrl held on its first
 * character, as a terminal's keyboard encodes it: letters and @ [ \ ] ^ _
 * to their control codes, space to NUL, ? to DEL, / to ^_ (as xterm does).
 * A character Ctrl does not change is sent as it is.
 */
export function withCtrl(data: string): string {
  if (data.length === 0) return data;
  const first = data.codePointAt(0)!;
  const rest = data.slice(first > 0xffff ? 2 : 1);
  return controlOf(first) + rest;
}

function controlOf(code: number): string {
  const upper = code >= 0x61 && code <= 0x7a ? code - 0x20 : code;
  // '@' 'A'..'Z' '[' '\' ']' '^' '_'
  if (upper >= 0x40 && upper <= 0x5f) return String.fromCharCode(upper & 0x1f);
  if (code === 0x20) return '\x00';
  if (code === 0x3f) return '\x7f';
  if (code === 0x2f) return '\x1f';
  return String.fromCodePoint(code);
}
