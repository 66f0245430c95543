// A workspace on the page: its bar (back, split, maximise, close, keys), its
// panes in their split layout, and the keys dialog. The state and every
// change are the WorkspaceModel's (workspace/workspace-model.ts); this only
// draws it.
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

  return (
    <main className="workspace" aria-label={`workspace ${props.name}`}>
      <div className="workspace-bar">
        <button type="button" className="small" onClick={() => props.navigate('/')} aria-label="back to the dashboard">
          ← Sessions
        </button>
        <h1 className="workspace-name">{props.name}</h1>
        <button type="button" className="small" onClick={() => void model.split('right')} aria-label="split side by side">
          Split ◫
        </button>
        <button type="button" className="small" onClick={() => void model.split('down')} aria-label="split top and bottom">
          Split ⊟
        </button>
        <button type="button" className="small" onClick={() => model.command({ kind: 'zoom' })} aria-pressed={zoomed !== null}>
          {zoomed !== null ? 'Restore' : 'Maximise'}
        </button>
        <button type="button" className="small" onClick={() => model.command({ kind: 'close' })} aria-label="close the focused pane">
          Close pane
        </button>
        <button type="button" className="small ghost" onClick={() => model.showHelp(true)} aria-label="keyboard shortcuts">
          Keys
        </button>
        {note && (
          <span className="workspace-note" role="status">
            {note}
          </span>
        )}
      </div>
      <SplitLayout
        layout={layout}
        zoomed={zoomed}
        onRatio={(path, ratio, final) => model.moveDivider(path, ratio, final)}
        renderPane={(session, visible) => {
          const info = sessions.get(session);
          return (
            <TerminalPane
              socket={props.socket}
              agents={props.agents}
              sessionId={session}
              label={info ? sessionLabel(info) : session}
              theme={props.theme}
              focused={focused === session}
              visible={visible}
              onFocus={() => model.focus(session)}
              onCommand={(c) => model.command(c)}
              onRevive={() => model.revive(session)}
            />
          );
        }}
      />
      {help && <HelpDialog onClose={() => model.showHelp(false)} />}
    </main>
  );
}
