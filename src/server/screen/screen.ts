// The server's model of one terminal: a headless xterm fed every PTY byte,
// with the state a viewer or a checkpoint needs, and snapshots that restore
// exactly.
//
// API (used by the session core):
//
//   const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 10_000 });
//   screen.write(bytes, { live: true });        // PTY output as it arrives
//   screen.write(bytes, { live: false });       // replayed bytes (recovery, ring replay)
//   await screen.flush();                       // everything written so far is parsed
//
// Bytes are parsed when the server's ParseScheduler gives the screen its turn
// (fair across sessions; see parse-scheduler.ts), never inside write().
//   screen.onReply((bytes) => holder.input(bytes)); // answers to queries in *live* output, once
//   screen.onTitle / onCwd / onBell             // OSC 0/2, OSC 7 and OSC 633;P;Cwd=, BEL
//   screen.title, screen.cwd, screen.modes, screen.cursor
//   screen.resize(cols, rows)
//   screen.snapshot({ scrollbackRows: 0 })      // a viewer's resume: { cols, rows, data, ... }
//   await screen.snapshotAsync()                // the whole buffer, in ≤ sliceMs slices (checkpoints)
//   Screen.fromSnapshot(snapshot, options)      // recovery from a checkpoint
//   screen.text({ scrollbackRows, ansi, joinWrapped }) // for `tend screen`
//   screen.dispose()
//
// Lines that scrolled off are painted once and their text kept for later
// snapshots (painted-lines.ts): the bytes are the same, the cost is that of
// the lines new since the last snapshot.
//
// `snapshot.data` is ANSI text meant for ONE write into a fresh terminal of
// snapshot.cols x snapshot.rows right after a reset (RIS). It rebuilds cells,
// colours (16/256/RGB kept apart), every SGR flag, underline styles and
// colour, OSC 8 links, styled blanks, wide characters, wrap flags, the
// alternate screen with the normal screen (and its scrollback) behind it, the
// cursor (also the pending-wrap position), its visibility and style, modes,
// mouse encoding, title, scroll regions, tab stops and saved cursors of both
// buffers, charsets G0–G3 and the shift, and the current pen and link.
//
// Known limits (each is xterm.js or terminal physics, and tested as such
// where testable):
// * DECSCNM (reverse video, CSI ? 5 h) is not modelled by xterm.js at all, so
//   it is neither kept nor restored.
// * DECSCA protection (CSI 1 " q) of cells and of the pen is not restored.
// * The first row of a snapshot that starts in the middle of a soft-wrapped
//   line (scrollback cut by a scrollbackRows limit, or trimmed by xterm's own
//   limit) comes back unwrapped: there is no row above it to wrap from. The
//   alternate screen's top row is restored wrapped.
// * A blank cell with attributes other than a background at the very last
//   column, when the terminal cannot make it the way xterm did (it did not
//   come from a wide character crossing the margin), comes back as a space
//   with those attributes: same look, `getChars()` is ' ' instead of ''. The
//   same holds for the cursor, or a saved cursor the alternate screen was
//   entered from, standing past a blank last column.
// * The pen and the saved cursors are rebuilt as xterm keeps them, the
//   underline flag apart from the style record (pen-state.ts), except for a
//   pen only a DECRC makes that no DECRC the snapshot can order gives (its
//   flag differs from the saved cursor's, or the cursor stands past the
//   alternate screen's last column): that one is written as SGR makes it,
//   which looks the same until a later DECSC, SGR 0, DECRC. The one the
//   fault suite's streams meet: `CSI 4 m`, DECSC, `CSI 0 m`, `CSI ? 1049 l`,
//   `CSI ? 1049 h` leaves the alternate screen's pen with the underline flag
//   on over an empty style record (style 0); it comes back with style 1, and
//   its next cells read as underlined either way.
// * The icon name (OSC 1) and the title stack (CSI 22/23 t) are not kept.
// * A viewer must use the same Unicode width tables as the server (xterm's
//   default, Unicode 6) or wide characters land elsewhere.
import xtermHeadless from '@xterm/headless';
import type { IBufferLine, IDisposable, Terminal } from '@xterm/headless';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import { Emitter } from '../../common/event.js';
import { parseOsc633Cwd, parseOsc7Cwd } from './cwd-report.js';
import { snapshotNow, snapshotSlices, type SnapshotResult } from './snapshot-writer.js';
import { rowText, screenText, textSlices, type TextOptions } from './screen-text.js';
import { SEARCH_TIME_BUDGET_MS, searchRows, type LineMatcher, type SearchResult } from './screen-search.js';
import { rowsAResizeMayAdd, tapScrollback, type ScrollbackTap } from './scrollback-tap.js';
import { History, type HistoryBudgetLike, type HistoryLimits } from './history/history.js';
import { ScreenRows } from './history/screen-rows.js';
import type { PaintedLines } from './painted-lines.js';
import { assertInternals, eraseAboveGuard, keepLinks, linkOf, parseNow, readInternals, type LinkData } from './xterm-private.js';
import { defaultParseScheduler, type ParseScheduler } from './parse-scheduler.js';
import { ParseQueue, type ParseMode } from './parse-queue.js';

