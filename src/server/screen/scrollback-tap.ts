// Catches every row as it leaves the top of a headless xterm's normal buffer,
// before it is overwritten, so the row can move to the compact history
// (history/) instead of being lost.
//
// Why inside xterm: a live headless terminal costs ~2 KB per 80-column row,
// so tend keeps only a short live scrollback there; the rest must be copied
// out exactly when xterm lets go of it. xterm's public API has no such event
// (onScroll fires after the fact, and a full buffer recycles the oldest row's
// object for the new one). Every way a row leaves the top goes through four
// methods of xterm's CircularList — push and recycle (scrolling into a full
// buffer), splice (scrolling under a top-anchored scroll region), trimStart
// (ED 3, a resize with fewer rows) — so the list's prototype is wrapped once
// per process; a list takes part only when a tap is set on it, which the
// screen does for its normal buffer (again after RIS, which replaces it).
// A reflow to fewer columns overflows the buffer without any of them, so the
// screen gives the buffer room for it first (rowsAResizeMayAdd); a trim
// nobody announced all the same is counted and reported as rows lost: the
// history then says rows are missing rather than show a hole as complete. assertTapInternals() checks the shapes at
// construction, so an xterm upgrade that changes them fails loudly.
import type { Terminal } from '@xterm/headless';

/** xterm's BufferLine, as the history codec reads it. */
export interface RawBufferLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, { _ext: number; _urlId: number } | undefined>;
  length: number;
  isWrapped: boolean;
}

export interface ScrollbackTapHooks {
  /** These rows leave the top of the buffer for good, oldest first: copy them now (the array is reused: keep neither it nor the rows). */
  rowsLeaving(rows: readonly RawBufferLine[]): void;
  /**
   * ED 3 erased the scrollback (`rowsRemoved` rows off the top), or RIS
   * replaced the buffer (all its rows): older rows are gone in xterm too.
   */
  cleared(rowsRemoved: number): void;
  /** This many rows left without being offered (a reflow overflowing the buffer). */
  rowsLost(count: number): void;
}

interface ListShape {
  _length: number;
  _maxLength: number;
  get(index: number): RawBufferLine | undefined;
  push(value: RawBufferLine): void;
  recycle(): RawBufferLine;
  splice(start: number, deleteCount: number, ...items: RawBufferLine[]): void;
  trimStart(count: number): void;
  onTrim(listener: (amount: number) => void): { dispose(): void };
  [TAP]?: TapState;
}

interface BufferShape {
  lines: ListShape;
  savedY: number;
}

interface BufferSetShape {
  normal: BufferShape;
  reset(): void;
}

interface TapState {
  hooks: ScrollbackTapHooks;
  /** Rows announced to the hooks whose trim has not been seen yet. */
  announced: number;
  /** Set by ED 3 until its trim: that trim is an erase, not rows leaving. */
  erasing: boolean;
  /** While set (a snapshot being restored), rows leave silently. */
  suspended: boolean;
  /** The tapped buffer. */
  buffer: BufferShape;
}

const TAP = Symbol('tend.scrollbackTap');
const PATCHED = Symbol('tend.scrollbackTapPatched');

function coreBuffers(terminal: Terminal): BufferSetShape {
  return (terminal as unknown as { _core: { _bufferService: { buffers: BufferSetShape } } })._core._bufferService.buffers;
}

export function assertTapInternals(terminal: Terminal): void {
  const buffers = coreBuffers(terminal);
  const lines = buffers?.normal?.lines;
  const ok = lines !== undefined && typeof buffers.reset === 'function' &&
    typeof lines._length === 'number' && typeof lines._maxLength === 'number' &&
    ['get', 'push', 'recycle', 'splice', 'trimStart', 'onTrim'].every((m) => typeof (lines as unknown as Record<string, unknown>)[m] === 'function');
  const line = lines?.get(0);
  const lineOk = line === undefined || (line._data instanceof Uint32Array && typeof line._combined === 'object' && typeof line._extendedAttrs === 'object' &&
    typeof (line as unknown as Record<string, unknown>).getTrimmedLength === 'function');
  if (!ok || !lineOk) {
    throw new Error('tend: this @xterm/headless build lacks the buffer internals the history reads; pin @xterm/headless 6.0');
  }
}

