// One session in an xterm.js terminal: the renderer (WebGL, falling back to
// xterm's DOM renderer), fit, links, search, the query-reply guard, the
// TerminalLink that feeds it, and the pane's state (status, title, exit,
// search, the history view, a passing note) for TerminalPane to draw. The
// terminal is made once the pane's element is on the page and lives until
// the pane goes: layout changes move the pane, never remount it.
//
// Older history than the terminal holds is read in a history view over the
// pane: its button, its key, or scrolling to the very top of the terminal
// (then the view opens only if the server has older rows, or if the pane has
// dropped rows of its own since its snapshot; otherwise a note says the
// history starts there).
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { SearchAddon } from '@xterm/addon-search';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { TerminalLink, type LinkStatus } from './terminal-link.js';
import { suppressQueryReplies } from './query-replies.js';
import { keepCursorInView } from './cursor-in-view.js';
import { TrimCounter } from './trim-counter.js';
import { HistoryLoader } from './history-loader.js';
import type { PaneRows } from './history-join.js';
import { registerDebugPane, reportProblem } from '../debug-hook.js';
import { TERMINAL_THEMES, type ThemeName } from '../theme.js';
import { commandForKey, type PaneCommand } from '../layout/shortcuts.js';
import { onPaneCommand, type PaneCommandKind } from '../workspace/pane-commands.js';
import { Model } from '../model/model.js';
import type { AgentStore } from '../agents/agent-store.js';
import { agentInStateFrame } from '../agents/agent-from-frame.js';
import { keyBytes, withCtrl, type PhoneKey } from './phone-keys.js';
import { onPaneKey } from '../workspace/pane-keys.js';
import type { StickyCtrl } from '../workspace/sticky-ctrl.js';

/** The server keeps 10 000 rows live; the page keeps as many, so scrolling back finds the same lines. */
const SCROLLBACK_ROWS = 10_000;
const FONT_SIZE_PX = 14;
const FONT_FAMILY = '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace';
/** A wheel, key or pointer this recently makes a scroll to the top the user's own (it opens the history). */
const GESTURE_WINDOW_MS = 1000;
/** How long the "nothing older" note stays. */
const NOTE_MS = 4000;
/** The largest PTY a pane asks for (the server's limit). */
const MAX_SIZE_CELLS = 1000;
const NOTHING_OLDER = 'start of history: the server holds nothing older';

export interface PaneCallbacks {
  /** Focus moved into the pane. */
  onFocus(): void;
  /** A workspace key pressed in the terminal. */
  onCommand(command: PaneCommand): void;
  /** Starts the session's program again (the pane's Revive). */
  onRevive?(): Promise<void>;
}

export interface PaneState {
  status: LinkStatus;
  title: string;
  exit: { code: number; signal: number } | null;
  searching: boolean;
  /** The history view's loader: set while it is open, or while a scroll to the top asks whether there is anything older. */
  historyLoader: HistoryLoader | null;
  historyOpen: boolean;
  /** Bumped by the search key while the history is open: the view opens its own search. */
  historySearch: number;
  note: string | null;
  /** Set once the terminal exists (attach). */
  parts: PaneParts | null;
}

export interface PaneParts {
  terminal: Terminal;
  search: SearchAddon;
  link: TerminalLink;
}

export interface PaneControllerOptions {
  socket: ViewerSocket;
  sessionId: string;
  theme: ThemeName;
  /** Read at each use: the component hands the latest on every render. */
  callbacks: () => PaneCallbacks;
  /** Whether the pane has the workspace's focus now. */
  focused: () => boolean;
  /** Told the session's agent from each STATE frame that carries it. */
  agents: AgentStore;
  /** The phone key row's sticky Ctrl: armed, it changes the next key typed here. */
  ctrl?: StickyCtrl;
}

const encoder = new TextEncoder();

