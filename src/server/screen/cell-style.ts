// SGR for a cell's look, written in full (`CSI 0;...m`) rather than as a diff
// from the previous cell: a diff needs "turn off" codes, and SGR 22 turns off
// bold and dim together, which is how a bold+dim run followed by a dim run
// loses its dim. A full rendition is never wrong and costs a few bytes only
// where the look changes.
import {
  BG_DIM, BG_ITALIC, BG_OVERLINE, COLOR_MODE_MASK, COLOR_MODE_P16, COLOR_MODE_P256, COLOR_MODE_RGB,
  COLOR_VALUE_MASK, FG_BLINK, FG_BOLD, FG_INVERSE, FG_INVISIBLE, FG_STRIKETHROUGH, FG_UNDERLINE,
  type LinkData, type RawAttrs,
} from './xterm-private.js';

const ESC = '\x1b';
/** Bits of the bg word that an erase (ECH/EL/ED) keeps from the pen: the colour only. */
const BG_COLOR_BITS = COLOR_MODE_MASK | COLOR_VALUE_MASK;

function colorParams(word: number, base: 30 | 40 | 58): string {
  const mode = word & COLOR_MODE_MASK;
  const value = mode === COLOR_MODE_RGB ? word & COLOR_VALUE_MASK : word & 0xff;
  if (mode === COLOR_MODE_P16 && base !== 58) {
    // 16-colour SGR (30–37, 90–97) kept as such: 38;5;1 and 31 differ to terminals that brighten bold.
    return value < 8 ? `;${base + value}` : `;${base + 60 + value - 8}`;
  }
  const ext = base === 30 ? 38 : base === 40 ? 48 : 58;
  if (mode === COLOR_MODE_P256 || mode === COLOR_MODE_P16) return `;${ext};5;${value & 0xff}`;
  if (mode === COLOR_MODE_RGB) return `;${ext};2;${(value >>> 16) & 0xff};${(value >>> 8) & 0xff};${value & 0xff}`;
  return '';
}

/**
 * `CSI 0;…m` reproducing every attribute xterm keeps for a cell (links are
 * separate: OSC 8). A style record with the underline flag off is written
 * as an underline: xterm draws such a cell underlined (its isUnderline()
 * reads the record), and nothing reads a cell's flag apart. Only the pen's
 * flag matters later (pen-state.ts).
 */
export function sgrOf(attrs: RawAttrs): string {
  const { fg, bg } = attrs;
  let p = '0';
  if (fg & FG_BOLD) p += ';1';
  if (bg & BG_DIM) p += ';2';
  if (bg & BG_ITALIC) p += ';3';
  if (fg & FG_UNDERLINE || attrs.underlineStyle !== 0) {
    const style = attrs.underlineStyle === 0 ? 1 : attrs.underlineStyle;
    p += style === 1 ? ';4' : `;4:${style}`;
  }
  if (fg & FG_BLINK) p += ';5';
  if (fg & FG_INVERSE) p += ';7';
  if (fg & FG_INVISIBLE) p += ';8';
  if (fg & FG_STRIKETHROUGH) p += ';9';
  if (bg & BG_OVERLINE) p += ';53';
  p += colorParams(fg, 30);
  p += colorParams(bg, 40);
  if (attrs.underlineColor !== 0) p += colorParams(attrs.underlineColor, 58);
  return `${ESC}[${p}m`;
}

/**
 * SGR setting every flag and colour of `attrs` except the underline, and
 * leaving the underline flag, its style, colour and the link as they are
 * (no SGR 0, 4, 21, 24, 58 or 59): each flag off, then the wanted ones on.
 */
export function sgrKeepingUnderline(attrs: RawAttrs): string {
  const { fg, bg } = attrs;
  let p = '22;23;25;27;28;29;39;49;55';
  if (fg & FG_BOLD) p += ';1';
  if (bg & BG_DIM) p += ';2';
  if (bg & BG_ITALIC) p += ';3';
  if (fg & FG_BLINK) p += ';5';
  if (fg & FG_INVERSE) p += ';7';
  if (fg & FG_INVISIBLE) p += ';8';
  if (fg & FG_STRIKETHROUGH) p += ';9';
  if (bg & BG_OVERLINE) p += ';53';
  p += colorParams(fg, 30);
  p += colorParams(bg, 40);
  return `${ESC}[${p}m`;
}

/** OSC 8 opening `link`, or closing any link when undefined. */
export function oscLinkOf(link: LinkData | undefined): string {
  if (link === undefined) return `${ESC}]8;;${ESC}\\`;
  return `${ESC}]8;${link.id !== undefined ? `id=${link.id}` : ''};${link.uri}${ESC}\\`;
}

/** Whether an erase (ECH) with a pen of this background makes a blank with exactly these attributes. */
export function isEraseBlank(attrs: RawAttrs): boolean {
  return attrs.fg === 0 && (attrs.bg & ~BG_COLOR_BITS) === 0 && attrs.urlId === 0 && attrs.underlineColor === 0 && attrs.underlineStyle === 0;
}

export function sameAttrs(a: RawAttrs, b: RawAttrs): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.underlineStyle === b.underlineStyle &&
    a.underlineColor === b.underlineColor && a.urlId === b.urlId;
}

export const DEFAULT_ATTRS: RawAttrs = Object.freeze({ fg: 0, bg: 0, underlineStyle: 0, underlineColor: 0, urlId: 0 });

/** The attributes an erase leaves when the pen's background is `bg`. */
export function eraseAttrsFor(bg: number): RawAttrs {
  return { fg: 0, bg: bg & BG_COLOR_BITS, underlineStyle: 0, underlineColor: 0, urlId: 0 };
}