/**
 * Rows scroll off a full buffer. With room to spare, xterm would have kept
 * them and moved ybase on instead, and its saved cursor (kept as ybase + y)
 * would then sit that much higher relative to the screen; a full buffer
 * keeps ybase and so the saved cursor's screen row. The history must not
 * change what the terminal does, so the saved row is moved as xterm's own
 * never-full buffer would have it (what the terminal showed before the
 * history existed, and what the reference terminals of the tests do).
 */
function offerScrolled(list: ListShape, rows: RawBufferLine[]): void {
  const tap = list[TAP]!;
  tap.buffer.savedY -= rows.length;
  offer(list, rows);
}

function offer(list: ListShape, rows: RawBufferLine[]): void {
  const tap = list[TAP]!;
  tap.announced += rows.length;
  if (!tap.suspended && rows.length > 0) tap.hooks.rowsLeaving(rows);
}

/**
 * The row a push or recycle scrolls off, handed to the hooks in this one
 * array (they copy rows at once and keep no array): an array per scrolled
 * row was the server's largest allocation under floods.
 */
const oneRow: RawBufferLine[] = [];
/** What oneRow holds between rows, so it keeps no terminal's row alive (its store stays allocated). */
const NO_ROW = { _data: new Uint32Array(0), _combined: {}, _extendedAttrs: {}, length: 0, isWrapped: false } satisfies RawBufferLine;

function offerTopRow(list: ListShape): void {
  oneRow[0] = list.get(0)!;
  offerScrolled(list, oneRow);
  oneRow[0] = NO_ROW;
}

function topRows(list: ListShape, count: number): RawBufferLine[] {
  const rows: RawBufferLine[] = [];
  for (let i = 0; i < count; i++) rows.push(list.get(i)!);
  return rows;
}

/** Wraps the four trimming methods of CircularList's prototype, once per process. */
function patchPrototype(proto: ListShape & { [PATCHED]?: true }): void {
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const { push, recycle, splice, trimStart } = proto;
  proto.push = function (this: ListShape, value: RawBufferLine): void {
    if (this[TAP] !== undefined && this._length === this._maxLength) offerTopRow(this);
    push.call(this, value);
  };
  proto.recycle = function (this: ListShape): RawBufferLine {
    if (this[TAP] !== undefined) offerTopRow(this);
    return recycle.call(this);
  };
  proto.splice = function (this: ListShape, start: number, deleteCount: number, ...items: RawBufferLine[]): void {
    const overflow = this._length - deleteCount + items.length - this._maxLength;
    if (this[TAP] !== undefined && overflow > 0) {
      // The rows that end up on top of the spliced list are the ones trimmed.
      const rows: RawBufferLine[] = [];
      for (let i = 0; i < overflow; i++) {
        if (i < start) rows.push(this.get(i)!);
        else if (i - start < items.length) rows.push(items[i - start]!);
        else rows.push(this.get(i - items.length + deleteCount)!);
      }
      offerScrolled(this, rows);
    }
    splice.call(this, start, deleteCount, ...items);
  };
  proto.trimStart = function (this: ListShape, count: number): void {
    const tap = this[TAP];
    if (tap !== undefined) {
      const n = Math.min(count, this._length);
      if (tap.erasing) {
        tap.erasing = false;
        tap.announced += n;
        if (!tap.suspended) tap.hooks.cleared(n);
      } else {
        offer(this, topRows(this, n));
      }
    }
    trimStart.call(this, count);
  };
}

/**
 * Taps `terminal`'s normal buffer (and each one RIS puts in its place) until
 * the returned handle is disposed.
 */
