// Every session on the server: name, status (running / exited with its code /
// cold / elsewhere, and its agent's kind and state when it has one), what it
// runs, title, cwd and last activity, with create, rename, kill and revive;
// above them, a card per agent with a live preview (AgentCards), those that
// need a person first. The state is the SessionListModel's and the page's
// AgentStore's; this only draws it. On a narrow screen
// (a phone) each session is a card instead of a table row, so nothing
// scrolls sideways.
import { useState } from 'react';
import { sessionLabel, type SessionInfo } from '../api/sessions.js';
import { StatusBadge } from './StatusBadge.js';
import { SessionListModel, type NewSessionForm } from '../dashboard/session-list-model.js';
import { commandLine, shortCommandLine } from '../../../src/common/command-line.js';
import { layoutSessions } from '../../../src/protocol/api/index.js';
import { useModel } from '../model/use-model.js';
import { useOwnedModel } from '../model/use-owned-model.js';
import type { AgentStore } from '../agents/agent-store.js';
import { AgentBadge } from './AgentBadge.js';
import { AgentCards } from './AgentCards.js';

function relativeTime(ms: number | null | undefined, now: number): string {
  if (!ms) return '—';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

/** The Command cell shows at most this many characters; the whole line is its tooltip. */
const COMMAND_CELL_MAX_CHARS = 60;

const pathOf = (s: SessionInfo) => `/w/${encodeURIComponent(s.name ?? s.id)}`;

export interface DashboardProps {
  navigate(path: string): void;
  agents: AgentStore;
}

export function Dashboard(props: DashboardProps) {
  const model = useOwnedModel(() => new SessionListModel({ opened: (s) => props.navigate(pathOf(s)), agents: props.agents }));
  const { sessions, workspaces, error, now, renaming, confirmKill } = useModel(model);
  // The store's agent: a STATE frame may have told it more since the last poll.
  const { agents } = useModel(props.agents);
  const agentOf = (s: SessionInfo) => agents.get(s.id) ?? null;
  const open = (s: SessionInfo) => props.navigate(pathOf(s));

  return (
    <main className="dashboard">
      <h1>Sessions</h1>
      <CreateForm onCreate={(body) => model.create(body)} />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {sessions !== null && sessions.some((s) => agentOf(s) !== null) && (
        <AgentCards sessions={sessions} agentOf={agentOf} agents={props.agents} open={open} pathOf={pathOf} />
      )}
      {sessions === null ? (
        <p>loading…</p>
      ) : sessions.length === 0 ? (
        <p className="empty">No sessions yet. Start one above.</p>
      ) : (
        <table className="sessions" aria-label="sessions">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Command</th>
              <th scope="col">Title</th>
              <th scope="col">Directory</th>
              <th scope="col">Last activity</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-session={s.id} data-status={s.status}>
                <td className="num">{s.index ?? ''}</td>
                <td className="name">
                  {renaming === s.id ? (
                    <RenameField initial={s.name ?? ''} onDone={(name) => model.finishRename(s.id, name)} />
                  ) : (
                    <a
                      href={pathOf(s)}
                      className="session-name"
                      onClick={(e) => {
                        e.preventDefault();
                        open(s);
                      }}
                    >
                      {sessionLabel(s)}
                    </a>
                  )}
                  {s.name && <span className="session-id">{s.id}</span>}
                </td>
                <td className="status-cell">
                  <StatusBadge session={s} />
                  {agentOf(s) && <AgentBadge agent={agentOf(s)!} />}
                </td>
                <td className="command" title={commandLine(s.argv)} data-label="runs">
                  {shortCommandLine(s.argv, COMMAND_CELL_MAX_CHARS)}
                </td>
                <td className="title" title={s.title ?? ''}>
                  {s.title ?? ''}
                </td>
                <td className="cwd" title={s.cwd ?? ''} data-label="in">
                  {s.cwd ?? ''}
                </td>
                <td className="activity">{relativeTime(s.lastOutputAt ?? s.createdAt, now)}</td>
                <td className="actions">
                  <button type="button" className="small" onClick={() => open(s)} aria-label={`open ${sessionLabel(s)}`}>
                    Open
                  </button>
                  <button type="button" className="small" onClick={() => model.startRename(s.id)} aria-label={`rename ${sessionLabel(s)}`}>
                    Rename
                  </button>
                  {(s.status === 'exited' || s.status === 'cold') && (
                    <button type="button" className="small" onClick={() => model.revive(s.id)} aria-label={`revive ${sessionLabel(s)}`}>
                      Revive
                    </button>
                  )}
                  <button
                    type="button"
                    className={`small${confirmKill === s.id ? ' danger' : ''}`}
                    aria-label={confirmKill === s.id ? `confirm: kill ${sessionLabel(s)}` : `kill ${sessionLabel(s)}`}
                    onClick={() => model.pressKill(s.id)}
                  >
                    {confirmKill === s.id ? 'Really kill?' : 'Kill'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {workspaces.length > 0 && (
        <section aria-label="workspaces">
          <h2>Workspaces</h2>
          <ul className="workspaces">
            {workspaces.map((w) => (
              <li key={w.name}>
                <a
                  href={`/w/${encodeURIComponent(w.name)}`}
                  onClick={(e) => {
                    e.preventDefault();
                    props.navigate(`/w/${encodeURIComponent(w.name)}`);
                  }}
                >
                  {w.name}
                </a>{' '}
                <span className="muted">{layoutSessions(w.layout).length} panes</span>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}

function CreateForm(props: { onCreate(body: NewSessionForm): Promise<void> }) {
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="create"
      aria-label="new session"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        const body: NewSessionForm = {};
        if (name.trim()) body.name = name.trim();
        // A command line is run by sh, like `tend new -- sh -c …`; empty means the user's shell.
        if (command.trim()) body.argv = ['/bin/sh', '-c', command.trim()];
        if (cwd.trim()) body.cwd = cwd.trim();
        void props.onCreate(body).finally(() => {
          setBusy(false);
          setName('');
          setCommand('');
        });
      }}
    >
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} placeholder="optional" pattern="[A-Za-z0-9._\-]{1,64}" name="name" />
      </label>
      <label>
        Command <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="your shell" name="command" />
      </label>
      <label>
        Directory <input value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="home" name="cwd" />
      </label>
      <button type="submit" disabled={busy}>
        New session
      </button>
    </form>
  );
}

function RenameField(props: { initial: string; onDone(name: string | undefined): void }) {
  const [value, setValue] = useState(props.initial);
  return (
    <input
      autoFocus
      aria-label="new name (empty to remove it)"
      value={value}
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') props.onDone(value.trim());
        else if (e.key === 'Escape') props.onDone(undefined);
      }}
      onBlur={() => props.onDone(undefined)}
    />
  );
}