/**
 * Rows of scrollback a session keeps in all: the live rows in xterm and the
 * history below them (~100 bytes a row of coloured log text).
 */
export const DEFAULT_SCROLLBACK_ROWS = 50_000;
/**
 * Rows of scrollback kept live in xterm (~2 KB each at 80 columns, ~5 KB at
 * 200); older rows move to the compact history. 500 keeps a session with
 * 10 000 rows of history below tmux's memory for the same (measured by
 * `npm run bench`, server-memory); 1 000 did not at 200 columns.
 */
export const DEFAULT_LIVE_SCROLLBACK_ROWS = 500;
/**
 * Rows of scrollback a viewer's first snapshot carries (DESIGN: cap it, the
 * rest on request: SCROLLBACK_REQUEST). Painted once each and kept
 * (painted-lines.ts), so only rows new since the last snapshot cost.
 */
export const VIEWER_SNAPSHOT_SCROLLBACK_ROWS = 1_000;
/** A session's history never holds more than this (a budget: past it the oldest rows are dropped, and said to be). */
export const DEFAULT_HISTORY_BYTES = 32 * 1024 * 1024;
/** Longest a snapshotAsync slice may hold the event loop. */
export const DEFAULT_SNAPSHOT_SLICE_MS = 8;

export interface ScreenOptions {
  cols: number;
  rows: number;
  /** Rows kept above the screen in all, live and history (default 10 000). */
  scrollbackRows?: number;
  /** Of those, rows kept live in xterm (default 1 000); the rest are history. */
  liveScrollbackRows?: number;
  /** Bytes of history this screen may hold (default 32 MiB). */
  historyBytes?: number;
  /** The server's budget for all histories. */
  budget?: HistoryBudgetLike;
  /** Who hands out parse time (default: the process's one scheduler). */
  scheduler?: ParseScheduler;
}

export interface TerminalModes {
  alternateScreen: boolean;
  bracketedPaste: boolean;
  mouseTracking: 'none' | 'x10' | 'vt200' | 'drag' | 'any';
  mouseEncoding: 'default' | 'sgr' | 'sgr-pixels';
  applicationCursorKeys: boolean;
  applicationKeypad: boolean;
  cursorVisible: boolean;
  /** undefined: never set by the program (the viewer's own default applies). */
  cursorStyle: 'block' | 'underline' | 'bar' | undefined;
  cursorBlink: boolean | undefined;
  focusReporting: boolean;
  originMode: boolean;
  autowrap: boolean;
  insertMode: boolean;
  reverseWraparound: boolean;
  synchronizedOutput: boolean;
}

import type { ScreenSnapshot, ScrollbackCount } from '../../protocol/api/index.js';
export type { ScreenSnapshot };

export type { SearchMatch, SearchResult } from './screen-search.js';

export interface ScreenText {
  text: string;
  scrollback: ScrollbackCount;
}

