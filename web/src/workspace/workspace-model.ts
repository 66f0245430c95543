// A workspace's state: the server's split layout of sessions, which pane has
// the focus, which is maximised, and every layout change PUT back to the
// server so another browser shows the same. When the server has no workspace
// of this name but a session answers to it, the page shows that one session;
// its first split creates the workspace.
//
// Changes made elsewhere are polled for, only while the workspace exists: a
// page showing a lone session does not ask for a workspace the server does
// not have, and a workspace removed elsewhere (the route answers 404) stops
// the polling and says so; the panes stay, and the next change saves the
// layout again. Meanwhile the list of workspaces (which always answers) tells
// when one of this name appears, made elsewhere: the page follows it again.
import { listWorkspaces, loadWorkspace, saveWorkspace } from '../api/workspaces.js';
import { ApiError, sessionsApi, type SessionInfo } from '../api/sessions.js';
import { layoutSessions, removeLeaf, splitLeaf, type LayoutNode, type SplitDirection } from '../../../src/protocol/api/index.js';
import { enclosingSplit, neighbour, sameLayout, setRatio, type NodePath } from '../layout/layout-tree.js';
import { commandForKey, type PaneCommand } from '../layout/shortcuts.js';
import { Model } from '../model/model.js';
import type { PaneCommandKind } from './pane-commands.js';
import type { Startable } from '../model/use-owned-model.js';
import type { AgentStore } from '../agents/agent-store.js';

/** How often the page looks for layout changes made elsewhere (another browser, the CLI). */
const LAYOUT_POLL_MS = 2000;
const SESSIONS_POLL_MS = 3000;
/** One Ctrl+Shift+Alt+arrow moves a divider by this share of its split. */
const GROW_STEP_RATIO = 0.05;

export interface WorkspaceState {
  /** null while loading (or when `error` says why there is none). */
  layout: LayoutNode | null;
  error: string | null;
  note: string | null;
  focused: string | null;
  zoomed: string | null;
  help: boolean;
  sessions: ReadonlyMap<string, SessionInfo>;
  /** The server holds a workspace of this name (false: a lone session, or one removed elsewhere). */
  saved: boolean;
}

export interface WorkspaceModelOptions {
  name: string;
  /** A session to focus first (tend open's ?focus=), if the layout holds it. */
  focus?: string | null;
  navigate(path: string): void;
  /** A pane command for one pane (search, history, copy): the pane hears it. */
  paneCommand(sessionId: string, kind: PaneCommandKind): void;
  /** The page's agents: told each session list, and which pane has the focus. */
  agents: AgentStore;
}

/**
 * The session a lone session's page is named for, in the list: its name, or its id when it
 * has none (the dashboard's and `tend open`'s paths). The list always answers, where a lookup
 * that misses answers 404 and the browser logs a failed load.
 */
function listedSession(list: readonly SessionInfo[], name: string): SessionInfo | null {
  return list.find((s) => s.name === name) ?? list.find((s) => s.id === name) ?? null;
}

/** Any other target (an index, an id's prefix), asked of the server as `tend` resolves it. */
async function sessionByTarget(target: string): Promise<SessionInfo | null> {
  try {
    return await sessionsApi.get(target);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 400 || err.status === 409)) return null;
    throw err;
  }
}

export class WorkspaceModel extends Model<WorkspaceState> implements Startable {
  /** Bumped on every local change: a poll that started before one must not undo it. */
  private localVersion = 0;
  private saving = 0;
  private running = false;
  private readonly timers: number[] = [];

  constructor(private readonly options: WorkspaceModelOptions) {
    super({ layout: null, error: null, note: null, focused: null, zoomed: null, help: false, sessions: new Map(), saved: false });
  }

  get name(): string {
    return this.options.name;
  }

