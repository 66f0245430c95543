// Compares two headless terminals on everything a restore can get wrong, and
// says where they differ in words a person can act on. Used by the screen's
// round-trip tests (src/server/screen/) and by the server's recovery tests
// (reference vs restored).
import type { IBuffer, IBufferCell, Terminal } from '@xterm/headless';
import {
  BG_HAS_EXTENDED, BG_PROTECTED, linkOf, rawAttrsOf, readInternals, type BufferInternals, type TerminalInternals,
} from '../../src/server/screen/xterm-private.js';
import { penPlan } from '../../src/server/screen/pen-state.js';

export interface DiffOptions {
  /** Compare the normal buffer's scrollback too (default true), rows aligned at the bottom. */
  scrollback?: boolean;
  /** Titles, when the caller tracks them (xterm only reports them as events). */
  titles?: [string, string];
  /** Stop after this many differences (default 20). */
  limit?: number;
}

class Differences {
  readonly list: string[] = [];
  constructor(private readonly limit: number) {}
  get full(): boolean {
    return this.list.length >= this.limit;
  }
  check(what: string, a: unknown, b: unknown): void {
    if (this.full) return;
    const sa = JSON.stringify(a);
    const sb = JSON.stringify(b);
    if (sa !== sb) this.list.push(`${what}: ${sa} != ${sb}`);
  }
}

function cellLook(term: Terminal, cell: IBufferCell): Record<string, unknown> {
  const raw = rawAttrsOf(cell);
  const link = linkOf(term, raw.urlId);
  return {
    chars: cell.getChars(),
    width: cell.getWidth(),
    fg: [cell.getFgColorMode(), cell.getFgColor()],
    bg: [cell.getBgColorMode(), cell.getBgColor()],
    flags: [cell.isBold(), cell.isDim(), cell.isItalic(), cell.isUnderline(), cell.isBlink(), cell.isInverse(),
      cell.isInvisible(), cell.isStrikethrough(), cell.isOverline()].map((f) => (f ? 1 : 0)).join(''),
    // The style as drawn: an underline flag without a style record draws single (see penLook).
    underline: [cell.isUnderline() ? raw.underlineStyle || 1 : 0, raw.underlineColor],
    link: link === undefined ? null : [link.id ?? null, link.uri],
  };
}

function compareBuffers(d: Differences, name: string, ta: Terminal, a: IBuffer, tb: Terminal, b: IBuffer, withScrollback: boolean): void {
  const rows = ta.rows;
  const countA = withScrollback ? a.length : Math.min(a.length, rows);
  const countB = withScrollback ? b.length : Math.min(b.length, rows);
  d.check(`${name} buffer length`, countA, countB);
  const count = Math.min(countA, countB);
  const cellA = a.getNullCell();
  const cellB = b.getNullCell();
  for (let k = 0; k < count && !d.full; k++) {
    const ia = a.length - count + k;
    const ib = b.length - count + k;
    const la = a.getLine(ia)!;
    const lb = b.getLine(ib)!;
    const where = `${name} line ${ia - a.baseY} (${ia - a.baseY < 0 ? 'scrollback' : 'screen'})`;
    d.check(`${where} isWrapped`, la.isWrapped, lb.isWrapped);
    for (let x = 0; x < ta.cols && !d.full; x++) {
      la.getCell(x, cellA);
      lb.getCell(x, cellB);
      const lookA = cellLook(ta, cellA);
      const lookB = cellLook(tb, cellB);
      for (const key of Object.keys(lookA)) d.check(`${where} col ${x} ${key}`, lookA[key], lookB[key]);
    }
  }
}

// The pen as it is: the underline flag apart from the style record, and the record whether or
// not it shows (pen-state.ts says why each matters later).
function penLook(term: Terminal, internals: TerminalInternals): unknown {
  const ext = internals.penExtended;
  return {
    fg: internals.pen.fg,
    bg: internals.pen.bg,
    recordShown: ext.shown,
    underlineStyle: ext.underlineStyle,
    underlineColor: ext.underlineColor,
    link: ext.urlId === 0 ? null : linkOf(term, ext.urlId) ?? 'forgotten',
  };
}