export interface SnapshotOptions {
  /** Scrollback rows to include (default: all there are). */
  scrollbackRows?: number;
  /** Include history rows where the live scrollback runs out (default true; a checkpoint stores the history apart). */
  history?: boolean;
  /**
   * Take lines that scrolled off from the text earlier snapshots painted
   * for them, and keep what this one paints (default true; the bytes are
   * the same either way: painted-lines.ts).
   */
  reusePainted?: boolean;
  /**
   * The viewer's terminal holds the history up to this row already (it was
   * streamed there before): of the `scrollbackRows`, only rows after it.
   */
  historyAfterRow?: number;
}

const encoder = new TextEncoder();

export class Screen extends DisposableBase {
  /**
   * The headless terminal, for the session core's markers (command index) and
   * parser hooks of its own. Feed it only through write(): replies and
   * snapshot consistency depend on that.
   */
  readonly terminal: Terminal;
  private readonly replies = new Emitter<Uint8Array>();
  private readonly titles = new Emitter<string>();
  private readonly cwds = new Emitter<string>();
  private readonly bells = new Emitter<void>();
  /** Rows that left the live buffer's top, compact; live line i is row history.endRow + i. */
  readonly history: History;
  private readonly tap: ScrollbackTap;
  private readonly rowsLeaving = new Emitter<{ count: number; firstRow: number }>();
  /** Rows as readers see them: history and live, numbered as one. */
  private readonly reader: ScreenRows;
  /** Bytes and steps waiting for their parse time, in order. */
  private readonly queue: ParseQueue;
  /** What the bytes being parsed right now are (replies go out only for live ones). */
  private parsing: ParseMode | null = null;
  /** The size last asked for; the terminal takes it when the bytes before it are parsed. */
  private size: { cols: number; rows: number };
  private currentTitle = '';
  private currentCwd: string | null = null;

