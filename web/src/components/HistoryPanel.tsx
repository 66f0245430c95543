// A pane's history beyond what its own terminal holds: a read-only overlay
// inside the pane with an xterm of its own, fed by a HistoryLoader. Each time
// a page arrives the panel's terminal is rebuilt — reset, then every page
// oldest first, in one write — so older rows appear above the ones already
// read and the rows in view stay in view. The pane's live terminal is never
// written to, reset or resized from here; the pane goes on live underneath.
//
// Keys in the panel: Escape (or the history key again) closes it, Page Up/Down,
// arrows, Home/End scroll, Home or scrolling at the top loads older rows, the
// search key searches the loaded rows, Tab reaches the panel's buttons.
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import type { HistoryLoader, HistoryState } from '../terminal/history-loader.js';
import type { LinkStatus, TerminalLink } from '../terminal/terminal-link.js';
import { registerDebugHistory, type DebugHistoryView } from '../debug-hook.js';
import { commandForKey } from '../layout/shortcuts.js';
import { TERMINAL_THEMES, type ThemeName } from '../theme.js';
import { SearchBar } from './SearchBar.js';

/** A user's wheel, key or pointer this recently makes a scroll to the top "theirs" (it loads older rows). */
const GESTURE_WINDOW_MS = 1000;
/** The panel's scrolling keys. */
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

export interface HistoryPanelProps {
  sessionId: string;
  label: string;
  loader: HistoryLoader;
  /** The pane's live terminal and link: read (width, font, whether it trimmed rows), never written. */
  live: { terminal: Terminal; link: TerminalLink };
  theme: ThemeName;
  /** Bumped when the search key is pressed for this pane from outside the panel's terminal. */
  searchRequest: number;
  /** Focus moved into the panel (the pane becomes the focused one). */
  onFocus(): void;
  onClose(): void;
}

const numberFormat = new Intl.NumberFormat('en');
const n = (value: number) => numberFormat.format(value);

/**
 * The panel's first line: where the history starts, or that more can be
 * loaded. `gap`: the pane has dropped rows of its own since its snapshot, so
 * "no older rows" would be untrue (they are between, not above).
 */
export function historyHeader(state: Pick<HistoryState, 'oldest' | 'dropped' | 'rows'>, gap = false): string {
  if (state.oldest) {
    const dropped = `${n(state.dropped)} older ${state.dropped === 1 ? 'row was' : 'rows were'} dropped (server memory budget)`;
    if (state.rows === 0 && gap) return state.dropped > 0 ? `no rows older than this page's first sync are held: ${dropped}` : "no rows older than this page's first sync";
    if (state.rows === 0) return state.dropped > 0 ? `no older rows are held: ${dropped}` : 'no older rows';
    return state.dropped > 0 ? dropped : 'start of history';
  }
  return state.rows === 0 ? 'older rows: none loaded yet' : 'older rows are not loaded yet: Load older, or Home / scroll up at the top';
}

/** The panel's last line: where the pane's own scrollback takes over. */
export function historyFooter(gap: boolean): string {
  return gap
    ? "the pane's own scrollback continues below, but it has dropped its oldest rows since it was last synced: rows in between are not shown here (reload the page to read them)"
    : "the pane's own scrollback continues below";
}

function connectionNotice(status: LinkStatus): string | null {
  switch (status) {
    case 'live':
      return null;
    case 'connecting':
    case 'reconnecting':
      return 'The connection to the server is down: reconnecting… The rows shown stay; older ones can be loaded once it is back.';
    case 'exited':
      return "This pane's channel is closed (the program ended): the server answers no more history requests on it. The rows shown stay; reload the page to read more.";
    case 'gone':
      return 'The server has no such session any more.';
  }
}

/**
 * The terminal's lines [from, to), wrapped rows joined (a range should start
 * on an unwrapped line), trailing blanks trimmed, empty lines at the end dropped.
 */
function logicalLines(term: Terminal, from = 0, to = term.buffer.normal.length): string[] {
  const buffer = term.buffer.normal;
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const line = buffer.getLine(i);
    if (line === undefined) break;
    const continues = i + 1 < to && buffer.getLine(i + 1)?.isWrapped === true;
    const text = line.translateToString(!continues);
    if (line.isWrapped && out.length > 0) out[out.length - 1] += text;
    else out.push(text);
  }
  const trimmed = out.map((l) => l.replace(/ +$/, ''));
  while (trimmed.length > 0 && trimmed[trimmed.length - 1] === '') trimmed.pop();
  return trimmed;
}