export function tapScrollback(terminal: Terminal, hooks: ScrollbackTapHooks): ScrollbackTap {
  assertTapInternals(terminal);
  const buffers = coreBuffers(terminal);
  patchPrototype(Object.getPrototypeOf(buffers.normal.lines) as ListShape);
  const state: TapState = { hooks, announced: 0, erasing: false, suspended: false, buffer: buffers.normal };
  let trimListener: { dispose(): void } | null = null;
  let disposed = false;
  const attach = (): void => {
    state.buffer = buffers.normal;
    const list = buffers.normal.lines;
    list[TAP] = state;
    trimListener?.dispose();
    trimListener = list.onTrim((amount) => {
      const unannounced = amount - state.announced;
      state.announced = Math.max(0, state.announced - amount);
      if (unannounced > 0 && !state.suspended) hooks.rowsLost(unannounced);
    });
  };
  attach();
  // RIS replaces both buffers: the history goes the way xterm's scrollback does, and the new normal buffer is tapped.
  const reset = buffers.reset;
  buffers.reset = function (this: BufferSetShape): void {
    const old = buffers.normal.lines;
    reset.call(this);
    if (disposed) return;
    delete old[TAP];
    attach();
    if (!state.suspended) hooks.cleared(old._length);
  };
  return {
    eraseScrollbackNext(): void {
      state.erasing = true;
    },
    endOfParse(): void {
      state.erasing = false;
    },
    set suspended(value: boolean) {
      state.suspended = value;
    },
    get suspended(): boolean {
      return state.suspended;
    },
    dispose(): void {
      if (disposed) return;
      disposed = true;
      trimListener?.dispose();
      delete buffers.normal.lines[TAP];
      buffers.reset = reset;
    },
  };
}

export interface ScrollbackTap {
  /** ED 3 is about to run (called from a CSI J handler that passes it on): its trim erases. */
  eraseScrollbackNext(): void;
  /** After each parsed piece: an ED 3 that found no scrollback to trim leaves no flag behind. */
  endOfParse(): void;
  /** Restoring a snapshot: rows that leave and resets are not the program's history. */
  suspended: boolean;
  dispose(): void;
}

/**
 * At most how many rows a resize to `cols` x `rows` adds to the normal
 * buffer: blank rows below the screen when it grows taller, and rows that
 * narrower columns rewrap into. xterm's reflow drops what no longer fits in
 * its buffer without calling any of the four methods, so the screen gives
 * the buffer this much more room for the resize, and the rows beyond its
 * usual length then leave through the top as any row does (screen.ts).
 * Each logical line (a row and the rows wrapped onto it) of n rows becomes
 * at most ceil(cells / (cols - 1)) rows: a wide character can leave the
 * last cell of a row empty.
 */
export function rowsAResizeMayAdd(terminal: Terminal, cols: number, rows: number): number {
  const lines = coreBuffers(terminal).normal.lines;
  let added = Math.max(0, rows - terminal.rows);
  const oldCols = terminal.cols;
  if (cols >= oldCols) return added;
  const perRow = Math.max(1, cols - 1);
  let groupRows = 0;
  const closeGroup = (last: RawBufferLine | undefined): void => {
    if (groupRows === 0 || last === undefined) return;
    const cells = (groupRows - 1) * oldCols + trimmedLength(last);
    added += Math.max(0, Math.ceil(cells / perRow) - groupRows);
  };
  let previous: RawBufferLine | undefined;
  for (let y = 0; y < lines._length; y++) {
    const line = lines.get(y);
    if (line === undefined) continue;
    if (!line.isWrapped) {
      closeGroup(previous);
      groupRows = 0;
    }
    groupRows++;
    previous = line;
  }
  closeGroup(previous);
  return added;
}

/** Cells up to the last one holding something (xterm's own count, which its reflow uses). */
function trimmedLength(line: RawBufferLine): number {
  return (line as unknown as { getTrimmedLength(): number }).getTrimmedLength();
}