  start(): () => void {
    this.running = true;
    // One list for both: the page's sessions, and the session a lone session's page shows.
    void this.firstLoad(this.refreshSessions());
    this.timers.push(window.setInterval(() => this.pollLayout(), LAYOUT_POLL_MS));
    this.timers.push(window.setInterval(() => void this.refreshSessions(), SESSIONS_POLL_MS));
    // The same keys when focus is on the page rather than in a terminal.
    const onKey = (ev: KeyboardEvent) => {
      if (ev.defaultPrevented) return;
      const c = commandForKey(ev);
      if (c === null || c.kind === 'paste' || c.kind === 'copy') return;
      ev.preventDefault();
      this.command(c);
    };
    window.addEventListener('keydown', onKey);
    // A notification's click brings its session's pane forward when this workspace holds it.
    const stopShowing = this.options.agents.handleShow((session) => this.showPane(session));
    const stopFocus = this.subscribe(() => this.options.agents.setFocused(this.state.focused));
    this.options.agents.setFocused(this.state.focused);
    return () => {
      this.running = false;
      stopShowing();
      stopFocus();
      this.options.agents.setFocused(null);
      window.removeEventListener('keydown', onKey);
      for (const t of this.timers.splice(0)) window.clearInterval(t);
    };
  }

  // ------------------------------------------------------------ actions

  focus(session: string): void {
    this.update({ focused: session });
  }

  /** Focuses the session's pane (restoring a maximised other); false when this workspace does not hold it. */
  showPane(session: string): boolean {
    const { layout, zoomed } = this.state;
    if (!layout || !layoutSessions(layout).includes(session)) return false;
    this.update({ focused: session, zoomed: zoomed !== null ? session : null });
    return true;
  }

  showHelp(show: boolean): void {
    this.update({ help: show });
  }

  command(c: PaneCommand): void {
    const { layout: current, focused, zoomed } = this.state;
    if (!current) return;
    switch (c.kind) {
      case 'focus': {
        if (focused === null) return;
        const next = neighbour(current, focused, c.move);
        if (next) this.update({ focused: next, zoomed: zoomed !== null ? next : null });
        return;
      }
      case 'grow': {
        if (focused === null) return;
        const found = enclosingSplit(current, focused, c.move);
        if (!found) return;
        const delta = c.move === 'right' || c.move === 'down' ? GROW_STEP_RATIO : -GROW_STEP_RATIO;
        this.change(setRatio(current, found.path, found.ratio + delta));
        return;
      }
      case 'split':
        void this.split(c.direction);
        return;
      case 'close':
        if (focused !== null) this.change(removeLeaf(current, focused));
        return;
      case 'zoom':
        this.update({ zoomed: zoomed === null ? focused : null });
        return;
      case 'search':
      case 'history':
      case 'copy':
        if (focused !== null) this.options.paneCommand(focused, c.kind);
        return;
      case 'home':
        this.options.navigate('/');
        return;
      case 'help':
        this.update({ help: !this.state.help });
        return;
      case 'paste':
        return;
    }
  }

  /** A new shell beside the focused pane, in its directory. */
  async split(direction: SplitDirection): Promise<void> {
    const { layout, focused, sessions } = this.state;
    if (!layout || focused === null) return;
    try {
      const cwd = sessions.get(focused)?.cwd ?? undefined;
      const created = await sessionsApi.create(cwd ? { cwd } : {});
      this.update({ sessions: new Map(this.state.sessions).set(created.id, created) });
      this.change(splitLeaf(this.state.layout ?? layout, focused, created.id, direction));
      this.update({ zoomed: null, focused: created.id });
    } catch (err) {
      this.update({ note: `could not start a shell: ${(err as Error).message}` });
    }
  }

  /** A divider moved: while dragging (final false) the layout follows; the end of the drag is saved. */
  moveDivider(path: NodePath, ratio: number, final: boolean): void {
    const current = this.state.layout;
    if (current) this.change(setRatio(current, path, ratio), final);
  }

  async revive(session: string): Promise<void> {
    await sessionsApi.revive(session);
    void this.refreshSessions();
  }

  // ------------------------------------------------------------ the server

