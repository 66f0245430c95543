// A pane's history beyond what its own terminal holds, in a read-only xterm
// of its own, fed by a HistoryLoader: HistoryPanel draws the panel around
// it. Each time a page arrives the view's terminal is rebuilt — reset, then
// every page oldest first, in one write — so older rows appear above the ones
// already read and the rows in view stay in view. The pane's live terminal is
// never written to, reset or resized from here; the pane goes on live underneath.
//
// Keys in the view: Escape (or the history key again) closes it, Page Up/Down,
// arrows, Home/End scroll, Home or scrolling at the top loads older rows, the
// search key searches the loaded rows, Tab reaches the panel's buttons.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import type { HistoryLoader, HistoryState } from '../terminal/history-loader.js';
import { registerDebugHistory, type DebugHistoryView } from '../debug-hook.js';
import { commandForKey } from '../layout/shortcuts.js';
import { TERMINAL_THEMES, type ThemeName } from '../theme.js';
import { Model } from '../model/model.js';
import { headerAndFooter, historyFooter, historyHeader, logicalLines } from './history-text.js';

/** A user's wheel, key or pointer this recently makes a scroll to the top "theirs" (it loads older rows). */
const GESTURE_WINDOW_MS = 1000;
/** The view's own scrollback at the least; more when more rows are loaded. */
const MIN_SCROLLBACK_ROWS = 1000;
const MAX_ROWS = 1000;
/** The view's scrolling keys. */
const SCROLL_UP: Record<string, (term: Terminal) => void> = {
  PageUp: (term) => term.scrollPages(-1),
  ArrowUp: (term) => term.scrollLines(-1),
  Home: (term) => term.scrollToTop(),
};
const SCROLL_DOWN: Record<string, (term: Terminal) => void> = {
  PageDown: (term) => term.scrollPages(1),
  ArrowDown: (term) => term.scrollLines(1),
  End: (term) => term.scrollToBottom(),
};
const HIDE_CURSOR = '\x1b[?25l';
const RESET_TO_INITIAL_STATE = '\x1bc';
const DIM = '\x1b[0;2m';
const WARN = '\x1b[0;33m';
const PLAIN = '\x1b[0m';

export interface HistoryViewOptions {
  sessionId: string;
  loader: HistoryLoader;
  /** The pane's live terminal: read (width, font), never written. */
  live: Terminal;
  theme: ThemeName;
  /** Read at each use: the latest from the component. */
  onClose: () => void;
}

export interface HistoryViewState {
  searching: boolean;
  /** The view's search addon, once its terminal exists. */
  search: SearchAddon | null;
}

export class HistoryView extends Model<HistoryViewState> {
  private term: Terminal | null = null;
  /** The version (and gap note) last written to the view's terminal, and the one it has finished parsing. */
  private written = { version: -1, gap: false };
  private rendered = { version: -1, gap: false };

  constructor(private readonly options: HistoryViewOptions) {
    super({ searching: false, search: null });
  }

  /** Makes the view's terminal in `element`; returns what takes it down. */
  attach(element: HTMLElement): () => void {
    const { options } = this;
    const live = options.live;
    const term = new Terminal({
      cols: live.cols,
      rows: Math.max(1, live.rows),
      scrollback: MIN_SCROLLBACK_ROWS,
      fontSize: live.options.fontSize ?? 14,
      fontFamily: live.options.fontFamily ?? 'monospace',
      theme: TERMINAL_THEMES[options.theme],
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      // The search addon's match highlights use decorations, a proposed API.
      allowProposedApi: true,
    });
    const fit = new FitAddon();
    const search = new SearchAddon();
    term.loadAddon(fit);
    term.loadAddon(search);
    // The DOM renderer: a WebGL context per open view would count against the browser's few.
    term.open(element);
    this.term = term;

    // As wide as the pane's terminal (the rows were written at the PTY's width), as tall as the panel.
    const fitSize = () => {
      if (element.clientWidth === 0 || element.clientHeight === 0) return;
      const d = fit.proposeDimensions();
      const rows = d && Number.isFinite(d.rows) && d.rows >= 1 ? Math.min(MAX_ROWS, d.rows) : term.rows;
      const cols = live.cols;
      if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
    };
    fitSize();
    const observer = new ResizeObserver(fitSize);
    observer.observe(element);
    const liveResize = live.onResize(fitSize);

    // Scrolling to the top by the user's own hand loads the next older page.
    let gestureAt = -Infinity;
    const gesture = () => {
      gestureAt = performance.now();
    };
    const onWheel = (ev: WheelEvent) => {
      gesture();
      if (ev.deltaY < 0) this.loadIfAtTop();
    };
    element.addEventListener('wheel', onWheel, { capture: true, passive: true });
    element.addEventListener('pointerdown', gesture, true);
    element.addEventListener('touchmove', gesture, { capture: true, passive: true });
    const scrolled = term.onScroll(() => {
      if (performance.now() - gestureAt < GESTURE_WINDOW_MS) this.loadIfAtTop();
    });
    term.attachCustomKeyEventHandler((ev) => {
      if (ev.type === 'keydown') gesture();
      return this.key(ev);
    });

    const unregister = registerDebugHistory({ sessionId: options.sessionId, view: (withRows) => this.debugView(withRows) });
    // Pages that came before the terminal existed.
    const unsubscribe = options.loader.subscribe(() => this.render());
    this.update({ search });
    this.render();
    term.focus();
    return () => {
      unsubscribe();
      unregister();
      observer.disconnect();
      liveResize.dispose();
      scrolled.dispose();
      element.removeEventListener('wheel', onWheel, { capture: true });
      element.removeEventListener('pointerdown', gesture, true);
      element.removeEventListener('touchmove', gesture, { capture: true });
      this.update({ search: null, searching: false });
      this.written = { version: -1, gap: false };
      this.rendered = { version: -1, gap: false };
      this.term = null;
      term.dispose();
    };
  }

