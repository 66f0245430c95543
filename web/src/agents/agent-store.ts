// The page's one record of every session's agent: fed by the session lists
// the dashboard and the workspace poll, and by the STATE frames of every
// terminal and preview on the page (sooner than a poll, and still arriving
// while a hidden tab's timers are slowed). Alerts (agent-alerts.ts) are raised
// here, once per change, for the notifier; none for what the page finds on
// its first look.
import type { AgentInfo, AgentKind } from '../../../src/protocol/api/index.js';
import { Emitter } from '../../../src/common/event.js';
import { Model } from '../model/model.js';
import { alertsFor, isNewerAgent, type AgentAlert } from './agent-alerts.js';

export interface ListedAgentSession {
  id: string;
  name: string | null;
  agent: AgentInfo | null;
}

export interface AgentStoreState {
  /** Sessions with an agent, by session id. */
  agents: ReadonlyMap<string, AgentInfo>;
  /** Every listed session's label (its name, else its id). */
  labels: ReadonlyMap<string, string>;
  /** The pane that has the workspace's focus (null: the dashboard, or none). */
  focused: string | null;
}

export interface RaisedAlert {
  sessionId: string;
  label: string;
  kind: AgentKind;
  alert: AgentAlert;
}

export class AgentStore extends Model<AgentStoreState> {
  /** Until the first list, what is seen was already so when the page opened: no alerts. */
  private listed = false;
  private readonly raised = new Emitter<RaisedAlert>();
  private showSession: ((sessionId: string) => boolean) | null = null;

  constructor() {
    super({ agents: new Map(), labels: new Map(), focused: null });
  }

  agentOf(sessionId: string): AgentInfo | null {
    return this.state.agents.get(sessionId) ?? null;
  }

  labelOf(sessionId: string): string {
    return this.state.labels.get(sessionId) ?? sessionId;
  }

  /** Hears every alert raised from now on. */
  onAlert(listener: (alert: RaisedAlert) => void): () => void {
    const subscription = this.raised.on(listener);
    return () => subscription.dispose();
  }

  /** A whole session list (GET /v1/sessions): sessions missing from it are gone. */
  fromList(sessions: readonly ListedAgentSession[]): void {
    const quiet = !this.listed;
    this.listed = true;
    const agents = new Map<string, AgentInfo>();
    const labels = new Map<string, string>();
    const alerts: RaisedAlert[] = [];
    for (const s of sessions) {
      labels.set(s.id, s.name ?? s.id);
      const before = this.agentOf(s.id);
      const kept = isNewerAgent(before, s.agent) ? s.agent : before;
      if (kept !== null) agents.set(s.id, kept);
      if (!quiet && kept === s.agent) alerts.push(...this.alertsOf(s.id, s.name ?? s.id, before, kept));
    }
    // The same news as before keeps the same maps: the page redraws for changes, not for polls.
    this.update({ agents: sameEntries(agents, this.state.agents, sameAgent) ? this.state.agents : agents, labels: sameEntries(labels, this.state.labels, Object.is) ? this.state.labels : labels });
    for (const alert of alerts) this.raised.fire(alert);
  }

  /** A STATE frame's agent for one session. */
  fromFrame(sessionId: string, agent: AgentInfo | null): void {
    const before = this.agentOf(sessionId);
    if (!isNewerAgent(before, agent) || sameAgent(before, agent)) return;
    const agents = new Map(this.state.agents);
    if (agent === null) agents.delete(sessionId);
    else agents.set(sessionId, agent);
    this.update({ agents });
    if (this.listed) for (const alert of this.alertsOf(sessionId, this.labelOf(sessionId), before, agent)) this.raised.fire(alert);
  }

  setFocused(sessionId: string | null): void {
    this.update({ focused: sessionId });
  }

  /**
   * The workspace on the page names how it brings one of its panes forward;
   * returns what takes that back.
   */
  handleShow(show: (sessionId: string) => boolean): () => void {
    this.showSession = show;
    return () => {
      if (this.showSession === show) this.showSession = null;
    };
  }

  /** Focuses the session's pane if the workspace on the page holds it; false when none does. */
  showIfHere(sessionId: string): boolean {
    return this.showSession?.(sessionId) ?? false;
  }

  private alertsOf(sessionId: string, label: string, before: AgentInfo | null, after: AgentInfo | null): RaisedAlert[] {
    if (after === null) return [];
    return alertsFor(before, after).map((alert) => ({ sessionId, label, kind: after.kind, alert }));
  }
}

/** The same news: a state frame that repeats what a poll said (or the other way round) changes nothing. */
function sameAgent(a: AgentInfo | null, b: AgentInfo | null): boolean {
  return a === b || (a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b));
}

function sameEntries<V>(a: ReadonlyMap<string, V>, b: ReadonlyMap<string, V>, same: (x: V, y: V) => boolean): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) {
    if (!b.has(key) || !same(value, b.get(key) as V)) return false;
  }
  return true;
}
