// What `tend attach` draws over the session's screen: a band of rows at the
// bottom of the outer terminal (the entry hint, the read-only marker, the
// `prefix ?` keys, the `prefix s` session list). tend has no status line of
// its own — the session gets every row of the terminal, as a program run
// without tend would — so these are drawn over the screen for a while and
// then the server repaints it (attach-session.ts): afterwards the outer
// screen is the session's exactly. Drawing never scrolls: each row is
// addressed, and text stops short of the last column, so no character can
// wrap onto the next row (or scroll the screen from the bottom one).

const CSI = '\x1b[';

export interface OverlayLine {
  text: string;
  /** Drawn set apart from the band (the selected row of a list). */
  highlight?: boolean;
}

/**
 * The rows drawn over the bottom of a screen of `size`: one per line (the
 * last lines kept if there are more than rows), each a reverse-video band the
 * terminal's width less a column. Cursor, pen and charsets are saved and put
 * back (DECSC/DECRC), so the session's bytes written after it continue as
 * the program left them; the text is drawn with G0 as ASCII (a program may
 * have left DEC line drawing on).
 */
export function drawOverlay(lines: readonly OverlayLine[], size: { cols: number; rows: number }): string {
  const shown = lines.slice(-size.rows);
  const top = size.rows - shown.length + 1;
  const width = Math.max(0, size.cols - 1);
  let out = `\x1b7\x1b(B\x0f`;
  shown.forEach((line, i) => {
    const pen = line.highlight ? `${CSI}0;1m` : `${CSI}0;7m`;
    out += `${CSI}${top + i};1H${pen}${fitColumns(line.text, width)}${CSI}0m${CSI}K`;
  });
  return `${out}\x1b8`;
}

/**
 * Blanks the bottom `count` rows (cursor and pen kept): what an attach that
 * ends with something drawn over its screen leaves, rather than the overlay.
 */
export function eraseOverlay(count: number, size: { cols: number; rows: number }): string {
  let out = '\x1b7';
  for (let row = Math.max(1, size.rows - count + 1); row <= size.rows; row++) out += `${CSI}${row};1H${CSI}0m${CSI}2K`;
  return `${out}\x1b8`;
}

/** `text` cut or padded to exactly `width` columns, control characters left out. */
export function fitColumns(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const w = columnsOf(code);
    if (used + w > width) break;
    out += w === 0 && (code < 0x20 || (code >= 0x7f && code < 0xa0)) ? '' : ch;
    used += w;
  }
  return out + ' '.repeat(width - used);
}

/**
 * Columns a character takes in a terminal: 2 for the wide ranges (CJK,
 * Hangul, fullwidth forms, emoji), 0 for combining marks and controls, else
 * 1. Approximate (no table of every code point), and erring wide is harmless:
 * a row cut one column early still never wraps.
 */
function columnsOf(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f)) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}
