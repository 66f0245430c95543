// The one place that reads @xterm/headless internals.
//
// Why: a snapshot must carry state the public API does not expose at all —
// the scroll region, tab stops, the saved cursor (per buffer), the G0–G3
// charsets and the shift state, the current SGR pen, the mouse encoding,
// cursor visibility and style, and per cell the underline style, underline
// colour and OSC 8 hyperlink. Shadowing all of that through parser hooks
// would mean re-implementing xterm's semantics for DECSTR, RIS, resize,
// alternate-screen switches and saved-cursor clamping, and any slip would
// silently corrupt restores; reading the emulator's own state is exact.
// Everything here is checked once per terminal (assertInternals), so an
// upgrade of @xterm/headless that renames a field fails loudly at
// construction and in the tests, never as a wrong screen.
import xtermHeadless from '@xterm/headless';
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/headless';

/** Attribute bits of xterm's cell model (src/common/buffer/Constants.ts). */
export const FG_INVERSE = 0x4000000;
export const FG_BOLD = 0x8000000;
export const FG_UNDERLINE = 0x10000000;
export const FG_BLINK = 0x20000000;
export const FG_INVISIBLE = 0x40000000;
export const FG_STRIKETHROUGH = 0x80000000;
export const BG_ITALIC = 0x4000000;
export const BG_DIM = 0x8000000;
export const BG_HAS_EXTENDED = 0x10000000;
export const BG_PROTECTED = 0x20000000;
export const BG_OVERLINE = 0x40000000;
export const COLOR_MODE_MASK = 0x3000000;
export const COLOR_MODE_P16 = 0x1000000;
export const COLOR_MODE_P256 = 0x2000000;
export const COLOR_MODE_RGB = 0x3000000;
export const COLOR_VALUE_MASK = 0xffffff;
const EXT_UNDERLINE_STYLE_MASK = 0x1c000000;
const EXT_UNDERLINE_STYLE_SHIFT = 26;

/** What a cell or the pen looks like, in xterm's own packed form. */
export interface RawAttrs {
  fg: number;
  bg: number;
  /** 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed (the raw style, not the link's). */
  underlineStyle: number;
  /** Colour mode | value, as fg/bg; 0 = default (the text colour). */
  underlineColor: number;
  /** xterm's link id, 0 = none; resolve with linkOf(). */
  urlId: number;
}

export interface LinkData {
  id: string | undefined;
  uri: string;
}

export interface SavedCursor {
  x: number;
  /** Absolute line (ybase + y at the time of saving), as xterm keeps it. */
  absY: number;
  fg: number;
  bg: number;
  charset: object | undefined;
}

export interface BufferInternals {
  scrollTop: number;
  scrollBottom: number;
  tabStops: number[];
  saved: SavedCursor;
  ybase: number;
}

export interface TerminalInternals {
  cursorHidden: boolean;
  cursorStyle: 'block' | 'underline' | 'bar' | undefined;
  cursorBlink: boolean | undefined;
  /** 'DEFAULT' (X10), 'SGR' (1006), 'SGR_PIXELS' (1016). */
  mouseEncoding: string;
  pen: RawAttrs;
  charsets: (object | undefined)[];
  glevel: number;
  /** The table printing uses now; differs from charsets[glevel] after a DECRC. */
  activeCharset: object | undefined;
  /**
   * The pen carries underline style/colour or a link in its extended record
   * while its bg word lacks the flag that makes them count (reachable only by
   * DECRC after setting them): invisible now, but an SGR 58/59 or OSC 8 later
   * makes them show. Not reproducible by any sequence a restore could write.
   */
  penHiddenExtended: boolean;
  /**
   * The pen's extended record as it is, whether or not its bg word's flag
   * shows it (`pen` reports it only when shown): what a later OSC 8 or
   * DECRC brings back.
   */
  penExtended: { shown: boolean; underlineStyle: number; underlineColor: number; urlId: number };
  normal: BufferInternals;
  alternate: BufferInternals;
}

interface ExtendedShape { _ext: number; _urlId: number }
interface AttrShape { fg: number; bg: number; extended: ExtendedShape }
interface BufferShape {
  scrollTop: number; scrollBottom: number; ybase: number;
  tabs: Record<number, boolean | undefined>;
  savedX: number; savedY: number; savedCurAttrData: AttrShape; savedCharset: object | undefined;
}
interface CoreShape {
  coreService: { isCursorHidden: boolean; decPrivateModes: { cursorStyle?: 'block' | 'underline' | 'bar'; cursorBlink?: boolean } };
  coreMouseService: { activeEncoding: string };
  _charsetService: { _charsets: (object | undefined)[]; glevel: number; charset: object | undefined };
  _oscLinkService: { getLinkData(id: number): { id?: string; uri: string } | undefined };
  _inputHandler: { _curAttrData: AttrShape; selectCharset(collectAndFlag: string): boolean; parse(data: string | Uint8Array): unknown };
  buffers: { normal: BufferShape; alt: BufferShape };
}

