// The dashboard's state: every session and workspace on the server, polled,
// and refreshed at once after each action (create, rename, kill, revive);
// which row is being renamed, and which kill waits for its confirming press.
// Each list is handed to the page's AgentStore too, which keeps the agents'
// states current between polls (STATE frames) and raises their alerts.
import { ApiError, sessionsApi, type SessionInfo } from '../api/sessions.js';
import { listWorkspaces, type Workspace } from '../api/workspaces.js';
import { Model } from '../model/model.js';
import type { Startable } from '../model/use-owned-model.js';
import type { AgentStore } from '../agents/agent-store.js';

const SESSIONS_POLL_MS = 2000;
/** A second press within this time confirms a kill. */
const KILL_CONFIRM_MS = 4000;

export interface NewSessionForm {
  name?: string;
  argv?: string[];
  cwd?: string;
}

export interface SessionListModelOptions {
  /** A session was created from the page: show it. */
  opened(session: SessionInfo): void;
  agents: AgentStore;
}

export interface SessionListState {
  /** null until the first answer. */
  sessions: SessionInfo[] | null;
  workspaces: Workspace[];
  error: string | null;
  /** When the list was last read: "last activity" is said relative to it. */
  now: number;
  renaming: string | null;
  confirmKill: string | null;
}

export class SessionListModel extends Model<SessionListState> implements Startable {
  private pollTimer: number | null = null;
  private confirmTimer: number | null = null;
  private running = false;

  constructor(private readonly options: SessionListModelOptions) {
    super({ sessions: null, workspaces: [], error: null, now: Date.now(), renaming: null, confirmKill: null });
  }

  start(): () => void {
    this.running = true;
    void this.refresh();
    this.pollTimer = window.setInterval(() => void this.refresh(), SESSIONS_POLL_MS);
    return () => {
      this.running = false;
      if (this.pollTimer !== null) window.clearInterval(this.pollTimer);
      if (this.confirmTimer !== null) window.clearTimeout(this.confirmTimer);
      this.pollTimer = null;
      this.confirmTimer = null;
    };
  }

  async refresh(): Promise<void> {
    try {
      const [sessions, workspaces] = await Promise.all([sessionsApi.list(), listWorkspaces().catch(() => [])]);
      if (!this.running) return;
      this.options.agents.fromList(sessions);
      this.update({ sessions, workspaces, error: null, now: Date.now() });
    } catch (err) {
      if (this.running) this.update({ error: (err as Error).message, now: Date.now() });
    }
  }

  create(body: NewSessionForm): Promise<void> {
    return this.act(async () => this.options.opened(await sessionsApi.create(body)));
  }

  startRename(id: string): void {
    this.update({ renaming: id });
  }

  /** name: the new name ('' removes it), or undefined to keep the old one. */
  finishRename(id: string, name: string | undefined): void {
    if (this.state.renaming === id) this.update({ renaming: null });
    if (name !== undefined) void this.act(() => sessionsApi.rename(id, name === '' ? null : name));
  }

  revive(id: string): void {
    void this.act(() => sessionsApi.revive(id));
  }

  /** The first press asks for confirmation; a second within KILL_CONFIRM_MS kills. */
  pressKill(id: string): void {
    if (this.confirmTimer !== null) window.clearTimeout(this.confirmTimer);
    this.confirmTimer = null;
    if (this.state.confirmKill !== id) {
      this.update({ confirmKill: id });
      this.confirmTimer = window.setTimeout(() => {
        this.confirmTimer = null;
        this.update({ confirmKill: null });
      }, KILL_CONFIRM_MS);
      return;
    }
    this.update({ confirmKill: null });
    void this.act(() => sessionsApi.kill(id));
  }

  private async act(what: () => Promise<unknown>): Promise<void> {
    try {
      await what();
      this.update({ error: null });
    } catch (err) {
      this.update({ error: err instanceof ApiError ? err.message : String(err) });
    }
    await this.refresh();
  }
}
