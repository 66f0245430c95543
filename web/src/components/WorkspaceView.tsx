// A workspace on the page: its bar (back, split, maximise, close, keys), its
// panes in their split layout, and the keys dialog. The state and every
// change are the WorkspaceModel's (workspace/workspace-model.ts); this only
// draws it.
//
// On a narrow screen (a phone) the panes are shown one at a time, the
// focused one, at the whole width, with tabs to switch; the bar keeps only
// what a phone needs. On a touch or narrow screen a row of keys the
// on-screen keyboard lacks (KeyRow) sits at the bottom, for the focused pane.
import { useState } from 'react';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { sessionLabel } from '../api/sessions.js';
import { WorkspaceModel } from '../workspace/workspace-model.js';
import { sendPaneCommand } from '../workspace/pane-commands.js';
import { useModel } from '../model/use-model.js';
import { useOwnedModel } from '../model/use-owned-model.js';
import { SplitLayout } from './SplitLayout.js';
import { TerminalPane } from './TerminalPane.js';
import { HelpDialog } from './HelpDialog.js';
import type { ThemeName } from '../theme.js';
import type { AgentStore } from '../agents/agent-store.js';
import { layoutSessions } from '../../../src/protocol/api/index.js';
import { useKeyRowWanted, useNarrowScreen } from '../layout/screen-kind.js';
import { StickyCtrl } from '../workspace/sticky-ctrl.js';
import { sendPaneKey } from '../workspace/pane-keys.js';
import { KeyRow } from './KeyRow.js';
import { PaneTabs } from './PaneTabs.js';

export interface WorkspaceViewProps {
  name: string;
  /** A session to focus first, if the workspace holds it. */
  focus?: string | null;
  socket: ViewerSocket;
  theme: ThemeName;
  navigate(path: string): void;
  agents: AgentStore;
}

export function WorkspaceView(props: WorkspaceViewProps) {
  const model = useOwnedModel(() => new WorkspaceModel({ name: props.name, focus: props.focus ?? null, navigate: props.navigate, paneCommand: sendPaneCommand, agents: props.agents }));
  const { layout, error, note, focused, zoomed, help, sessions } = useModel(model);
  const narrow = useNarrowScreen();
  const keyRowWanted = useKeyRowWanted();
  const [ctrl] = useState(() => new StickyCtrl());

  if (error) {
    return (
      <main className="workspace-message">
        <p role="alert">{error}</p>
        <button type="button" onClick={() => props.navigate('/')}>
          Back to the dashboard
        </button>
      </main>
    );
  }
  if (!layout) return <main className="workspace-message">loading…</main>;

  const panes = layoutSessions(layout);
  const labelOf = (session: string) => {
    const info = sessions.get(session);
    return info ? sessionLabel(info) : session;
  };
  // Narrow: the focused pane alone, as if maximised (the model's own maximise is left as it is, for a wider screen).
  const shown = narrow ? (focused ?? panes[0] ?? null) : zoomed;

  return (
    <main className={`workspace${narrow ? ' workspace-narrow' : ''}`} aria-label={`workspace ${props.name}`}>
      <div className="workspace-bar">
        <button type="button" className="small" onClick={() => props.navigate('/')} aria-label="back to the dashboard">
          {narrow ? '←' : '← Sessions'}
        </button>
        <h1 className="workspace-name">{props.name}</h1>
        {narrow ? (
          <button type="button" className="small" onClick={() => void model.split('right')} aria-label="a new pane">
            + Pane
          </button>
        ) : (
          <>
            <button type="button" className="small" onClick={() => void model.split('right')} aria-label="split side by side">
              Split ◫
            </button>
            <button type="button" className="small" onClick={() => void model.split('down')} aria-label="split top and bottom">
              Split ⊟
            </button>
            <button type="button" className="small" onClick={() => model.command({ kind: 'zoom' })} aria-pressed={zoomed !== null}>
              {zoomed !== null ? 'Restore' : 'Maximise'}
            </button>
          </>
        )}
        <button type="button" className="small" onClick={() => model.command({ kind: 'close' })} aria-label="close the focused pane">
          {narrow ? 'Close' : 'Close pane'}
        </button>
        {!narrow && (
          <button type="button" className="small ghost" onClick={() => model.showHelp(true)} aria-label="keyboard shortcuts">
            Keys
          </button>
        )}
        {note && (
          <span className="workspace-note" role="status">
            {note}
          </span>
        )}
      </div>
      {narrow && panes.length > 1 && <PaneTabs sessions={panes} shown={shown} labelOf={labelOf} onShow={(session) => model.focus(session)} />}
      <SplitLayout
        layout={layout}
        zoomed={shown}
        onRatio={(path, ratio, final) => model.moveDivider(path, ratio, final)}
        renderPane={(session, visible) => (
          <TerminalPane
            socket={props.socket}
            agents={props.agents}
            sessionId={session}
            label={labelOf(session)}
            theme={props.theme}
            focused={focused === session}
            visible={visible}
            onFocus={() => model.focus(session)}
            onCommand={(c) => model.command(c)}
            onRevive={() => model.revive(session)}
            ctrl={ctrl}
          />
        )}
      />
      {keyRowWanted && <KeyRow ctrl={ctrl} disabled={focused === null} onKey={(key) => focused !== null && sendPaneKey(focused, key)} />}
      {help && <HelpDialog onClose={() => model.showHelp(false)} />}
    </main>
  );
}