// DECSC keeps the fg and bg words whole: the bg's extended-record flag decides whether a DECRC
// shows the pen's style and link then (xterm "closes" a link opened after the DECSC that way), and
// a column past the last (saved in the pending-wrap position) comes back as such after a resize.
function savedCursorOf(state: BufferInternals): unknown {
  const s = state.saved;
  return { x: s.x, y: Math.max(0, s.absY - state.ybase), fg: s.fg, bg: s.bg & ~BG_PROTECTED };
}

/** Human-readable differences between `a` and `b`; empty when they are the same terminal state. */
export function diffTerminals(a: Terminal, b: Terminal, options: DiffOptions = {}): string[] {
  const d = new Differences(options.limit ?? 20);
  d.check('size', [a.cols, a.rows], [b.cols, b.rows]);
  if (d.full || a.cols !== b.cols || a.rows !== b.rows) return d.list;
  d.check('active buffer', a.buffer.active.type, b.buffer.active.type);
  compareBuffers(d, 'normal', a, a.buffer.normal, b, b.buffer.normal, options.scrollback ?? true);
  if (a.buffer.active.type === 'alternate' || b.buffer.active.type === 'alternate') {
    compareBuffers(d, 'alternate', a, a.buffer.alternate, b, b.buffer.alternate, false);
  }
  d.check('cursor', [a.buffer.active.cursorX, a.buffer.active.cursorY], [b.buffer.active.cursorX, b.buffer.active.cursorY]);
  d.check('modes', a.modes, b.modes);
  const ia = readInternals(a);
  const ib = readInternals(b);
  d.check('cursor hidden', ia.cursorHidden, ib.cursorHidden);
  d.check('cursor style', [ia.cursorStyle ?? null, ia.cursorBlink ?? null], [ib.cursorStyle ?? null, ib.cursorBlink ?? null]);
  d.check('mouse encoding', ia.mouseEncoding, ib.mouseEncoding);
  d.check('pen', penLook(a, ia), penLook(b, ib));
  d.check('charsets', [ia.charsets.map((c, g) => c === ib.charsets[g]), ia.glevel], [ia.charsets.map(() => true), ib.glevel]);
  d.check('active charset', true, ia.activeCharset === ib.activeCharset);
  for (const kind of ['normal', 'alternate'] as const) {
    if (kind === 'alternate' && a.buffer.active.type !== 'alternate') continue;
    const sa = ia[kind];
    const sb = ib[kind];
    d.check(`${kind} scroll region`, [sa.scrollTop, sa.scrollBottom], [sb.scrollTop, sb.scrollBottom]);
    d.check(`${kind} tab stops`, sa.tabStops, sb.tabStops);
    d.check(`${kind} saved cursor`, savedCursorOf(sa), savedCursorOf(sb));
    d.check(`${kind} saved charset`, true, sa.saved.charset === sb.saved.charset);
  }
  if (options.titles !== undefined) d.check('title', options.titles[0], options.titles[1]);
  return d.list;
}

/**
 * Why `term` holds state that the snapshot does not rebuild in a fresh
 * terminal (so a round trip cannot be exact), or undefined: cells that point
 * at a link xterm has already forgotten (the link's first line was trimmed;
 * the cell still reports as underlined), and a pen no stream the writer
 * makes gives (pen-state.ts).
 */
export function unrestorableState(term: Terminal): string | undefined {
  const plan = penPlan(term, readInternals(term));
  if (plan.kind === 'unreachable') return plan.why;
  for (const buffer of [term.buffer.normal, term.buffer.alternate]) {
    const cell = buffer.getNullCell();
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y)!;
      for (let x = 0; x < term.cols; x++) {
        const urlId = rawAttrsOf(line.getCell(x, cell)!).urlId;
        if (urlId !== 0 && linkOf(term, urlId) === undefined) return 'cell pointing at a forgotten link';
      }
    }
  }
  return undefined;
}