  setTheme(theme: ThemeName): void {
    if (this.term) this.term.options.theme = TERMINAL_THEMES[theme];
  }

  openSearch(): void {
    this.update({ searching: true });
  }

  closeSearch(): void {
    this.update({ searching: false });
    this.term?.focus();
  }

  focus(): void {
    this.term?.focus();
  }

  /** Whether the rows shown stop short of the pane's own top (the loader says). */
  gap(): boolean {
    return this.options.loader.gapNow();
  }

  /** The rebuild: reset, then header, every page oldest first and the footer, in one write. Other changes (loading, a problem) leave the rows as they are. */
  render(): void {
    const term = this.term;
    if (!term) return;
    const state = this.options.loader.state;
    const gap = this.gap();
    if (this.written.version === state.version && this.written.gap === gap) return;
    const buffer = term.buffer.normal;
    const first = this.written.version < 0 || buffer.length <= term.rows;
    const fromBottom = buffer.length - buffer.viewportY;
    const header = historyHeader(state, gap);
    const headerColour = state.oldest && state.dropped > 0 ? WARN : DIM;
    const body = state.pages.map((p) => p.text).join('\r\n');
    // Room for every row even when rows wider than the view wrap.
    term.options.scrollback = Math.max(MIN_SCROLLBACK_ROWS, (state.rows + 2) * 4);
    const version = state.version;
    this.written = { version, gap };
    term.write(
      `${RESET_TO_INITIAL_STATE}${headerColour}── ${header} ──${PLAIN}\r\n${body === '' ? '' : `${body}${PLAIN}\r\n`}${gap ? WARN : DIM}── ${historyFooter(gap)} ──${PLAIN}${HIDE_CURSOR}`,
      () => {
        if (first) term.scrollToBottom();
        // Older rows were put above: the rows that were in view stay in view.
        else term.scrollToLine(Math.max(0, term.buffer.normal.length - fromBottom));
        this.rendered = { version, gap };
      },
    );
  }

  private loadIfAtTop(): void {
    const s = this.options.loader.state;
    if (this.term?.buffer.active.viewportY === 0 && !s.oldest && !s.loading && s.rows > 0) this.options.loader.loadOlder();
  }

  /** Nothing is typed here: every key is either the view's or the page's. */
  private key(ev: KeyboardEvent): boolean {
    const term = this.term;
    if (ev.type !== 'keydown' || !term) return false;
    const command = commandForKey(ev);
    if (command !== null) {
      if (command.kind === 'history') {
        ev.preventDefault();
        this.options.onClose();
      } else if (command.kind === 'search') {
        ev.preventDefault();
        this.openSearch();
      } else if (command.kind === 'copy') {
        ev.preventDefault();
        const selection = term.getSelection();
        if (selection) void navigator.clipboard?.writeText(selection).catch(() => undefined);
      }
      // The rest (focus moves, zoom, help, …) bubble to the workspace's keys.
      return false;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return false;
    if (ev.key === 'Escape') {
      ev.preventDefault();
      this.options.onClose();
    } else if (Object.hasOwn(SCROLL_UP, ev.key)) {
      // Up at the top reads older rows instead.
      ev.preventDefault();
      if (term.buffer.active.viewportY === 0) this.loadIfAtTop();
      else SCROLL_UP[ev.key]!(term);
    } else if (Object.hasOwn(SCROLL_DOWN, ev.key)) {
      ev.preventDefault();
      SCROLL_DOWN[ev.key]!(term);
    }
    // Tab and the like keep their browser meaning (Tab leaves the terminal for the buttons).
    return false;
  }

  private debugView(withRows: boolean): DebugHistoryView {
    const s: HistoryState = this.options.loader.state;
    const term = this.term;
    const lines = term ? (withRows ? logicalLines(term) : headerAndFooter(term)) : [];
    const header = lines.shift() ?? '';
    const footer = lines.pop() ?? '';
    return {
      loading: s.loading,
      waiting: s.waiting,
      oldest: s.oldest,
      dropped: s.dropped,
      problem: s.problem?.message ?? null,
      canRetry: s.problem?.canRetry ?? false,
      connection: s.connection,
      loadedRows: s.rows,
      firstRow: s.pages[0]?.firstRow ?? null,
      version: s.version,
      renderedVersion: this.rendered.version,
      header,
      footer,
      rows: lines,
      gap: this.rendered.gap,
    };
  }
}