/** The first and the last logical line only (the header and the footer), without reading the rows between. */
function headerAndFooter(term: Terminal): string[] {
  const buffer = term.buffer.normal;
  let firstEnd = 1;
  while (firstEnd < buffer.length && buffer.getLine(firstEnd)?.isWrapped === true) firstEnd++;
  let tailStart = Math.max(firstEnd, buffer.length - term.rows - 64);
  while (tailStart > firstEnd && buffer.getLine(tailStart)?.isWrapped === true) tailStart--;
  const tail = logicalLines(term, tailStart);
  return [...logicalLines(term, 0, firstEnd), ...tail.slice(-1)];
}

export function HistoryPanel(props: HistoryPanelProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  const state = useSyncExternalStore(props.loader.subscribe, () => props.loader.state);
  const stateRef = useRef(state);
  stateRef.current = state;
  const [parts, setParts] = useState<{ term: Terminal; search: SearchAddon } | null>(null);
  const [searching, setSearching] = useState(false);
  /** The version (and gap note) last written to the panel's terminal, and the one it has finished parsing. */
  const written = useRef({ version: -1, gap: false });
  const rendered = useRef({ version: -1, gap: false });
  const gap = props.live.link.trimmedSinceSnapshot;

  // The panel's own terminal, for as long as the panel is open.
  useEffect(() => {
    const element = host.current!;
    const live = latest.current.live.terminal;
    const term = new Terminal({
      cols: live.cols,
      rows: Math.max(1, live.rows),
      scrollback: 1000,
      fontSize: live.options.fontSize ?? 14,
      fontFamily: live.options.fontFamily ?? 'monospace',
      theme: TERMINAL_THEMES[latest.current.theme],
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
    // The DOM renderer: a WebGL context per open panel would count against the browser's few.
    term.open(element);

    // As wide as the pane's terminal (the rows were written at the PTY's width), as tall as the panel.
    const fitSize = () => {
      if (element.clientWidth === 0 || element.clientHeight === 0) return;
      const d = fit.proposeDimensions();
      const rows = d && Number.isFinite(d.rows) && d.rows >= 1 ? Math.min(1000, d.rows) : term.rows;
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
    const loadIfAtTop = () => {
      const s = stateRef.current;
      if (term.buffer.active.viewportY === 0 && !s.oldest && !s.loading && s.rows > 0) latest.current.loader.loadOlder();
    };
    const onWheel = (ev: WheelEvent) => {
      gesture();
      if (ev.deltaY < 0) loadIfAtTop();
    };
    element.addEventListener('wheel', onWheel, { capture: true, passive: true });
    element.addEventListener('pointerdown', gesture, true);
    element.addEventListener('touchmove', gesture, { capture: true, passive: true });
    const scrolled = term.onScroll(() => {
      if (performance.now() - gestureAt < GESTURE_WINDOW_MS) loadIfAtTop();
    });

    term.attachCustomKeyEventHandler((ev) => {
      // Nothing is typed here: every key is either the panel's or the page's.
      if (ev.type !== 'keydown') return false;
      gesture();
      const command = commandForKey(ev);
      if (command !== null) {
        if (command.kind === 'history') {
          ev.preventDefault();
          latest.current.onClose();
        } else if (command.kind === 'search') {
          ev.preventDefault();
          setSearching(true);
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
        latest.current.onClose();
      } else if (Object.hasOwn(SCROLL_UP, ev.key)) {
        // Up at the top reads older rows instead.
        ev.preventDefault();
        if (term.buffer.active.viewportY === 0) loadIfAtTop();
        else SCROLL_UP[ev.key]!(term);
      } else if (Object.hasOwn(SCROLL_DOWN, ev.key)) {
        ev.preventDefault();
        SCROLL_DOWN[ev.key]!(term);
      }
      // Tab and the like keep their browser meaning (Tab leaves the terminal for the buttons).
      return false;
    });

    const unregister = registerDebugHistory({
      sessionId: latest.current.sessionId,
      view: (withRows: boolean): DebugHistoryView => {
        const s = stateRef.current;
        const lines = withRows ? logicalLines(term) : headerAndFooter(term);
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
          renderedVersion: rendered.current.version,
          header,
          footer,
          rows: lines,
          gap: rendered.current.gap,
        };
      },
    });

    setParts({ term, search });
    term.focus();
    return () => {
      unregister();
      observer.disconnect();
      liveResize.dispose();
      scrolled.dispose();
      element.removeEventListener('wheel', onWheel, { capture: true });
      element.removeEventListener('pointerdown', gesture, true);
      element.removeEventListener('touchmove', gesture, { capture: true });
      setParts(null);
      written.current = { version: -1, gap: false };
      rendered.current = { version: -1, gap: false };
      term.dispose();
    };
  }, []);

  useEffect(() => {
    if (parts) parts.term.options.theme = TERMINAL_THEMES[props.theme];
  }, [parts, props.theme]);

  // Only a request made while the panel is open opens its search (the count may be old).
  const searchRequestAtOpen = useRef(props.searchRequest);
  useEffect(() => {
    if (props.searchRequest !== searchRequestAtOpen.current) setSearching(true);
  }, [props.searchRequest]);

  // The rebuild: reset, then header, every page oldest first and the footer, in one write.
  useEffect(() => {
    if (!parts) return;
    const { term } = parts;
    // Other changes (loading, a problem) leave the rows as they are.
    if (written.current.version === state.version && written.current.gap === gap) return;
    const buffer = term.buffer.normal;
    const first = written.current.version < 0 || buffer.length <= term.rows;
    const fromBottom = buffer.length - buffer.viewportY;
    const header = historyHeader(state, gap);
    const headerColour = state.oldest && state.dropped > 0 ? WARN : DIM;
    const body = state.pages.map((p) => p.text).join('\r\n');
    // Room for every row even when rows wider than the panel wrap.
    term.options.scrollback = Math.max(1000, (state.rows + 2) * 4);
    const version = state.version;
    written.current = { version, gap };
    term.write(
      `${RESET_TO_INITIAL_STATE}${headerColour}── ${header} ──${PLAIN}\r\n${body === '' ? '' : `${body}${PLAIN}\r\n`}${gap ? WARN : DIM}── ${historyFooter(gap)} ──${PLAIN}${HIDE_CURSOR}`,
      () => {
        if (first) term.scrollToBottom();
        // Older rows were put above: the rows that were in view stay in view.
        else term.scrollToLine(Math.max(0, term.buffer.normal.length - fromBottom));
        rendered.current = { version, gap };
      },
    );
  }, [parts, state, gap]);

  const closeSearch = () => {
    setSearching(false);
    parts?.term.focus();
  };
  const notice = state.problem ? null : connectionNotice(state.connection);
  const gapNotice = gap
    ? `This pane has dropped its own oldest rows (it keeps the newest ${n(props.live.terminal.options.scrollback ?? 0)}) since it last synced with the server, and the server can only be asked for rows older than that sync: the rows in between are not shown here. Reload the page to read the whole history.`
    : null;
  const canLoad = !state.oldest && !state.loading && state.connection === 'live';
  let summary: string;
  if (state.loading) summary = state.rows === 0 ? 'loading…' : `${n(state.rows)} older rows · loading more…`;
  else if (state.waiting) summary = 'waiting for the connection…';
  else if (state.oldest && state.dropped > 0) summary = `${n(state.rows)} older rows held · ${n(state.dropped)} dropped`;
  else if (state.oldest && gap) summary = `${n(state.rows)} rows older than this page's first sync`;
  else if (state.oldest) summary = state.rows === 0 ? 'no older rows' : `all ${n(state.rows)} older rows`;
  else summary = `${n(state.rows)} older rows`;

  return (
    <div
      className="history-panel"
      role="region"
      aria-label={`older history of ${props.label}`}
      data-session={props.sessionId}
      onFocus={() => props.onFocus()}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) {
          e.preventDefault();
          props.onClose();
        }
      }}
    >
      <div className="history-toolbar">
        <span className="history-title">History</span>
        <span className="history-summary" aria-live="polite">
          {summary}
        </span>
        {/* aria-disabled, not disabled: the button keeps the focus of a keyboard user while a page loads. */}
        <button
          type="button"
          className="small"
          aria-disabled={!canLoad}
          onClick={() => {
            if (canLoad) props.loader.loadOlder();
          }}
          aria-label="load older rows"
        >
          Load older
        </button>
        <button type="button" className="small ghost" onClick={() => setSearching(true)} aria-label="search the loaded history">
          Search
        </button>
        <button type="button" className="small ghost" onClick={props.onClose} aria-label="close the history view">
          ✕
        </button>
      </div>
      {state.problem && (
        <div className="history-problem" role="alert">
          <span>{state.problem.message}</span>
          {state.problem.canRetry && (
            <button
              type="button"
              className="small"
              onClick={() => {
                props.loader.retry();
                // The button goes with the problem: the focus stays in the panel.
                parts?.term.focus();
              }}
              aria-label="retry reading the history"
            >
              Retry
            </button>
          )}
        </div>
      )}
      {notice && (
        <div className="history-notice" role="status">
          {notice}
        </div>
      )}
      {gapNotice && (
        <div className="history-notice history-gap" role="note">
          {gapNotice}
        </div>
      )}
      {searching && parts && <SearchBar search={parts.search} onClose={closeSearch} />}
      <div className="history-body" ref={host} />
    </div>
  );
}