function coreOf(terminal: Terminal): CoreShape {
  return (terminal as unknown as { _core: CoreShape })._core;
}

/** Throws if this build of @xterm/headless does not have the fields read here. */
export function assertInternals(terminal: Terminal): void {
  const core = coreOf(terminal);
  const ok =
    core !== undefined &&
    typeof core.coreService?.isCursorHidden === 'boolean' &&
    typeof core.coreService.decPrivateModes === 'object' &&
    typeof core.coreMouseService?.activeEncoding === 'string' &&
    Array.isArray(core._charsetService?._charsets) &&
    typeof core._charsetService.glevel === 'number' &&
    typeof core._oscLinkService?.getLinkData === 'function' &&
    typeof (core._oscLinkService as unknown as { registerLink?: unknown }).registerLink === 'function' &&
    typeof core._inputHandler?._curAttrData?.fg === 'number' &&
    typeof core._inputHandler.parse === 'function' &&
    typeof core._inputHandler._curAttrData.extended?._ext === 'number' &&
    typeof core.buffers?.normal?.scrollTop === 'number' &&
    typeof core.buffers.normal.tabs === 'object' &&
    typeof core.buffers.normal.savedCurAttrData?.fg === 'number';
  if (!ok) {
    throw new Error('tend: this @xterm/headless build lacks the internal state the screen snapshot reads; pin @xterm/headless 6.0');
  }
}

/**
 * xterm switches a colour to a palette entry without clearing the old RGB
 * bits above the index (31 after 38;2;r;g;b keeps g and r); only the low byte
 * means anything then. Normalised so equal looks compare equal.
 */
/**
 * Parses bytes now, in this call, the way xterm's own write queue does for
 * each chunk (its action is exactly this call). The server schedules parse
 * time across sessions itself (parse-scheduler.ts), so it cannot use write(),
 * which queues and parses on xterm's own timer in 12 ms slices. Only sync
 * parser handlers are registered anywhere in the server, so nothing is lost
 * by not waiting for async ones.
 */
export function parseNow(terminal: Terminal, data: string | Uint8Array): void {
  coreOf(terminal)._inputHandler.parse(data);
}

function normalColor(word: number): number {
  const mode = word & COLOR_MODE_MASK;
  if (mode === COLOR_MODE_RGB) return word;
  if (mode === 0) return word & ~COLOR_VALUE_MASK;
  return (word & ~COLOR_VALUE_MASK) | (word & 0xff);
}

function rawOfAttr(attr: AttrShape): RawAttrs {
  const ext = attr.extended;
  const hasExt = (attr.bg & BG_HAS_EXTENDED) !== 0;
  return {
    fg: normalColor(attr.fg),
    // HAS_EXTENDED is bookkeeping, and DECSCA protection is not restored (documented in screen.ts).
    bg: normalColor(attr.bg & ~(BG_HAS_EXTENDED | BG_PROTECTED)),
    underlineStyle: hasExt ? (ext._ext & EXT_UNDERLINE_STYLE_MASK) >>> EXT_UNDERLINE_STYLE_SHIFT : 0,
    underlineColor: hasExt ? normalColor(ext._ext & (COLOR_MODE_MASK | COLOR_VALUE_MASK)) : 0,
    // Without HAS_EXTENDED a reused cell object still holds a stale extended record: ignore it.
    urlId: hasExt ? ext._urlId : 0,
  };
}

/** The attributes of a cell from buffer.getLine(y).getCell(x): the public IBufferCell is xterm's CellData. */
export function rawAttrsOf(cell: IBufferCell): RawAttrs {
  return rawOfAttr(cell as unknown as AttrShape);
}

/** The raw fg/bg words of a cell, for cheap "same look as the previous cell" checks. */
export function rawFg(cell: IBufferCell): number {
  return (cell as unknown as AttrShape).fg;
}
export function rawBg(cell: IBufferCell): number {
  return (cell as unknown as AttrShape).bg;
}
/** The cell's extended record (underline style/colour, link), or null when it has none. */
export function rawExtended(cell: IBufferCell): object | null {
  const attr = cell as unknown as AttrShape;
  return (attr.bg & BG_HAS_EXTENDED) !== 0 ? attr.extended : null;
}