  constructor(options: ScreenOptions) {
    super();
    const totalRows = options.scrollbackRows ?? DEFAULT_SCROLLBACK_ROWS;
    const liveRows = Math.min(totalRows, options.liveScrollbackRows ?? DEFAULT_LIVE_SCROLLBACK_ROWS);
    const terminal = new xtermHeadless.Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: liveRows,
      allowProposedApi: true,
    });
    this.terminal = terminal;
    this.size = { cols: options.cols, rows: options.rows };
    this.register(toDisposable(() => terminal.dispose()));
    assertInternals(terminal);
    keepLinks(terminal);
    const terminalLinkOf = (urlId: number): LinkData | undefined => linkOf(terminal, urlId);
    const history = new History({ maxRows: totalRows - liveRows, maxBytes: options.historyBytes ?? DEFAULT_HISTORY_BYTES }, options.budget ?? null);
    this.history = history;
    this.register(toDisposable(() => history.dispose()));
    /** The one event rowsLeaving fires with, refilled each time (listeners read it and keep nothing). */
    const leaving = { count: 0, firstRow: 0 };
    this.tap = tapScrollback(terminal, {
      // Once per row that scrolls off (hundreds of thousands a second in a flood): nothing here allocates what it need not.
      rowsLeaving: (rows) => {
        if (this.rowsLeaving.size > 0) {
          leaving.count = rows.length;
          leaving.firstRow = history.endRow;
          this.rowsLeaving.fire(leaving);
        }
        history.append(rows, terminalLinkOf);
      },
      cleared: (rowsRemoved) => {
        // (the erased rows keep their numbers and are never painted again: their text only takes room)
        this.reader.forgetPainted();
        history.erase(rowsRemoved);
      },
      rowsLost: (count) => {
        this.reader.forgetPainted();
        history.lose(count);
      },
    });
    this.register(this.tap);
    this.reader = new ScreenRows(terminal, history);
    this.queue = new ParseQueue(options.scheduler ?? defaultParseScheduler(), (data, mode) => {
      this.parsing = mode;
      // A snapshot being restored is not the program's output: what it scrolls or erases is not history.
      // Only while it is parsed: a resize right after a restore (before any output) moves live rows
      // to the history, and a tap left suspended let them go without a word.
      this.tap.suspended = mode === 'restore';
      // (rows leave it without a number then: the numbers painted lines are kept under shift)
      if (mode === 'restore') this.reader.forgetPainted();
      try {
        parseNow(terminal, data);
      } finally {
        this.parsing = null;
        this.tap.suspended = false;
        this.tap.endOfParse();
      }
    });
    this.register(toDisposable(() => this.queue.close()));
    this.register(terminal.onData((data) => {
      if (this.parsing === 'live') this.replies.fire(encoder.encode(data));
    }));
    this.register(terminal.onBinary((data) => {
      if (this.parsing === 'live') this.replies.fire(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff));
    }));
    this.register(terminal.onTitleChange((title) => {
      this.currentTitle = title;
      this.titles.fire(title);
    }));
    this.register(terminal.onBell(() => this.bells.fire()));
    this.registerHook(terminal.parser.registerCsiHandler({ final: 'J' }, (params) => {
      // ED 3 erases the scrollback: the history goes with it, as in the terminal the program thinks it has.
      if (params[0] === 3) this.tap.eraseScrollbackNext();
      return eraseAboveGuard(terminal, params, false);
    }));
    this.registerHook(terminal.parser.registerCsiHandler({ prefix: '?', final: 'J' }, (params) => eraseAboveGuard(terminal, params, true)));
    this.registerHook(terminal.parser.registerOscHandler(7, (data) => {
      this.setCwd(parseOsc7Cwd(data));
      return false;
    }));
    this.registerHook(terminal.parser.registerOscHandler(633, (data) => {
      this.setCwd(parseOsc633Cwd(data));
      return false;
    }));
    this.register(toDisposable(() => {
      this.replies.dispose();
      this.titles.dispose();
      this.cwds.dispose();
      this.bells.dispose();
      this.rowsLeaving.dispose();
    }));
  }

  private registerHook(hook: IDisposable): void {
    this.register(hook);
  }

  private setCwd(cwd: string | undefined): void {
    if (cwd === undefined || cwd === this.currentCwd) return;
    this.currentCwd = cwd;
    this.cwds.fire(cwd);
  }

  /** The size last asked for (the PTY's); the terminal takes it once the bytes queued before it are parsed. */
  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  get title(): string {
    return this.currentTitle;
  }

  get cwd(): string | null {
    return this.currentCwd;
  }

  /** Bytes written and not yet parsed. */
  get backlogBytes(): number {
    return this.queue.backlogBytes;
  }

  /**
   * Feeds PTY bytes; they are parsed when the parse scheduler gives this
   * screen its turn. `live: false` for replayed bytes: the terminal's answers
   * to queries in them (DA, DSR/CPR, OSC colour queries, DECRQM…) are
   * swallowed, never forwarded. `done` runs once these bytes are parsed.
   */
  write(bytes: Uint8Array | string, options: { live: boolean }, done?: () => void): void {
    if (this.isDisposed) return;
    this.queue.pushBytes(bytes, options.live ? 'live' : 'replay', done);
  }

  /** Resolves once everything written so far is parsed (at once if disposed). */
  flush(): Promise<void> {
    if (this.isDisposed) return Promise.resolve();
    return new Promise((resolve) => this.queue.pushStep(resolve, resolve));
  }

  onReply(listener: (bytes: Uint8Array) => void): Disposable {
    return this.replies.on(listener);
  }

  onTitle(listener: (title: string) => void): Disposable {
    return this.titles.on(listener);
  }

  onCwd(listener: (cwd: string) => void): Disposable {
    return this.cwds.on(listener);
  }

  onBell(listener: () => void): Disposable {
    return this.bells.on(() => listener());
  }

  get modes(): TerminalModes {
    const m = this.terminal.modes;
    const internals = readInternals(this.terminal);
    return {
      alternateScreen: this.terminal.buffer.active.type === 'alternate',
      bracketedPaste: m.bracketedPasteMode,
      mouseTracking: m.mouseTrackingMode,
      mouseEncoding: internals.mouseEncoding === 'SGR' ? 'sgr' : internals.mouseEncoding === 'SGR_PIXELS' ? 'sgr-pixels' : 'default',
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      cursorVisible: !internals.cursorHidden,
      cursorStyle: internals.cursorStyle,
      cursorBlink: internals.cursorBlink,
      focusReporting: m.sendFocusMode,
      originMode: m.originMode,
      autowrap: m.wraparoundMode,
      insertMode: m.insertMode,
      reverseWraparound: m.reverseWraparoundMode,
      synchronizedOutput: m.synchronizedOutputMode,
    };
  }

  get cursor(): { x: number; y: number; visible: boolean } {
    const buffer = this.terminal.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY, visible: !readInternals(this.terminal).cursorHidden };
  }

  /** Resizes once the bytes written before it are parsed (at once when nothing waits), so they are parsed at the size they were written for. */
  resize(cols: number, rows: number): void {
    if (this.isDisposed) return;
    this.size = { cols, rows };
    if (this.queue.idle) this.applyResize(cols, rows);
    else this.queue.pushStep(() => this.applyResize(cols, rows));
  }

  private applyResize(cols: number, rows: number): void {
    // The reflow rewrites the scrollback's rows (and keeps the numbers): their painted text goes.
    this.reader.forgetPainted();
    // Narrower rows rewrap into more rows, and xterm's reflow drops what no
    // longer fits in its buffer without a word; fewer rows trim the buffer
    // before the reflow has joined or split its rows. So the buffer gets room
    // for every row the resize can add, and once the resize is done the rows
    // beyond its usual length leave through the top into the history, as
    // scrolled-off rows do, already reflowed. The live scrollback is reflowed
    // as in any xterm (and a taller screen pulls rows down from it as any
    // xterm's does); the history keeps the width its rows were written at.
    const live = this.terminal.options.scrollback ?? 0;
    const over = this.terminal.buffer.normal.length + rowsAResizeMayAdd(this.terminal, cols, rows) - (rows + live);
    if (over <= 0) {
      this.terminal.resize(cols, rows);
      return;
    }
    this.terminal.options.scrollback = live + over;
    try {
      this.terminal.resize(cols, rows);
    } finally {
      this.terminal.options.scrollback = live;
    }
  }

  /**
   * Fires before rows leave the live buffer's top for the history:
   * `firstRow` is the row number the first of them takes (live line i is
   * row firstRow + i until then). The event object is reused: read it
   * in the listener, never keep it.
   */
  onRowsLeaving(listener: (event: { count: number; firstRow: number }) => void): Disposable {
    return this.rowsLeaving.on(listener);
  }

  /** The snapshot text kept of lines that scrolled off (painted-lines.ts): its size and use, for figures and tests. */
  get painted(): Pick<PaintedLines, 'size' | 'textChars' | 'counts'> {
    return this.reader.painted;
  }

  /** The row number of live line 0 of the normal buffer (rows before it are history). */
  get rowBase(): number {
    return this.reader.rowBase;
  }

  /** The oldest row still held (history or live). */
  get firstRow(): number {
    return this.reader.firstRow;
  }

  /** The row number of the top scrollback row a snapshot with `scrollbackRows` would show now. */
  snapshotTopRow(scrollbackRows: number): number {
    return this.reader.snapshotTopRow(scrollbackRows);
  }

  /** Row `r` of the normal buffer, history or live, at its own width (undefined if not held). */
  lineAt(r: number): IBufferLine | undefined {
    return this.reader.lineAt(r);
  }

  /** The link a cell of a row from lineAt() names (history rows carry negative ids). */
  linkOf(urlId: number): LinkData | undefined {
    return this.reader.linkOf(urlId);
  }

  /**
   * The screen as parsed so far (bytes still queued are not in it; await
   * flush() first for "everything written"). Blocks for the whole
   * serialization: keep scrollbackRows small here, use snapshotAsync for
   * whole buffers.
   */
  snapshot(options: SnapshotOptions = {}): ScreenSnapshot {
    const scrollbackRows = this.scrollbackWanted(options);
    const older = this.reader.older(scrollbackRows, options.history !== false);
    const result = snapshotNow(this.terminal, readInternals(this.terminal), {
      scrollbackRows,
      title: this.currentTitle,
      older: older.request,
      painted: options.reusePainted === false ? undefined : older.painted,
    });
    return this.toSnapshot(result, older.firstRow);
  }

  /**
   * Everything written so far, serialized in slices of at most about
   * `sliceMs` each; parsing of this screen waits meanwhile (writes and
   * resizes queue up and are applied after, in order), so the picture is
   * consistent. `onCut` runs at the moment the picture is fixed.
   */
  snapshotAsync(options: SnapshotOptions & { sliceMs?: number; onCut?: () => void } = {}): Promise<ScreenSnapshot> {
    if (this.isDisposed) return Promise.reject(new Error('tend: screen disposed before its snapshot'));
    return new Promise<ScreenSnapshot>((resolve, reject) => {
      this.queue.pushStep(() => {
        this.queue.hold();
        this.runSlicedSnapshot(options).then(resolve, reject).finally(() => this.queue.release());
      }, () => reject(new Error('tend: screen disposed before its snapshot')));
    });
  }

  private async runSlicedSnapshot(options: SnapshotOptions & { sliceMs?: number; onCut?: () => void }): Promise<ScreenSnapshot> {
    if (this.isDisposed) throw new Error('tend: screen disposed before its snapshot');
    const sliceMs = options.sliceMs ?? DEFAULT_SNAPSHOT_SLICE_MS;
    // The terminal is now exactly the snapshot's picture: state that must
    // match it (the command index's rows) is read here, synchronously.
    options.onCut?.();
    const scrollbackRows = this.scrollbackWanted(options);
    const older = this.reader.older(scrollbackRows, options.history !== false);
    const slices = snapshotSlices(this.terminal, readInternals(this.terminal), {
      scrollbackRows,
      title: this.currentTitle,
      older: older.request,
      painted: options.reusePainted === false ? undefined : older.painted,
    });
    let sliceStart = performance.now();
    for (;;) {
      const step = slices.next();
      if (step.done) return this.toSnapshot(step.value, older.firstRow);
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.isDisposed) throw new Error('tend: screen disposed during its snapshot');
        sliceStart = performance.now();
      }
    }
  }

  /** The scrollback rows a snapshot takes: `scrollbackRows`, less those a terminal holds (historyAfterRow). */
  scrollbackWanted(options: Pick<SnapshotOptions, 'scrollbackRows' | 'historyAfterRow'>): number {
    const asked = options.scrollbackRows ?? Number.MAX_SAFE_INTEGER;
    if (options.historyAfterRow === undefined) return asked;
    return Math.min(asked, Math.max(0, this.reader.snapshotTopRow(0) - (options.historyAfterRow + 1)));
  }

  /** The row number of the screen's top row (rows above it are scrollback or history): it grows as output scrolls. */
  get screenTopRow(): number {
    return this.reader.snapshotTopRow(0);
  }

  private toSnapshot(result: SnapshotResult, firstRow: number): ScreenSnapshot {
    return {
      firstRow,
      cols: this.terminal.cols,
      rows: this.terminal.rows,
      data: result.data,
      scrollbackRows: result.scrollbackRows,
      title: this.currentTitle,
      cwd: this.currentCwd,
      cursor: this.cursor,
    };
  }

  /**
   * A fresh screen of the snapshot's size with the snapshot written as
   * not-live (await flush() before reading it). Rows the snapshot scrolls
   * past the live scrollback are not history (a checkpoint restores its
   * history apart), unless `archive` says they are: a checkpoint written
   * before the history existed holds its whole scrollback in the snapshot.
   */
  static fromSnapshot(snapshot: ScreenSnapshot, options: ScreenOptions & { archive?: boolean }): Screen {
    const screen = new Screen({ ...options, cols: snapshot.cols, rows: snapshot.rows });
    screen.currentCwd = snapshot.cwd;
    screen.queue.pushBytes(snapshot.data, options.archive === true ? 'replay' : 'restore');
    return screen;
  }

  /** Plain (or ANSI) text of the screen, with `scrollbackRows` rows above it (history included), trailing blanks trimmed. */
  text(options: TextOptions = {}): string {
    return screenText(this.reader.textRows(options.scrollbackRows ?? 0), this.terminal.buffer.normal.getNullCell(), options);
  }

  /**
   * text() of everything written so far, in slices of about `sliceMs` (for
   * thousands of rows of history); parsing of this screen waits meanwhile,
   * so the text is of one moment. Says how much scrollback it shows.
   */
  textAsync(options: TextOptions & { sliceMs?: number } = {}): Promise<ScreenText> {
    if (this.isDisposed) return Promise.reject(new Error('tend: screen disposed'));
    return new Promise<ScreenText>((resolve, reject) => {
      this.queue.pushStep(() => {
        this.queue.hold();
        const wanted = Math.max(0, options.scrollbackRows ?? 0);
        const scrollback = this.reader.scrollbackShown(wanted);
        const slices = textSlices(this.reader.textRows(wanted), this.terminal.buffer.normal.getNullCell(), options);
        runSliced(slices, options.sliceMs ?? DEFAULT_SNAPSHOT_SLICE_MS, () => this.isDisposed)
          .then((text) => resolve({ text, scrollback }), reject)
          .finally(() => this.queue.release());
      }, () => reject(new Error('tend: screen disposed')));
    });
  }

  /**
   * Every logical line (a row and the rows wrapped onto it) of the normal
   * buffer, history included, that `matcher` accepts; the last `max` of
   * them, oldest first, each with the row number it starts at. Read in
   * slices, parsing of this screen waiting meanwhile, so the search is of one
   * moment; stops with a SearchStoppedError past `budgetMs` (screen-search.ts).
   */
  search(matcher: LineMatcher, max: number, options: { sliceMs?: number; budgetMs?: number } = {}): Promise<SearchResult> {
    if (this.isDisposed) return Promise.reject(new Error('tend: screen disposed'));
    return new Promise((resolve, reject) => {
      this.queue.pushStep(() => {
        this.queue.hold();
        const reader = this.reader;
        const rows = {
          from: reader.firstRow,
          end: reader.rowBase + this.terminal.buffer.normal.length,
          dropped: this.history.droppedRows,
          lineAt: (r: number) => reader.lineAt(r),
        };
        const limits = {
          sliceMs: options.sliceMs ?? DEFAULT_SNAPSHOT_SLICE_MS,
          budgetMs: options.budgetMs ?? SEARCH_TIME_BUDGET_MS,
          disposed: () => this.isDisposed,
        };
        searchRows(rows, matcher, max, limits)
          .then(resolve, reject)
          .finally(() => this.queue.release());
      }, () => reject(new Error('tend: screen disposed')));
    });
  }

  /** How `wanted` rows of scrollback above the active screen come out (see ScreenRows). */
  scrollbackShown(wanted: number): ScrollbackCount {
    return this.reader.scrollbackShown(wanted);
  }

  /**
   * Rows older than row `before`, at most `count`, as lines of text with
   * SGR joined by CR LF, read in slices (parsing waits meanwhile): what a
   * viewer scrolling past its snapshot asks for. Says whether the oldest
   * held row was reached and how many rows a budget dropped beyond it.
   */
  olderRowsText(before: number, count: number, options: { sliceMs?: number } = {}): Promise<{ firstRow: number; rows: number; dropped: number; oldest: boolean; text: string }> {
    if (this.isDisposed) return Promise.reject(new Error('tend: screen disposed'));
    return new Promise((resolve, reject) => {
      this.queue.pushStep(() => {
        this.queue.hold();
        const { from, to, oldest, dropped } = this.reader.olderRange(before, count);
        const cell = this.terminal.buffer.normal.getNullCell();
        const self = this;
        const textOptions = { ansi: true, link: (urlId: number) => self.linkOf(urlId) };
        function* lines(): Generator<void, string, void> {
          const out: string[] = [];
          for (let r = from; r < to; r++) {
            const line = self.lineAt(r);
            out.push(line === undefined ? '' : rowText(line, cell, textOptions));
            if ((r - from) % 64 === 63) yield;
          }
          return out.join('\r\n');
        }
        runSliced(lines(), options.sliceMs ?? DEFAULT_SNAPSHOT_SLICE_MS, () => this.isDisposed)
          .then((text) => resolve({ firstRow: from, rows: to - from, dropped, oldest, text }), reject)
          .finally(() => this.queue.release());
      }, () => reject(new Error('tend: screen disposed')));
    });
  }
}

/** Runs a generator to its end, handing the loop back whenever a slice has taken `sliceMs`. */
async function runSliced<T>(slices: Generator<void, T, void>, sliceMs: number, disposed: () => boolean): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = slices.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (disposed()) throw new Error('tend: screen disposed');
      sliceStart = performance.now();
    }
  }
}