export class PaneController extends Model<PaneState> {
  /** The link's snapshot count when the server last said it has nothing older: asking again would say the same. */
  private nothingOlderAt: number | null = null;
  private noteTimer: number | null = null;
  private theme: ThemeName;
  /** The pane's rows, for a history view to join its first page to (set while the terminal exists). */
  private paneRows: PaneRows | null = null;

  constructor(private readonly options: PaneControllerOptions) {
    super({ status: 'connecting', title: '', exit: null, searching: false, historyLoader: null, historyOpen: false, historySearch: 0, note: null, parts: null });
    this.theme = options.theme;
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  /** Makes the terminal in `element` and connects it; returns what takes it all down. */
  attach(element: HTMLElement): () => void {
    const { options } = this;
    this.update({ status: 'connecting', title: '', exit: null });
    const term = new Terminal({
      scrollback: SCROLLBACK_ROWS,
      fontSize: FONT_SIZE_PX,
      fontFamily: FONT_FAMILY,
      cursorBlink: true,
      theme: TERMINAL_THEMES[this.theme],
      // The search addon's match highlights use decorations, a proposed API.
      allowProposedApi: true,
      screenReaderMode: false,
    });
    const fit = new FitAddon();
    const search = new SearchAddon();
    term.loadAddon(fit);
    term.loadAddon(search);
    term.loadAddon(new WebLinksAddon((_event, uri) => window.open(uri, '_blank', 'noopener')));
    term.open(element);
    let renderer: 'webgl' | 'dom' = 'dom';
    // ?renderer=dom keeps xterm's DOM renderer: for machines whose WebGL is software-only or broken.
    if (new URLSearchParams(location.search).get('renderer') !== 'dom') {
      try {
        const webgl = new WebglAddon();
        // A lost GPU context falls back to the DOM renderer instead of a blank pane.
        webgl.onContextLoss(() => {
          webgl.dispose();
          renderer = 'dom';
        });
        term.loadAddon(webgl);
        renderer = 'webgl';
      } catch {
        renderer = 'dom';
      }
    }
    const replyGuard = suppressQueryReplies(term);
    // The terminal is the session's size, not the pane's: a larger one scrolls within the pane.
    const cursorView = keepCursorInView(term, element);
    const trims = new TrimCounter(term);

    const wantedSize = () => {
      const d = fit.proposeDimensions();
      if (!d || !Number.isFinite(d.cols) || !Number.isFinite(d.rows) || d.cols < 2 || d.rows < 1) return { cols: term.cols, rows: term.rows };
      return { cols: Math.min(MAX_SIZE_CELLS, d.cols), rows: Math.min(MAX_SIZE_CELLS, d.rows) };
    };
    const link = new TerminalLink({
      socket: options.socket,
      sessionId: options.sessionId,
      terminal: term,
      wantedSize,
      typed: (data) => this.typed(data),
      events: {
        status: (status) => this.update({ status }),
        title: (title) => this.update({ title }),
        exit: (code, signal) => this.update({ exit: { code, signal } }),
        snapshotParsed: () => trims.restart(),
        state: (state) => {
          const agent = agentInStateFrame(state);
          if (agent !== undefined) options.agents.fromFrame(options.sessionId, agent);
        },
      },
      onProblem: reportProblem,
    });
    this.paneRows = {
      trimmedRows: () => trims.trimmed,
      snapshots: () => link.stats.snapshots,
      topRows: (count) => topRows(term, count),
    };
    this.update({ parts: { terminal: term, search, link } });
    const unregister = registerDebugPane({ sessionId: options.sessionId, terminal: term, link, renderer: () => renderer });

    term.attachCustomKeyEventHandler((ev) => {
      const command = commandForKey(ev);
      if (command === null) return true;
      // Paste is the browser's own: let its paste event reach xterm (bracketed paste included).
      if (command.kind === 'paste') return false;
      if (ev.type === 'keydown') {
        ev.preventDefault();
        options.callbacks().onCommand(command);
      }
      return false;
    });
    const onFocusIn = () => options.callbacks().onFocus();
    element.addEventListener('focusin', onFocusIn);
    // A tap on a touch screen: the on-screen keyboard opens only for a focus
    // given in the tap's own handler (iOS), so focus here, not later. A click
    // that ends a selection keeps it.
    const onTap = () => {
      if (!term.hasSelection()) term.focus();
    };
    element.addEventListener('click', onTap);
    const stopKeys = onPaneKey(options.sessionId, (key) => this.pressKey(key));

    // Scrolled to the very top by the user (wheel, keys, the scrollbar): older history is on the server.
    let gestureAt = -Infinity;
    const gesture = () => {
      gestureAt = performance.now();
    };
    const atTop = () => {
      const b = term.buffer.active;
      return b.type === 'normal' && b.baseY > 0 && b.viewportY === 0;
    };
    const onWheel = (ev: WheelEvent) => {
      gesture();
      // At the top already, the wheel scrolls nothing: no scroll event, so look here.
      if (ev.deltaY < 0 && atTop()) this.showHistory('peek');
    };
    element.addEventListener('wheel', onWheel, { capture: true, passive: true });
    element.addEventListener('pointerdown', gesture, true);
    element.addEventListener('keydown', gesture, true);
    element.addEventListener('touchmove', gesture, { capture: true, passive: true });
    const scrolled = term.onScroll(() => {
      if (performance.now() - gestureAt < GESTURE_WINDOW_MS && atTop()) this.showHistory('peek');
    });

    // The pane's size is what this page would ask the PTY to be, told to the
    // server as it changes; the page takes the size only once the person types
    // in it (the server's window-size policy), and the PTY's size (SNAPSHOT,
    // RESIZE) is what the terminal renders, whatever the pane's.
    const observer = new ResizeObserver(() => {
      if (element.clientWidth === 0 || element.clientHeight === 0) return;
      const { cols, rows } = wantedSize();
      link.requestSize(cols, rows);
    });
    observer.observe(element);
    const stopCommands = onPaneCommand(options.sessionId, (kind) => this.paneCommand(kind));

    return () => {
      stopCommands();
      stopKeys();
      observer.disconnect();
      element.removeEventListener('focusin', onFocusIn);
      element.removeEventListener('click', onTap);
      scrolled.dispose();
      element.removeEventListener('wheel', onWheel, { capture: true });
      element.removeEventListener('pointerdown', gesture, true);
      element.removeEventListener('keydown', gesture, true);
      element.removeEventListener('touchmove', gesture, { capture: true });
      this.state.historyLoader?.dispose();
      if (this.noteTimer !== null) window.clearTimeout(this.noteTimer);
      this.noteTimer = null;
      this.paneRows = null;
      this.update({ historyLoader: null, historyOpen: false, parts: null, note: null });
      unregister();
      link.dispose();
      trims.dispose();
      replyGuard.dispose();
      cursorView.dispose();
      term.dispose();
    };
  }

  setTheme(theme: ThemeName): void {
    this.theme = theme;
    const term = this.state.parts?.terminal;
    if (term) term.options.theme = TERMINAL_THEMES[theme];
  }

  /** Gives the terminal the keyboard focus. */
  focusTerminal(): void {
    this.state.parts?.terminal.focus();
  }

  openSearch(): void {
    this.update({ searching: true });
  }

  closeSearch(): void {
    this.update({ searching: false });
    this.focusTerminal();
  }

  toggleHistory(): void {
    if (this.state.historyOpen) this.closeHistory();
    else this.showHistory('open');
  }

  closeHistory(): void {
    this.state.historyLoader?.dispose();
    this.update({ historyLoader: null, historyOpen: false });
    if (this.options.focused()) this.focusTerminal();
  }

  async revive(): Promise<void> {
    const revive = this.options.callbacks().onRevive;
    if (!revive) return;
    await revive();
    this.update({ exit: null });
    this.state.parts?.link.restart({ newProgram: true });
  }

  /** 'open': the button or the key. 'peek': a scroll to the top — open only if the server has older rows. */
  showHistory(how: 'open' | 'peek'): void {
    const parts = this.state.parts;
    if (!parts) return;
    const { link } = parts;
    if (this.state.historyLoader) {
      if (how === 'open') this.update({ historyOpen: true });
      return;
    }
    // Rows the pane dropped since its snapshot are on the server, between: never say "nothing older" then.
    const gap = link.trimmedSinceSnapshot;
    if (how === 'peek' && !gap && this.nothingOlderAt === link.stats.snapshots) {
      this.flashNote(NOTHING_OLDER);
      return;
    }
    const loader = new HistoryLoader(link, this.paneRows);
    this.update({ historyLoader: loader, historyOpen: how === 'open' });
    if (how === 'peek') {
      const snapshots = link.stats.snapshots;
      const stop = loader.subscribe(() => {
        const s = loader.state;
        if (this.state.historyLoader !== loader || this.state.historyOpen) {
          stop();
          return;
        }
        if (s.loading || s.waiting) return;
        stop();
        if (s.rows > 0 || s.dropped > 0 || s.problem !== null || !s.oldest || gap || link.trimmedSinceSnapshot) {
          this.update({ historyOpen: true });
          return;
        }
        this.nothingOlderAt = snapshots;
        this.closeHistory();
        this.flashNote(NOTHING_OLDER);
      });
    }
    loader.loadOlder();
  }

  copySelection(): void {
    const selection = this.state.parts?.terminal.getSelection();
    if (selection) void navigator.clipboard?.writeText(selection).catch(() => undefined);
  }

  /** The search, history and copy keys pressed while the focus was on the page, for this pane. */
  private paneCommand(kind: PaneCommandKind): void {
    if (kind === 'search') {
      if (this.state.historyOpen) this.update({ historySearch: this.state.historySearch + 1 });
      else this.openSearch();
    } else if (kind === 'history') {
      this.toggleHistory();
    } else {
      this.copySelection();
    }
  }

  /** A key of the phone key row: its bytes in the terminal's cursor-key mode, with the sticky Ctrl if armed. */
  private pressKey(key: PhoneKey): void {
    const parts = this.state.parts;
    if (!parts) return;
    const { terminal, link } = parts;
    const bytes = keyBytes(key, { applicationCursor: terminal.modes.applicationCursorKeysMode, ctrl: this.options.ctrl?.take() ?? false });
    // As a typed key does: back to the bottom, where the program's answer appears.
    terminal.scrollToBottom();
    link.input(encoder.encode(bytes));
  }

  /**
   * What the terminal is about to send for the person's typing, with the
   * sticky Ctrl on its first character when armed. xterm's own answers
   * (queries, focus and mouse reports) start with ESC: they pass unchanged
   * and leave Ctrl armed for the person's next key.
   */
  private typed(data: string): string {
    const ctrl = this.options.ctrl;
    if (!ctrl?.state.armed || data.startsWith('\x1b')) return data;
    ctrl.take();
    return withCtrl(data);
  }

  private flashNote(text: string): void {
    if (this.noteTimer !== null) window.clearTimeout(this.noteTimer);
    this.update({ note: text });
    this.noteTimer = window.setTimeout(() => {
      this.noteTimer = null;
      this.update({ note: null });
    }, NOTE_MS);
  }
}

/** The text of the terminal's first `count` rows (normal buffer), trailing blanks trimmed. */
function topRows(term: Terminal, count: number): string[] {
  const buffer = term.buffer.normal;
  const rows: string[] = [];
  for (let i = 0; i < count && i < buffer.length; i++) rows.push((buffer.getLine(i)?.translateToString(true) ?? '').replace(/ +$/, ''));
  return rows;
}
