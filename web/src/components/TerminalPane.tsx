// A pane: its header (label, its agent's badge, title, status, Revive,
// Search, History, maximise), the terminal, the search bar, the history view
// over the terminal, a passing note, and over a sleeping agent's kept screen
// a note that typing wakes it (the server wakes it on input and delivers the
// keys once it is up: the pane just sends them). The terminal and the pane's state are the
// PaneController's (terminal/pane-controller.ts); this only draws them.
import { useEffect, useRef, useState } from 'react';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import type { LinkStatus } from '../terminal/terminal-link.js';
import { PaneController } from '../terminal/pane-controller.js';
import type { ThemeName } from '../theme.js';
import type { PaneCommand } from '../layout/shortcuts.js';
import { useModel } from '../model/use-model.js';
import { SearchBar } from './SearchBar.js';
import { HistoryPanel } from './HistoryPanel.js';
import { describeExit } from '../../../src/protocol/exit-status.js';
import type { AgentInfo } from '../../../src/protocol/api/index.js';
import type { AgentStore } from '../agents/agent-store.js';
import { AgentBadge } from './AgentBadge.js';
import type { StickyCtrl } from '../workspace/sticky-ctrl.js';

export interface TerminalPaneProps {
  socket: ViewerSocket;
  agents: AgentStore;
  sessionId: string;
  label: string;
  theme: ThemeName;
  focused: boolean;
  visible: boolean;
  onFocus(): void;
  onCommand(command: PaneCommand): void;
  onRevive?(): Promise<void>;
  /** The phone key row's sticky Ctrl (the workspace's one). */
  ctrl?: StickyCtrl;
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

/** The note over the screen of an agent that is asleep or waking up; null otherwise. */
function agentNote(agent: AgentInfo | null): string | null {
  if (agent?.state === 'sleeping') return 'sleeping — type to wake';
  if (agent?.state === 'waking') return 'waking…';
  return null;
}

export function TerminalPane(props: TerminalPaneProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  const [pane] = useState(
    () =>
      new PaneController({
        socket: props.socket,
        sessionId: props.sessionId,
        theme: props.theme,
        callbacks: () => latest.current,
        focused: () => latest.current.focused,
        agents: props.agents,
        ctrl: props.ctrl,
      }),
  );
  const agent = useModel(props.agents).agents.get(props.sessionId) ?? null;
  const sleepNote = agentNote(agent);
  const { status, title, exit, searching, historyLoader, historyOpen, historySearch, note, parts } = useModel(pane);

  useEffect(() => pane.attach(host.current!), [pane]);
  useEffect(() => pane.setTheme(props.theme), [pane, props.theme]);
  useEffect(() => {
    if (props.focused && props.visible && !searching && !historyOpen) pane.focusTerminal();
  }, [pane, parts, props.focused, props.visible, searching, historyOpen]);

  const overlay = statusText(status, exit);
  return (
    <section
      className={`pane${props.focused ? ' pane-focused' : ''}`}
      aria-label={`terminal ${props.label}`}
      data-session={props.sessionId}
      data-status={status}
      data-agent-state={agent?.state}
      onMouseDown={() => props.onFocus()}
    >
      <header className="pane-header">
        <span className="pane-label">{props.label}</span>
        {agent && <AgentBadge agent={agent} />}
        <span className="pane-title" title={title}>
          {title}
        </span>
        {overlay && (
          <span className={`pane-status pane-status-${status}`} role="status">
            {overlay}
          </span>
        )}
        {status === 'exited' && props.onRevive && (
          <button type="button" className="small" onClick={() => void pane.revive()}>
            Revive
          </button>
        )}
        <button type="button" className="small ghost" aria-label="search the scrollback" onClick={() => pane.openSearch()}>
          Search
        </button>
        <button
          type="button"
          className="small ghost"
          aria-label="older history from the server"
          aria-pressed={historyOpen}
          title="older history from the server (Ctrl+Shift+L)"
          onClick={() => pane.toggleHistory()}
        >
          History
        </button>
        <button type="button" className="small ghost pane-zoom" aria-label="maximise or restore the pane" onClick={() => props.onCommand({ kind: 'zoom' })}>
          ⤢
        </button>
      </header>
      {searching && parts && <SearchBar search={parts.search} onClose={() => pane.closeSearch()} />}
      <div className="pane-stage">
        <div className="pane-body" ref={host} />
        {historyLoader && historyOpen && parts && (
          <HistoryPanel
            key={props.sessionId}
            sessionId={props.sessionId}
            label={props.label}
            loader={historyLoader}
            live={parts.terminal}
            theme={props.theme}
            searchRequest={historySearch}
            onFocus={() => props.onFocus()}
            onClose={() => pane.closeHistory()}
          />
        )}
        {sleepNote && (
          <div className={`pane-agent-note pane-agent-${agent!.state}`} role="status">
            {sleepNote}
          </div>
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
