// A workspace: the server's split layout of sessions, with focus, maximise,
// splitting, closing and divider moves — every layout change is PUT back to
// the server, so another browser shows the same. When the server has no
// workspace of this name but a session answers to it, the page shows that one
// session; its first split creates the workspace.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { loadWorkspace, saveWorkspace } from '../api/workspaces.js';
import { ApiError, sessionLabel, sessionsApi, type SessionInfo } from '../api/sessions.js';
import {
  enclosingSplit,
  leaf,
  leaves,
  neighbour,
  removeLeaf,
  sameLayout,
  setRatio,
  splitLeaf,
  type LayoutNode,
  type NodePath,
} from '../layout/layout-tree.js';
import type { PaneCommand } from '../layout/shortcuts.js';
import { commandForKey } from '../layout/shortcuts.js';
import { SplitLayout } from './SplitLayout.js';
import { TerminalPane } from './TerminalPane.js';
import { HelpDialog } from './HelpDialog.js';
import type { ThemeName } from '../theme.js';

/** How often the page looks for layout changes made elsewhere (another browser, the CLI). */
const LAYOUT_POLL_MS = 2000;
const SESSIONS_POLL_MS = 3000;
/** One Ctrl+Shift+Alt+arrow moves a divider by this share of its split. */
const GROW_STEP_RATIO = 0.05;

export interface WorkspaceViewProps {
  name: string;
  socket: ViewerSocket;
  theme: ThemeName;
  navigate(path: string): void;
}

async function resolveSession(name: string): Promise<SessionInfo | null> {
  for (const t of [`:${name}`, name]) {
    try {
      return await sessionsApi.get(t);
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 400 && err.status !== 409)) throw err;
    }
  }
  return null;
}

