// One session in an xterm.js terminal: the renderer (WebGL, falling back to
// xterm's DOM renderer), fit, links, search, the query-reply guard, and the
// TerminalLink that feeds it. The terminal is created once per pane and lives
// until the pane goes: layout changes move the pane, never remount it.
//
// Older history than the terminal holds is read in a HistoryPanel over the
// pane: its button, its key, or scrolling to the very top of the terminal
// (then the panel opens only if the server has older rows, or if the pane
// has dropped rows of its own since its snapshot; otherwise a note says the
// history starts there).
import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { SearchAddon } from '@xterm/addon-search';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { TerminalLink, type LinkStatus } from '../terminal/terminal-link.js';
import { suppressQueryReplies } from '../terminal/query-replies.js';
import { keepCursorInView } from '../terminal/cursor-in-view.js';
import { registerDebugPane, reportProblem } from '../debug-hook.js';
import { TERMINAL_THEMES, type ThemeName } from '../theme.js';
import { commandForKey, type PaneCommand } from '../layout/shortcuts.js';
import { SearchBar } from './SearchBar.js';
import { HistoryPanel } from './HistoryPanel.js';
import { HistoryLoader } from '../terminal/history-loader.js';
import { describeExit } from '../../../src/protocol/exit-status.js';

/** The server keeps 10 000 rows; the page keeps as many, so scrolling back finds the same lines. */
const SCROLLBACK_ROWS = 10_000;
const FONT_SIZE_PX = 14;
/** A wheel, key or pointer this recently makes a scroll to the top the user's own (it opens the history). */
const GESTURE_WINDOW_MS = 1000;
/** How long the "nothing older" note stays. */
const NOTE_MS = 4000;

export interface TerminalPaneProps {
  socket: ViewerSocket;
  sessionId: string;
  label: string;
  theme: ThemeName;
  focused: boolean;
  visible: boolean;
  onFocus(): void;
  onCommand(command: PaneCommand): void;
  onRevive?(): Promise<void>;
}

interface PaneParts {
  term: Terminal;
  fit: FitAddon;
  search: SearchAddon;
  link: TerminalLink;
}

function statusText(status: LinkStatus, exit: { code: number; signal: number } | null): string | null {
  switch (status) {
    case 'connecting':
      return 'connecting…';
    case 'reconnecting':
      return 'reconnecting…';
    case 'exited':
      // The EXIT frame says code −1 and the signal for a signal death; describeExit reads it as such.
      return exit ? `the program ${describeExit(exit)}` : 'exited';
    case 'gone':
      return 'no such session';
    case 'live':
      return null;
  }
}