export function linkOf(terminal: Terminal, urlId: number): LinkData | undefined {
  if (urlId === 0) return undefined;
  const data = coreOf(terminal)._oscLinkService.getLinkData(urlId) ?? keptLinks.get(terminal)?.get(urlId);
  return data === undefined ? undefined : { id: data.id, uri: data.uri };
}

/** Links most recently registered, per terminal, kept after xterm forgets them. */
const keptLinks = new WeakMap<Terminal, Map<number, LinkData>>();
/** How many links a terminal keeps beyond xterm's own memory. */
const KEPT_LINKS = 4096;

/**
 * xterm forgets a link when the row it was opened on leaves the buffer
 * (it keeps one marker per link, on that row), though a link that wrapped
 * onto later rows still colours their cells. Those rows then move to the
 * history with the link unresolvable. So each terminal remembers the last
 * KEPT_LINKS links it registered, by id, and linkOf() falls back on them.
 */
export function keepLinks(terminal: Terminal): void {
  if (keptLinks.has(terminal)) return;
  const kept = new Map<number, LinkData>();
  keptLinks.set(terminal, kept);
  const service = coreOf(terminal)._oscLinkService as unknown as { registerLink(data: LinkData): number };
  const register = service.registerLink.bind(service);
  service.registerLink = (data: LinkData): number => {
    const id = register(data);
    kept.delete(id);
    kept.set(id, { id: data.id, uri: data.uri });
    if (kept.size > KEPT_LINKS) kept.delete(kept.keys().next().value as number);
    return id;
  };
}

function bufferInternals(buffer: BufferShape, cols: number): BufferInternals {
  const tabStops: number[] = [];
  for (let x = 0; x < cols; x++) if (buffer.tabs[x]) tabStops.push(x);
  return {
    scrollTop: buffer.scrollTop,
    scrollBottom: buffer.scrollBottom,
    tabStops,
    ybase: buffer.ybase,
    saved: {
      x: buffer.savedX,
      absY: buffer.savedY,
      fg: normalColor(buffer.savedCurAttrData.fg),
      bg: normalColor(buffer.savedCurAttrData.bg),
      charset: buffer.savedCharset,
    },
  };
}

export function readInternals(terminal: Terminal): TerminalInternals {
  const core = coreOf(terminal);
  const modes = core.coreService.decPrivateModes;
  return {
    cursorHidden: core.coreService.isCursorHidden,
    cursorStyle: modes.cursorStyle,
    cursorBlink: modes.cursorBlink,
    mouseEncoding: core.coreMouseService.activeEncoding,
    pen: rawOfAttr(core._inputHandler._curAttrData),
    charsets: core._charsetService._charsets.slice(0, 4),
    glevel: core._charsetService.glevel,
    activeCharset: core._charsetService.charset,
    penHiddenExtended: (() => {
      const pen = core._inputHandler._curAttrData;
      return (pen.bg & BG_HAS_EXTENDED) === 0 && (pen.extended._ext !== 0 || pen.extended._urlId !== 0);
    })(),
    penExtended: (() => {
      const pen = core._inputHandler._curAttrData;
      return {
        shown: (pen.bg & BG_HAS_EXTENDED) !== 0,
        underlineStyle: (pen.extended._ext & EXT_UNDERLINE_STYLE_MASK) >>> EXT_UNDERLINE_STYLE_SHIFT,
        underlineColor: normalColor(pen.extended._ext & (COLOR_MODE_MASK | COLOR_VALUE_MASK)),
        urlId: pen.extended._urlId,
      };
    })(),
    normal: bufferInternals(core.buffers.normal, terminal.cols),
    alternate: bufferInternals(core.buffers.alt, terminal.cols),
  };
}

/** Every final byte xterm accepts in `ESC ( F` (src/common/data/Charsets.ts). */
const CHARSET_FINALS = ['0', 'A', 'B', '4', 'C', '5', 'R', 'f', 'Q', '9', 'K', 'Y', 'E', '6', 'Z', 'H', '7', '='];
let designators: Map<object, string> | undefined;

/**
 * Which `ESC ( F` final selects a given charset table. xterm keeps the
 * designated tables as shared objects and does not export them, so they are
 * learnt once from a scratch terminal by asking its input handler to
 * designate each one (synchronously, without writing bytes).
 */
