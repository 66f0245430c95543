// One terminal row in a few bytes: the compact form rows take when they leave
// xterm's live buffer. xterm keeps 12 bytes per cell plus objects (~2 KB per
// 80-column row); here a row of coloured log text is ~1 byte per character
// and ~10 per colour change, and trailing blanks cost nothing.
//
//   row   := varint flags (bit 0: wrapped onto the row above)  varint cols (the row's width)
//            op* (to the row's end, which the block's row index gives; trailing empty
//            cells with the default look are left out)
//   op    := ATTR  varint fg  varint bg  [varint ext  varint link]   (the bracket when bg has HAS_EXTENDED;
//                                                                     link 0 = none, else 1 + index in the block's table)
//          | TEXT  varint n  n × varint codepoint                    (width-1 characters)
//          | WIDE  varint n  n × varint codepoint                    (width-2 characters, each with its spacer cell)
//          | BLANK varint n                                          (empty cells)
//          | CELL  varint content  [varint units  units × varint]    (anything else, verbatim; UTF-16 units when combined)
//
// Cells keep xterm's own words (content, fg, bg, extended attributes), so a
// decoded row is cell for cell the row that left: colours in their mode,
// every flag, wide characters, combining marks, styled blanks, links (by
// value: the terminal forgets a link once no live row uses it).
import type { RawBufferLine } from '../scrollback-tap.js';
import type { LinkData } from '../xterm-private.js';
import { BG_HAS_EXTENDED } from '../xterm-private.js';
import { ByteReader, ByteWriter } from './bytes.js';

const CELL_WORDS = 3;
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const WIDTH_SHIFT = 22;
/** An empty cell: no codepoint, width 1 (what xterm fills new rows with). */
export const NULL_CONTENT = 1 << WIDTH_SHIFT;
const WIDE_CONTENT = 2 << WIDTH_SHIFT;

const enum Op {
  ATTR = 0,
  TEXT = 1,
  WIDE = 2,
  BLANK = 3,
  CELL = 4,
}

const FLAG_WRAPPED = 1;

/** Links of one block, by value, each stored once. */
export class LinkTable {
  readonly links: LinkData[] = [];
  private readonly index = new Map<string, number>();

  /** 1 + the link's index (0 for none). */
  ref(link: LinkData | undefined): number {
    if (link === undefined) return 0;
    const key = `${link.id ?? ''}\u0000${link.uri}`;
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.links.length;
      this.links.push({ id: link.id, uri: link.uri });
      this.index.set(key, i);
    }
    return i + 1;
  }

  get size(): number {
    return this.links.length;
  }
}

type Kind = Op.TEXT | Op.WIDE | Op.BLANK | Op.CELL;

/**
 * Appends one row to `out`. `linkOf` resolves the terminal's link ids (read
 * now: the terminal drops a link with the last row that uses it).
 */
export function encodeRow(line: RawBufferLine, out: ByteWriter, links: LinkTable, linkOf: (urlId: number) => LinkData | undefined): void {
  const data = line._data;
  const cols = line.length;
  const n = cols;
  out.op1(line.isWrapped ? FLAG_WRAPPED : 0, cols);
  let fg = 0;
  let bg = 0;
  let ext = 0;
  let urlId = 0;
  let x = 0;
  while (x < n) {
    const i = x * CELL_WORDS;
    const content = data[i]!;
    const cfg = data[i + 1]!;
    const cbg = data[i + 2]!;
    // The common cells first, in tight loops: runs of plain characters or of
    // empty cells with one look and no extended attributes (a row leaves
    // the live buffer for every line of output a program prints, so this is
    // on the parse path).
    if ((cbg & BG_HAS_EXTENDED) === 0 && (content === NULL_CONTENT || ((content & ~CODEPOINT_MASK) === NULL_CONTENT && (content & CODEPOINT_MASK) !== 0))) {
      if (cfg !== fg || cbg !== bg || ext !== 0 || urlId !== 0) {
        fg = cfg;
        bg = cbg;
        ext = 0;
        urlId = 0;
        out.op2(Op.ATTR, fg, bg);
      }
      let end = x + 1;
      let j = i + CELL_WORDS;
      if (content === NULL_CONTENT) {
        while (end < n && data[j] === NULL_CONTENT && data[j + 1] === cfg && data[j + 2] === cbg) {
          end++;
          j += CELL_WORDS;
        }
        // Empty cells with the default look to the end of the row are what a decoded row starts with.
        if (end === n && cfg === 0 && cbg === 0) break;
        out.op1(Op.BLANK, end - x);
      } else {
        end = out.plainRun(Op.TEXT, data, i, n * CELL_WORDS, CODEPOINT_MASK, NULL_CONTENT, cfg, cbg) / CELL_WORDS;
      }
      x = end;
      continue;
    }
    let cext = 0;
    let curl = 0;
    if ((cbg & BG_HAS_EXTENDED) !== 0) {
      const e = line._extendedAttrs[x];
      cext = e?._ext ?? 0;
      curl = e?._urlId ?? 0;
    }
    if (cfg !== fg || cbg !== bg || cext !== ext || curl !== urlId) {
      fg = cfg;
      bg = cbg;
      ext = cext;
      urlId = curl;
      out.byte(Op.ATTR);
      out.varint(fg);
      out.varint(bg);
      if ((bg & BG_HAS_EXTENDED) !== 0) {
        out.varint(ext);
        out.varint(links.ref(urlId === 0 ? undefined : linkOf(urlId)));
      }
    }
    const kind = kindAt(data, x, n, content);
    if (kind === Op.CELL) {
      out.byte(Op.CELL);
      out.varint(content);
      if ((content & IS_COMBINED) !== 0) {
        const text = line._combined[x] ?? '';
        out.varint(text.length);
        for (let k = 0; k < text.length; k++) out.varint(text.charCodeAt(k));
      }
      x++;
      continue;
    }
    // A run of cells of this kind with these attributes.
    const step = kind === Op.WIDE ? 2 : 1;
    let end = x + step;
    while (end < n && sameAttrsAt(line, data, x, end) && kindAt(data, end, n, data[end * CELL_WORDS]!) === kind) end += step;
    out.byte(kind);
    out.varint((end - x) / step);
    if (kind !== Op.BLANK) {
      for (let c = x; c < end; c += step) out.varint(data[c * CELL_WORDS]! & CODEPOINT_MASK);
    }
    x = end;
  }
}

