// One session in an xterm.js terminal: the renderer (WebGL, falling back to
// xterm's DOM renderer), fit, links, search, the query-reply guard, and the
// TerminalLink that feeds it. The terminal is created once per pane and lives
// until the pane goes: layout changes move the pane, never remount it.
import { useEffect, useRef, useState } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { WebglAddon } from '@xterm/addon-webgl';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { SearchAddon } from '@xterm/addon-search';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { TerminalLink, type LinkStatus } from '../terminal/terminal-link.js';
import { suppressQueryReplies } from '../terminal/query-replies.js';
import { registerDebugPane, reportProblem } from '../debug-hook.js';
import { TERMINAL_THEMES, type ThemeName } from '../theme.js';
import { commandForKey, type PaneCommand } from '../layout/shortcuts.js';
import { SearchBar } from './SearchBar.js';

/** The server keeps 10 000 rows; the page keeps as many, so scrolling back finds the same lines. */
const SCROLLBACK_ROWS = 10_000;
const FONT_SIZE_PX = 14;

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
      return exit ? (exit.signal ? `exited (signal ${exit.signal})` : `exited with code ${exit.code}`) : 'exited';
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

    // The pane's size decides what this page asks the PTY to be; the PTY's
    // answer (RESIZE) decides what the terminal renders.
    const observer = new ResizeObserver(() => {
      if (element.clientWidth === 0 || element.clientHeight === 0) return;
      const { cols, rows } = wantedSize();
      link.requestSize(cols, rows);
    });
    observer.observe(element);

    return () => {
      observer.disconnect();
      element.removeEventListener('focusin', onFocusIn);
      unregister();
      link.dispose();
      replyGuard.dispose();
      term.dispose();
      parts.current = null;
    };
  }, [props.sessionId]);

  useEffect(() => {
    const p = parts.current;
    if (p) p.term.options.theme = TERMINAL_THEMES[props.theme];
  }, [props.theme]);

  useEffect(() => {
    if (props.focused && props.visible && !searching) parts.current?.term.focus();
  }, [props.focused, props.visible, searching]);

  useEffect(() => {
    const onCommand = (ev: Event) => {
      const detail = (ev as CustomEvent<{ sessionId: string; kind: string }>).detail;
      if (detail.sessionId !== props.sessionId) return;
      const p = parts.current;
      if (!p) return;
      if (detail.kind === 'search') setSearching(true);
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
    parts.current?.link.restart();
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
      <div className="pane-body" ref={host} />
    </section>
  );
}