export function WorkspaceView(props: WorkspaceViewProps) {
  const [layout, setLayout] = useState<LayoutNode | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [focused, setFocused] = useState<string | null>(null);
  const [zoomed, setZoomed] = useState<string | null>(null);
  const [help, setHelp] = useState(false);
  const [sessions, setSessions] = useState<Map<string, SessionInfo>>(new Map());
  /** Bumped on every local change: a poll that started before one must not undo it. */
  const localVersion = useRef(0);
  const saving = useRef(0);
  const layoutRef = useRef<LayoutNode | null>(null);
  layoutRef.current = layout;

  const refreshSessions = useCallback(async () => {
    try {
      const list = await sessionsApi.list();
      setSessions(new Map(list.map((s) => [s.id, s])));
    } catch {
      /* the banner shows the server is away */
    }
  }, []);

  // First load: the workspace, or the one session of that name.
  useEffect(() => {
    let cancelled = false;
    setLayout(null);
    setError(null);
    void (async () => {
      try {
        // Both lookups at once: the time to a first painted terminal is the page's first impression.
        const sessionLookup = resolveSession(props.name).catch(() => null);
        const ws = await loadWorkspace(props.name);
        if (cancelled) return;
        if (ws?.layout) {
          setLayout(ws.layout);
          setFocused(leaves(ws.layout)[0] ?? null);
          return;
        }
        const session = await sessionLookup;
        if (cancelled) return;
        if (!session) {
          setError(`no workspace or session is named "${props.name}"`);
          return;
        }
        setLayout(leaf(session.id));
        setFocused(session.id);
      } catch (err) {
        if (!cancelled) setError((err as Error).message);
      }
    })();
    void refreshSessions();
    return () => {
      cancelled = true;
    };
  }, [props.name, refreshSessions]);

  // Changes made elsewhere.
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (document.hidden || saving.current > 0) return;
      const version = localVersion.current;
      void loadWorkspace(props.name)
        .then((ws) => {
          if (!ws?.layout || version !== localVersion.current || saving.current > 0) return;
          if (!sameLayout(ws.layout, layoutRef.current)) setLayout(ws.layout);
        })
        .catch(() => undefined);
    }, LAYOUT_POLL_MS);
    const sessionsTimer = window.setInterval(() => void refreshSessions(), SESSIONS_POLL_MS);
    return () => {
      window.clearInterval(timer);
      window.clearInterval(sessionsTimer);
    };
  }, [props.name, refreshSessions]);

  // Focus follows the layout: a focused pane that went away hands focus on.
  useEffect(() => {
    if (!layout) return;
    const all = leaves(layout);
    if (focused === null || !all.includes(focused)) setFocused(all[0] ?? null);
    if (zoomed !== null && !all.includes(zoomed)) setZoomed(null);
  }, [layout, focused, zoomed]);

  const save = useCallback(
    async (next: LayoutNode) => {
      saving.current++;
      try {
        await saveWorkspace(props.name, next);
        setNote(null);
      } catch (err) {
        setNote(
          err instanceof ApiError && (err.status === 404 || err.status === 405)
            ? 'this server does not keep layouts: the split lives in this page only'
            : `the layout was not saved: ${(err as Error).message}`,
        );
      } finally {
        saving.current--;
      }
    },
    [props.name],
  );

  const change = useCallback(
    (next: LayoutNode | null, persist = true) => {
      localVersion.current++;
      if (next === null) {
        props.navigate('/');
        return;
      }
      setLayout(next);
      if (persist) void save(next);
    },
    [props, save],
  );

  const split = useCallback(
    async (direction: 'horizontal' | 'vertical') => {
      const current = layoutRef.current;
      if (!current || focused === null) return;
      try {
        const cwd = sessions.get(focused)?.cwd ?? undefined;
        const created = await sessionsApi.create(cwd ? { cwd } : {});
        setSessions((m) => new Map(m).set(created.id, created));
        change(splitLeaf(layoutRef.current ?? current, focused, created.id, direction));
        setZoomed(null);
        setFocused(created.id);
      } catch (err) {
        setNote(`could not start a shell: ${(err as Error).message}`);
      }
    },
    [focused, sessions, change],
  );

  const command = useCallback(
    (c: PaneCommand) => {
      const current = layoutRef.current;
      if (!current) return;
      switch (c.kind) {
        case 'focus': {
          if (focused === null) return;
          const next = neighbour(current, focused, c.move);
          if (next) {
            setFocused(next);
            if (zoomed !== null) setZoomed(next);
          }
          return;
        }
        case 'grow': {
          if (focused === null) return;
          const found = enclosingSplit(current, focused, c.move);
          if (!found) return;
          const delta = c.move === 'right' || c.move === 'down' ? GROW_STEP_RATIO : -GROW_STEP_RATIO;
          change(setRatio(current, found.path, found.ratio + delta));
          return;
        }
        case 'split':
          void split(c.direction);
          return;
        case 'close':
          if (focused !== null) change(removeLeaf(current, focused));
          return;
        case 'zoom':
          setZoomed((z) => (z === null ? focused : null));
          return;
        case 'search':
        case 'history':
        case 'copy':
          if (focused !== null) window.dispatchEvent(new CustomEvent('tend-pane-command', { detail: { sessionId: focused, kind: c.kind } }));
          return;
        case 'home':
          props.navigate('/');
          return;
        case 'help':
          setHelp((h) => !h);
          return;
        case 'paste':
          return;
      }
    },
    [focused, zoomed, change, split, props],
  );

  // The same keys when focus is on the page rather than in a terminal.
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (ev.defaultPrevented) return;
      const c = commandForKey(ev);
      if (c === null || c.kind === 'paste' || c.kind === 'copy') return;
      ev.preventDefault();
      command(c);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [command]);

  const onRatio = useCallback(
    (path: NodePath, ratio: number, final: boolean) => {
      const current = layoutRef.current;
      if (current) change(setRatio(current, path, ratio), final);
    },
    [change],
  );

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
        <button type="button" className="small" onClick={() => void split('horizontal')} aria-label="split side by side">
          Split ◫
        </button>
        <button type="button" className="small" onClick={() => void split('vertical')} aria-label="split top and bottom">
          Split ⊟
        </button>
        <button type="button" className="small" onClick={() => command({ kind: 'zoom' })} aria-pressed={zoomed !== null}>
          {zoomed !== null ? 'Restore' : 'Maximise'}
        </button>
        <button type="button" className="small" onClick={() => command({ kind: 'close' })} aria-label="close the focused pane">
          Close pane
        </button>
        <button type="button" className="small ghost" onClick={() => setHelp(true)} aria-label="keyboard shortcuts">
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
        onRatio={onRatio}
        renderPane={(session, visible) => {
          const info = sessions.get(session);
          return (
            <TerminalPane
              socket={props.socket}
              sessionId={session}
              label={info ? sessionLabel(info) : session}
              theme={props.theme}
              focused={focused === session}
              visible={visible}
              onFocus={() => setFocused(session)}
              onCommand={command}
              onRevive={async () => {
                await sessionsApi.revive(session);
                void refreshSessions();
              }}
            />
          );
        }}
      />
      {help && <HelpDialog onClose={() => setHelp(false)} />}
    </main>
  );
}