function kindAt(data: Uint32Array, x: number, n: number, content: number): Kind {
  if (content === NULL_CONTENT) return Op.BLANK;
  if ((content & IS_COMBINED) !== 0 || (content & CODEPOINT_MASK) === 0) return Op.CELL;
  const width = content >>> WIDTH_SHIFT;
  if (width === 1) return Op.TEXT;
  if (width === 2 && x + 1 < n) {
    const i = x * CELL_WORDS;
    const j = i + CELL_WORDS;
    // The spacer after a wide character: empty, width 0, same look.
    if (data[j] === 0 && data[j + 1] === data[i + 1] && data[j + 2] === data[i + 2]) return Op.WIDE;
  }
  return Op.CELL;
}

function sameAttrsAt(line: RawBufferLine, data: Uint32Array, a: number, b: number): boolean {
  const i = a * CELL_WORDS;
  const j = b * CELL_WORDS;
  if (data[i + 1] !== data[j + 1] || data[i + 2] !== data[j + 2]) return false;
  if ((data[i + 2]! & BG_HAS_EXTENDED) === 0) return true;
  const ea = line._extendedAttrs[a];
  const eb = line._extendedAttrs[b];
  return (ea?._ext ?? 0) === (eb?._ext ?? 0) && (ea?._urlId ?? 0) === (eb?._urlId ?? 0);
}

/** A row read back: xterm's words for its used cells, and what hangs off them. */
export interface DecodedRow {
  cols: number;
  wrapped: boolean;
  /** 3 words per cell (content, fg, bg); cells past `used` are empty with default attributes. */
  cells: Uint32Array;
  used: number;
  combined: Map<number, string>;
  /** Extended attributes by cell: underline style and colour (ext) and a link (1 + index in the block's table, 0 none). */
  extended: Map<number, { ext: number; link: number }>;
}

/** Decodes one row; `input` ends where the row does. */
export function decodeRow(input: ByteReader): DecodedRow {
  const flags = input.byte();
  const cols = input.varint();
  const cells = new Uint32Array(cols * CELL_WORDS);
  const combined = new Map<number, string>();
  const extended = new Map<number, { ext: number; link: number }>();
  let fg = 0;
  let bg = 0;
  let ext = 0;
  let link = 0;
  let x = 0;
  const put = (content: number): void => {
    if (x >= cols) throw new Error(`history row has more than its ${cols} cells`);
    const i = x * CELL_WORDS;
    cells[i] = content;
    cells[i + 1] = fg;
    cells[i + 2] = bg;
    if ((bg & BG_HAS_EXTENDED) !== 0) extended.set(x, { ext, link });
    x++;
  };
  while (!input.done) {
    const op = input.byte();
    switch (op) {
      case Op.ATTR:
        fg = input.varint() >>> 0;
        bg = input.varint() >>> 0;
        if ((bg & BG_HAS_EXTENDED) !== 0) {
          ext = input.varint() >>> 0;
          link = input.varint();
        } else {
          ext = 0;
          link = 0;
        }
        break;
      case Op.TEXT:
      case Op.WIDE: {
        const count = input.varint();
        for (let k = 0; k < count; k++) {
          const cp = input.varint();
          if (op === Op.TEXT) put(cp | NULL_CONTENT);
          else {
            put(cp | WIDE_CONTENT);
            put(0);
          }
        }
        break;
      }
      case Op.BLANK: {
        const count = input.varint();
        for (let k = 0; k < count; k++) put(NULL_CONTENT);
        break;
      }
      case Op.CELL: {
        const content = input.varint() >>> 0;
        if ((content & IS_COMBINED) !== 0) {
          const units = input.varint();
          let text = '';
          for (let k = 0; k < units; k++) text += String.fromCharCode(input.varint());
          combined.set(x, text);
        }
        put(content);
        break;
      }
      default:
        throw new Error(`history row has an unknown op ${op}`);
    }
  }
  return { cols, wrapped: (flags & FLAG_WRAPPED) !== 0, cells, used: x, combined, extended };
}