export function TerminalPane(props: TerminalPaneProps) {
  const host = useRef<HTMLDivElement>(null);
  const parts = useRef<PaneParts | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const [status, setStatus] = useState<LinkStatus>('connecting');
  const [title, setTitle] = useState('');
  const [exit, setExit] = useState<{ code: number; signal: number } | null>(null);
  const [searching, setSearching] = useState(false);
  /** The history view's loader: set while it is open, or while a scroll to the top asks whether there is anything older. */
  const [historyLoader, setHistoryLoader] = useState<HistoryLoader | null>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  /** Bumped by the search key while the history is open: the panel opens its own search. */
  const [historySearch, setHistorySearch] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const historyRef = useRef<HistoryLoader | null>(null);
  const historyOpenRef = useRef(false);
  historyOpenRef.current = historyOpen;
  /** The link's snapshot count when the server last said it has nothing older: asking again would say the same. */
  const nothingOlderAt = useRef<number | null>(null);
  const noteTimer = useRef<number | null>(null);

  const flashNote = (text: string) => {
    if (noteTimer.current !== null) window.clearTimeout(noteTimer.current);
    setNote(text);
    noteTimer.current = window.setTimeout(() => {
      noteTimer.current = null;
      setNote(null);
    }, NOTE_MS);
  };

  const closeHistory = () => {
    historyRef.current?.dispose();
    historyRef.current = null;
    setHistoryLoader(null);
    setHistoryOpen(false);
    if (latest.current.focused) parts.current?.term.focus();
  };

  /** 'open': the button or the key. 'peek': a scroll to the top — open only if the server has older rows. */
  const showHistory = (how: 'open' | 'peek') => {
    const p = parts.current;
    if (!p) return;
    if (historyRef.current) {
      if (how === 'open') setHistoryOpen(true);
      return;
    }
    // Rows the pane dropped since its snapshot are on the server, between: never say "nothing older" then.
    const gap = p.link.trimmedSinceSnapshot;
    if (how === 'peek' && !gap && nothingOlderAt.current === p.link.stats.snapshots) {
      flashNote('start of history: the server holds nothing older');
      return;
    }
    const loader = new HistoryLoader(p.link);
    historyRef.current = loader;
    setHistoryLoader(loader);
    if (how === 'open') {
      setHistoryOpen(true);
    } else {
      const snapshots = p.link.stats.snapshots;
      const stop = loader.subscribe(() => {
        const s = loader.state;
        if (historyRef.current !== loader || historyOpenRef.current) {
          stop();
          return;
        }
        if (s.loading || s.waiting) return;
        stop();
        if (s.rows > 0 || s.dropped > 0 || s.problem !== null || !s.oldest || gap || p.link.trimmedSinceSnapshot) {
          setHistoryOpen(true);
          return;
        }
        nothingOlderAt.current = snapshots;
        closeHistory();
        flashNote('start of history: the server holds nothing older');
      });
    }
    loader.loadOlder();
  };
  const showHistoryRef = useRef(showHistory);
  showHistoryRef.current = showHistory;

  useEffect(() => {
    const element = host.current!;
    const term = new Terminal({
      scrollback: SCROLLBACK_ROWS,
      fontSize: FONT_SIZE_PX,
      fontFamily: '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace',
      cursorBlink: true,
      theme: TERMINAL_THEMES[latest.current.theme],
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
    if (new URLSearchParams(location.search).get('renderer') !== 'dom') try {
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
    const replyGuard = suppressQueryReplies(term);
    // The terminal is the session's size, not the pane's: a larger one scrolls within the pane.
    const cursorView = keepCursorInView(term, element);

    const wantedSize = () => {
      const d = fit.proposeDimensions();
      if (!d || !Number.isFinite(d.cols) || !Number.isFinite(d.rows) || d.cols < 2 || d.rows < 1) return { cols: term.cols, rows: term.rows };
      return { cols: Math.min(1000, d.cols), rows: Math.min(1000, d.rows) };
    };
    const link = new TerminalLink({
      socket: latest.current.socket,
      sessionId: latest.current.sessionId,
      terminal: term,
      wantedSize,
      events: {
        status: setStatus,
        title: setTitle,
        exit: (code, signal) => setExit({ code, signal }),
      },
      onProblem: reportProblem,
    });
    parts.current = { term, fit, search, link };
    const unregister = registerDebugPane({ sessionId: latest.current.sessionId, terminal: term, link, renderer: () => renderer });

    term.attachCustomKeyEventHandler((ev) => {
      const command = commandForKey(ev);
      if (command === null) return true;
      // Paste is the browser's own: let its paste event reach xterm (bracketed paste included).
      if (command.kind === 'paste') return false;
      if (ev.type === 'keydown') {
        ev.preventDefault();
        latest.current.onCommand(command);
      }
      return false;
    });
    const onFocusIn = () => latest.current.onFocus();
    element.addEventListener('focusin', onFocusIn);

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
      if (ev.deltaY < 0 && atTop()) showHistoryRef.current('peek');
    };
    element.addEventListener('wheel', onWheel, { capture: true, passive: true });
    element.addEventListener('pointerdown', gesture, true);
    element.addEventListener('keydown', gesture, true);
    element.addEventListener('touchmove', gesture, { capture: true, passive: true });
    const scrolled = term.onScroll(() => {
      if (performance.now() - gestureAt < GESTURE_WINDOW_MS && atTop()) showHistoryRef.current('peek');
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

    return () => {
      observer.disconnect();
      element.removeEventListener('focusin', onFocusIn);
      scrolled.dispose();
      element.removeEventListener('wheel', onWheel, { capture: true });
      element.removeEventListener('pointerdown', gesture, true);
      element.removeEventListener('keydown', gesture, true);
      element.removeEventListener('touchmove', gesture, { capture: true });
      historyRef.current?.dispose();
      historyRef.current = null;
      setHistoryLoader(null);
      setHistoryOpen(false);
      unregister();
      link.dispose();
      replyGuard.dispose();
      cursorView.dispose();
      term.dispose();
      parts.current = null;
    };
  }, [props.sessionId]);

  useEffect(() => {
    const p = parts.current;
    if (p) p.term.options.theme = TERMINAL_THEMES[props.theme];
  }, [props.theme]);

  useEffect(() => {
    if (props.focused && props.visible && !searching && !historyOpen) parts.current?.term.focus();
  }, [props.focused, props.visible, searching, historyOpen]);

  useEffect(
    () => () => {
      if (noteTimer.current !== null) window.clearTimeout(noteTimer.current);
    },
    [],
  );

  useEffect(() => {
    const onCommand = (ev: Event) => {
      const detail = (ev as CustomEvent<{ sessionId: string; kind: string }>).detail;
      if (detail.sessionId !== props.sessionId) return;
      const p = parts.current;
      if (!p) return;
      if (detail.kind === 'search') {
        if (historyOpenRef.current) setHistorySearch((k) => k + 1);
        else setSearching(true);
      }
      if (detail.kind === 'history') {
        if (historyOpenRef.current) closeHistory();
        else showHistoryRef.current('open');
      }
      if (detail.kind === 'copy') {
        const selection = p.term.getSelection();
        if (selection) void navigator.clipboard?.writeText(selection).catch(() => undefined);
      }
    };
    window.addEventListener('tend-pane-command', onCommand);
    return () => window.removeEventListener('tend-pane-command', onCommand);
  }, [props.sessionId]);

  const overlay = statusText(status, exit);
  const revive = async () => {
    if (!props.onRevive) return;
    await props.onRevive();
    setExit(null);
    parts.current?.link.restart({ newProgram: true });
  };

  return (
    <section
      className={`pane${props.focused ? ' pane-focused' : ''}`}
      aria-label={`terminal ${props.label}`}
      data-session={props.sessionId}
      data-status={status}
      onMouseDown={() => props.onFocus()}
    >
      <header className="pane-header">
        <span className="pane-label">{props.label}</span>
        <span className="pane-title" title={title}>
          {title}
        </span>
        {overlay && (
          <span className={`pane-status pane-status-${status}`} role="status">
            {overlay}
          </span>
        )}
        {status === 'exited' && props.onRevive && (
          <button type="button" className="small" onClick={() => void revive()}>
            Revive
          </button>
        )}
        <button type="button" className="small ghost" aria-label="search the scrollback" onClick={() => setSearching(true)}>
          Search
        </button>
        <button
          type="button"
          className="small ghost"
          aria-label="older history from the server"
          aria-pressed={historyOpen}
          title="older history from the server (Ctrl+Shift+L)"
          onClick={() => (historyOpen ? closeHistory() : showHistory('open'))}
        >
          History
        </button>
        <button type="button" className="small ghost" aria-label="maximise or restore the pane" onClick={() => props.onCommand({ kind: 'zoom' })}>
          ⤢
        </button>
      </header>
      {searching && parts.current && (
        <SearchBar
          search={parts.current.search}
          onClose={() => {
            setSearching(false);
            parts.current?.term.focus();
          }}
        />
      )}
      <div className="pane-stage">
        <div className="pane-body" ref={host} />
        {historyLoader && historyOpen && parts.current && (
          <HistoryPanel
            key={props.sessionId}
            sessionId={props.sessionId}
            label={props.label}
            loader={historyLoader}
            live={{ terminal: parts.current.term, link: parts.current.link }}
            theme={props.theme}
            searchRequest={historySearch}
            onFocus={() => props.onFocus()}
            onClose={closeHistory}
          />
        )}
        {note && (
          <div className="pane-note" role="status">
            {note}
          </div>
        )}
      </div>
    </section>
  );
}
