// The pen (what the next printed character looks like) as xterm keeps it:
// an fg word with the underline flag, a bg word whose flag says whether the
// extended record (underline style and colour, link) shows, and the record.
// SGR and OSC 8 make only pens where the flag and the style agree (SGR 4:3
// sets both); a DECRC puts back the fg and bg words saved by DECSC and keeps
// the record, which makes the others: `CSI 4:3 m`, `ESC 8`, then an OSC 8
// link leaves a curly style with the flag off. Such a pen prints underlined,
// but after `ESC 7`, `CSI 0 m`, `ESC 8` it prints plain, where a pen with
// the flag on prints underlined: so a restore must make it the same way.
import type { Terminal } from '@xterm/headless';
import { sameAttrs } from './cell-style.js';
import { BG_HAS_EXTENDED, FG_UNDERLINE, rawAttrsOf, type RawAttrs, type TerminalInternals } from './xterm-private.js';

export type PenPlan =
  /** `CSI 0;…m` and OSC 8 make it (sgrOf with the record's colour, which shows or not as the pen's does). */
  | { kind: 'sgr'; pen: RawAttrs }
  /**
   * The record first, then DECRC to the saved fg/bg (the target's saved
   * cursor is the original's), then the flags and colours without touching
   * the underline, then (showRecord) an OSC 8 that shows the record, then
   * the cursor put back: `back` says how (cup; reprint the last cell, which
   * looks like the pen, to stand past it; or stand past it from a visit to
   * the alternate screen).
   */
  | { kind: 'decrc'; pen: RawAttrs; showRecord: boolean; back: 'cup' | 'reprint' | 'visit' }
  /** No stream this writer makes gives this pen; why, for the tests' count. */
  | { kind: 'unreachable'; pen: RawAttrs; why: string };

/** How the snapshot makes the pen of `terminal` (whose internals are `internals`). */
export function penPlan(terminal: Terminal, internals: TerminalInternals): PenPlan {
  const buffer = terminal.buffer.active;
  const active = buffer.type === 'alternate' ? internals.alternate : internals.normal;
  const ext = internals.penExtended;
  // The colour goes with the pen even where it does not show (SGR 58 alone sets it without showing it).
  const pen: RawAttrs = { ...internals.pen, underlineColor: ext.underlineColor };
  const underline = (internals.pen.fg & FG_UNDERLINE) !== 0;
  const recordNonEmpty = ext.underlineStyle !== 0 || ext.urlId !== 0;
  const natural = ext.shown
    ? recordNonEmpty && underline === (ext.underlineStyle !== 0)
    : ext.underlineStyle === 0 && ext.urlId === 0 && !underline;
  if (natural) return { kind: 'sgr', pen };
  const saved = active.saved;
  if (((saved.fg & FG_UNDERLINE) !== 0) !== underline) {
    return { kind: 'unreachable', pen, why: 'pen whose underline flag differs from its record and from the saved cursor\'s' };
  }
  const savedShows = (saved.bg & BG_HAS_EXTENDED) !== 0;
  // An OSC 8 shows a record that is not empty; nothing hides one but a DECRC.
  const showRecord = savedShows !== ext.shown;
  if (showRecord && !(ext.shown && recordNonEmpty)) {
    return { kind: 'unreachable', pen, why: 'pen with a hidden extended record behind a saved cursor that shows one' };
  }
  if (buffer.cursorX < terminal.cols) return { kind: 'decrc', pen, showRecord, back: 'cup' };
  // Past the last column: the DECRC moved the cursor, and only printing the last column gets back there.
  const line = buffer.getLine(buffer.baseY + buffer.cursorY)!;
  let cell = line.getCell(terminal.cols - 1)!;
  if (cell.getWidth() === 0) cell = line.getCell(terminal.cols - 2)!;
  // (printed after the DECRC, so only while that leaves the charset that prints characters as they are)
  if (cell.getChars() !== '' && sameAttrs(rawAttrsOf(cell), pen) && saved.charset === undefined) return { kind: 'decrc', pen, showRecord, back: 'reprint' };
  if (buffer.type === 'normal') return { kind: 'decrc', pen, showRecord, back: 'visit' };
  return { kind: 'unreachable', pen, why: 'pen a DECRC makes, with the cursor past the last column of the alternate screen' };
}