  /** `sessions`: the first list of sessions, asked at the same time (null if it failed). */
  private async firstLoad(sessions: Promise<readonly SessionInfo[] | null>): Promise<void> {
    const name = this.options.name;
    try {
      // Both lookups at once: the time to a first painted terminal is the page's first impression.
      // From the list, which always answers: asking for the workspace by name answers a lone
      // session's page 404, which the browser logs as a failed load on every such page.
      const ws = (await listWorkspaces()).find((w) => w.name === name) ?? null;
      if (!this.running) return;
      if (ws?.layout) {
        const all = layoutSessions(ws.layout);
        const wanted = this.options.focus;
        this.update({ saved: true });
        this.setLayout(ws.layout, wanted && all.includes(wanted) ? wanted : (all[0] ?? null));
        return;
      }
      const list = await sessions;
      const session = (list && listedSession(list, name)) ?? (await sessionByTarget(name));
      if (!this.running) return;
      if (!session) {
        this.update({ error: `no workspace or session is named "${name}"` });
        return;
      }
      this.setLayout({ type: 'session', sessionId: session.id }, session.id);
    } catch (err) {
      if (this.running) this.update({ error: (err as Error).message });
    }
  }

  private pollLayout(): void {
    // Only a workspace the server holds can change elsewhere: a lone session's page asks nothing.
    if (!this.state.saved || document.hidden || this.saving > 0) return;
    const version = this.localVersion;
    loadWorkspace(this.options.name)
      .then((ws) => {
        if (!this.running || version !== this.localVersion || this.saving > 0) return;
        if (ws === null) {
          this.update({
            saved: false,
            note: `the workspace "${this.options.name}" was removed elsewhere (its sessions keep running): this page no longer follows it; a split, close or divider move here saves it again`,
          });
          return;
        }
        if (ws.layout && !sameLayout(ws.layout, this.state.layout)) this.setLayout(ws.layout);
      })
      .catch(() => undefined);
  }

  /** The page's sessions, asked again; the list, or null if the server did not answer. */
  private async refreshSessions(): Promise<readonly SessionInfo[] | null> {
    let list: readonly SessionInfo[] | null = null;
    try {
      list = await sessionsApi.list();
      if (this.running) {
        this.options.agents.fromList(list);
        this.update({ sessions: new Map(list.map((s) => [s.id, s])) });
      }
    } catch {
      /* the banner shows the server is away */
    }
    if (!this.state.saved && this.state.layout !== null) await this.lookForWorkspace();
    return list;
  }

  /** Not following a workspace: whether one of this name has been made elsewhere since. */
  private async lookForWorkspace(): Promise<void> {
    const version = this.localVersion;
    try {
      const found = (await listWorkspaces()).find((w) => w.name === this.options.name);
      if (!this.running || !found?.layout || this.state.saved || version !== this.localVersion || this.saving > 0) return;
      this.update({ saved: true, note: null });
      if (!sameLayout(found.layout, this.state.layout)) this.setLayout(found.layout);
    } catch {
      /* asked again at the next look */
    }
  }

  private change(next: LayoutNode | null, persist = true): void {
    this.localVersion++;
    if (next === null) {
      this.options.navigate('/');
      return;
    }
    this.setLayout(next);
    if (persist) void this.save(next);
  }

  private async save(next: LayoutNode): Promise<void> {
    this.saving++;
    try {
      await saveWorkspace(this.options.name, next);
      this.update({ note: null, saved: true });
    } catch (err) {
      this.update({
        note:
          err instanceof ApiError && (err.status === 404 || err.status === 405)
            ? 'this server does not keep layouts: the split lives in this page only'
            : `the layout was not saved: ${(err as Error).message}`,
      });
    } finally {
      this.saving--;
    }
  }

  /** A new layout; focus follows it (a focused pane that went away hands focus on), and so does maximise. */
  private setLayout(layout: LayoutNode, focus: string | null = this.state.focused): void {
    const all = layoutSessions(layout);
    const focused = focus !== null && all.includes(focus) ? focus : (all[0] ?? null);
    const zoomed = this.state.zoomed !== null && all.includes(this.state.zoomed) ? this.state.zoomed : null;
    this.update({ layout, focused, zoomed });
  }
}