export function charsetDesignator(charset: object): string | undefined {
  if (designators === undefined) {
    const probe = new xtermHeadless.Terminal({ cols: 2, rows: 1, allowProposedApi: true });
    try {
      const core = coreOf(probe);
      const found = new Map<object, string>();
      for (const final of CHARSET_FINALS) {
        core._inputHandler.selectCharset('(' + final);
        const table = core._charsetService._charsets[0];
        if (table !== undefined && !found.has(table)) found.set(table, final);
      }
      designators = found;
    } finally {
      probe.dispose();
    }
  }
  return designators.get(charset);
}

/**
 * xterm 6.0 bug: ED 1 (`CSI 1 J`, also DECSED `CSI ? 1 J`) with the cursor at
 * the last column clears the wrap flag of the line *below* by screen row
 * instead of buffer line: it touches a scrollback row near the top of the
 * buffer (which row depends on how much scrollback there is, so a terminal
 * whose old rows moved to the history would touch another one), and throws
 * when that index is past the buffer's end (bottom row, no scrollback) —
 * from inside its write loop, which would take the whole server down.
 * Here ED 1 at the last column does what xterm means: its own erase, with
 * the stray flag put back and the row below the cursor unwrapped. With the
 * cursor on the last row and no scrollback ED 1 means "erase every row",
 * done as ED 2, which erases the same cells and does not move the cursor.
 * Returns true when it took over.
 */
export function eraseAboveGuard(terminal: Terminal, params: (number | number[])[], selective: boolean): boolean {
  if (params[0] !== 1) return false;
  const buffer = terminal.buffer.active;
  if (buffer.cursorX + 1 < terminal.cols) return false;
  const handler = (coreOf(terminal)._inputHandler as unknown as { eraseInDisplay(p: { params: number[] }, respectProtect: boolean): boolean });
  if (buffer.cursorY + 1 >= buffer.length) {
    handler.eraseInDisplay({ params: [2] }, selective);
    return true;
  }
  const lines = (coreOf(terminal) as unknown as { buffer: { lines: { get(i: number): { isWrapped: boolean } | undefined } } }).buffer.lines;
  const y = buffer.cursorY;
  const stray = lines.get(y + 1);
  const strayWasWrapped = stray?.isWrapped;
  handler.eraseInDisplay({ params: [1] }, selective);
  // Rows baseY..baseY+y were erased (and unwrapped) by the erase itself; a stray row above them was not meant to change.
  if (stray !== undefined && strayWasWrapped !== undefined && y + 1 < buffer.baseY) stray.isWrapped = strayWasWrapped;
  // (xterm's list wraps around: an index past its end reads its first row, so check.)
  if (buffer.baseY + y + 1 < buffer.length) lines.get(buffer.baseY + y + 1)!.isWrapped = false;
  return true;
}

/** Builds xterm's own row objects (for rows read back from the history), seen through the public IBufferLine. */
export interface LineFactory {
  /** An empty row of `cols` cells. */
  line(cols: number, wrapped: boolean): RawLine;
  /** An extended-attributes record (underline style and colour in `ext`, a link id). */
  extended(ext: number, urlId: number): object;
  /** The public view of a row, as terminal.buffer.*.getLine() returns. */
  view(line: RawLine): IBufferLine;
}

/** xterm's BufferLine, writable: 3 words per cell (content, fg, bg) and what hangs off them. */
export interface RawLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, object | undefined>;
  length: number;
  isWrapped: boolean;
}

/**
 * The constructors come from the terminal's own objects (xterm does not
 * export them): a live row of the normal buffer, its public view, and the
 * pen's extended record.
 */
export function lineFactory(terminal: Terminal): LineFactory {
  const core = coreOf(terminal) as unknown as CoreShape & { buffers: { normal: { lines: { get(i: number): object | undefined } } } };
  const sample = core.buffers.normal.lines.get(0);
  const view = terminal.buffer.normal.getLine(0);
  if (sample === undefined || view === undefined) throw new Error('tend: a terminal without rows cannot build rows');
  const LineCtor = sample.constructor as new (cols: number, fill?: unknown, isWrapped?: boolean) => RawLine;
  const ViewCtor = view.constructor as new (line: RawLine) => IBufferLine;
  const ExtCtor = core._inputHandler._curAttrData.extended.constructor as new (ext?: number, urlId?: number) => object;
  return {
    line: (cols, wrapped) => new LineCtor(cols, undefined, wrapped),
    extended: (ext, urlId) => new ExtCtor(ext, urlId),
    view: (line) => new ViewCtor(line),
  };
}
