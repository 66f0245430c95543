// Every session's agent: created when tend launches one (`tend agent`) or
// when a hook of one first reports from a session (an agent a person started
// in a tend shell), kept in the store, and told to every viewer (STATE) on
// each change. Behaviours that hang off an agent (sleep and wake, awaits on
// turns) attach through addAttacher(), so this file stays the one place that
// owns the map.
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import type { AgentInfo, AgentKind, AgentLaunchRequest } from '../../protocol/api/agents.js';
import type { Logger } from '../log.js';
import type { Session } from '../session.js';
import type { AgentStore } from './agent-store.js';
import { readHookEvent, type Payload } from './hook-events.js';
import { HOOKS_SILENT_PREFIX, SessionAgent, type AgentScreen } from './session-agent.js';
import { shellCommandLine, typeAtPrompt, waitForPrompt, writeHookSettings } from './agent-launch.js';

/** A launched agent whose hooks have not reported by then gets a warning (Codex's untrusted hooks fail silently). */
export const HOOKS_SILENT_AFTER_MS = 20_000;
/** Output quiet this long: an interrupted turn is looked for on screen. */
const OUTPUT_QUIET_MS = 400;
/** Rows read for the screen checks: the screen itself. */
const SCREEN_ROWS_SCROLLBACK = 0;

export interface AgentRegistryDeps {
  store: AgentStore;
  log: Logger;
  /** Where tend keeps each agent's files (its hook settings for Claude's --settings). */
  agentsDir: string;
  hookClientPath: string;
  /** Idle time before an agent sleeps when its launch does not say; null: never. */
  defaultSleepAfterMs: number | null;
}

/** Something that follows one agent (its sleep, its awaits): set up when the agent appears, disposed when it goes. */
export type AgentAttacher = (agent: SessionAgent, session: Session) => Disposable;

interface Entry {
  agent: SessionAgent;
  session: Session;
  attached: Disposable[];
}

export class AgentRegistry extends DisposableBase {
  private readonly entries = new Map<string, Entry>();
  private readonly attachers: AgentAttacher[] = [];

  constructor(private readonly deps: AgentRegistryDeps) {
    super();
    this.register(toDisposable(() => {
      for (const id of [...this.entries.keys()]) this.detach(id);
    }));
  }

  get defaultSleepAfterMs(): number | null {
    return this.deps.defaultSleepAfterMs;
  }

  of(sessionId: string): SessionAgent | undefined {
    return this.entries.get(sessionId)?.agent;
  }

  sessionOf(sessionId: string): Session | undefined {
    return this.entries.get(sessionId)?.session;
  }

  /** Each agent there is and each one to come gets `attacher`. */
  addAttacher(attacher: AgentAttacher): void {
    this.attachers.push(attacher);
    for (const e of this.entries.values()) e.attached.push(attacher(e.agent, e.session));
  }

  /** A hook's event from `session`. Unknown events are accepted and change nothing. */
  report(session: Session, kind: AgentKind, event: string, payload: Payload | null): { used: boolean; agent: AgentInfo } {
    let entry = this.entries.get(session.id);
    if (entry === undefined) {
      const agent = SessionAgent.create(session.id, kind, screenOf(session), { launchedByTend: false, sleepAfterMs: this.deps.defaultSleepAfterMs });
      entry = this.attach(session, agent);
      this.deps.log.info(`session ${session.label}: ${AGENT_FLAVOURS[kind].title} reported by its hooks`);
    }
    const read = payload === null ? (event === 'SessionEnd' ? readHookEvent(kind, event, {}) : null) : readHookEvent(kind, event, payload);
    if (read === null) {
      // Still a sign of life: the hooks work.
      if (!entry.agent.hooksSeen) entry.agent.setWarning(null);
      return { used: false, agent: entry.agent.info() };
    }
    entry.agent.apply(read, kind);
    return { used: true, agent: entry.agent.info() };
  }

  /**
   * An agent found running in the session with no hook of it heard
   * (agent-detect.ts): known from now on, starting, with `warning` saying how
   * its hooks would reach tend (its first hook clears it).
   */
  noticed(session: Session, kind: AgentKind, warning: string): SessionAgent {
    const agent = SessionAgent.create(session.id, kind, screenOf(session), { launchedByTend: false, sleepAfterMs: this.deps.defaultSleepAfterMs });
    agent.setWarning(warning);
    this.attach(session, agent);
    this.deps.log.info(`session ${session.label}: ${AGENT_FLAVOURS[kind].title} runs there without tend's hooks`);
    return agent;
  }

  /**
   * Starts the agent in the session's shell (just created by the caller):
   * tend's hooks passed the agent's own way, a conversation id chosen where
   * the agent allows, the line typed once the shell shows its prompt.
   */
  launch(session: Session, request: AgentLaunchRequest): SessionAgent {
    const sleepAfterMs = request.sleepAfterMs === undefined ? this.deps.defaultSleepAfterMs : request.sleepAfterMs === 0 ? null : request.sleepAfterMs;
    const agent = SessionAgent.create(session.id, request.kind, screenOf(session), { launchedByTend: true, sleepAfterMs, launchArgs: request.args ?? [] });
    this.attach(session, agent);
    void this.typeAgentLine(agent, 'launch').catch((err: Error) => {
      this.deps.log.warn(`session ${session.label}: could not start ${agent.flavour.title}: ${err.message}`);
      agent.setWarning(`tend could not start ${agent.flavour.title}: ${err.message}`);
    });
    return agent;
  }

  /**
   * Types the agent's command at the session's shell prompt: `launch` starts
   * a new conversation, `resume` the agent's recorded one (the wake).
   */
  async typeAgentLine(agent: SessionAgent, mode: 'launch' | 'resume'): Promise<void> {
    const session = this.entries.get(agent.sessionId)?.session;
    if (session === undefined) throw new Error('the agent is gone');
    const flavour = agent.flavour;
    const settingsFile = flavour.takesSettingsPerRun ? writeHookSettings(this.deps.agentsDir, session.id, agent.kind, this.deps.hookClientPath) : null;
    let argv: string[];
    let conversationId: string | null = null;
    if (mode === 'resume') {
      if (agent.conversationId === null) throw new Error(`its conversation id is not known, so it cannot be resumed (a new conversation would be worse than none)`);
      argv = [flavour.program, ...flavour.resumeArgs({ settingsFile, id: agent.conversationId })];
    } else {
      conversationId = flavour.takesConversationId ? randomUUID() : null;
      argv = [flavour.program, ...flavour.launchArgs({ settingsFile, conversationId, args: agent.launchArgs })];
    }
    const cwd = agent.cwd ?? session.info().cwd;
    if (mode === 'launch') agent.launched({ conversationId, cwd, launchArgs: agent.launchArgs });
    let line = shellCommandLine(session.info().argv, argv);
    // Resumed where it ran: agents do not restore their directory on resume.
    if (mode === 'resume' && agent.cwd !== null) line = `cd ${shellCommandLine(session.info().argv, [agent.cwd])} && ${line}`;
    const target = launchTarget(session);
    await waitForPrompt(target, { alreadyQuietMs: mode === 'resume' ? 200 : 0 });
    await typeAtPrompt(target, `${mode} ${randomBytes(6).toString('hex')}`, line);
    this.watchForSilentHooks(agent);
  }

  private watchForSilentHooks(agent: SessionAgent): void {
    const timer = setTimeout(() => {
      if (this.of(agent.sessionId) !== agent || agent.hooksSeen) return;
      const fix = agent.flavour.takesSettingsPerRun
        ? 'a setting of yours may turn hooks off (disableAllHooks, allowManagedHooksOnly)'
        : agent.kind === 'codex'
          ? 'run `tend hooks install codex`, then trust the hooks in Codex\'s /hooks screen'
          : `run \`tend hooks install ${agent.kind}\``;
      agent.setWarning(`${HOOKS_SILENT_PREFIX} ${agent.flavour.title} has reached tend: ${fix}`);
    }, HOOKS_SILENT_AFTER_MS);
    timer.unref();
  }

  /** At start: the stored agents of the sessions this server recovered. */
  restore(sessions: readonly Session[]): void {
    const byId = new Map(sessions.map((s) => [s.id, s]));
    for (const { sessionId, agent: stored } of this.deps.store.list()) {
      const session = byId.get(sessionId);
      if (session === undefined) {
        this.deps.store.remove(sessionId);
        continue;
      }
      this.attach(session, SessionAgent.restore(sessionId, stored, screenOf(session)));
    }
  }

  /** The session is gone (killed, or removed): its agent goes with it. */
  forget(sessionId: string): void {
    this.detach(sessionId);
    this.persist(() => this.deps.store.remove(sessionId), sessionId);
    // Its hook settings and kept screen: nothing reads them once the session is gone.
    this.persist(() => rmSync(join(this.deps.agentsDir, sessionId), { recursive: true, force: true }), sessionId);
  }

  private attach(session: Session, agent: SessionAgent): Entry {
    this.detach(session.id);
    const entry: Entry = { agent, session, attached: [] };
    this.entries.set(session.id, entry);
    session.agent = agent;
    let quiet: NodeJS.Timeout | null = null;
    entry.attached.push(
      agent.onChange((info) => {
        this.persist(() => this.deps.store.put(session.id, agent.stored()), session.id);
        session.viewers.broadcast((channel) => ({ type: 'state', channel, state: { agent: info } }));
      }),
      session.onOutput(() => {
        if (quiet !== null) clearTimeout(quiet);
        quiet = setTimeout(() => void agent.outputQuiet(), OUTPUT_QUIET_MS);
      }),
      toDisposable(() => {
        if (quiet !== null) clearTimeout(quiet);
      }),
    );
    for (const attacher of this.attachers) entry.attached.push(attacher(agent, session));
    this.persist(() => this.deps.store.put(session.id, agent.stored()), session.id);
    session.viewers.broadcast((channel) => ({ type: 'state', channel, state: { agent: agent.info() } }));
    return entry;
  }

  private detach(sessionId: string): void {
    const entry = this.entries.get(sessionId);
    if (entry === undefined) return;
    this.entries.delete(sessionId);
    if (entry.session.agent === entry.agent) entry.session.agent = null;
    for (const d of entry.attached) d.dispose();
  }

  private persist(write: () => void, sessionId: string): void {
    try {
      write();
    } catch (err) {
      this.deps.log.warn(`session ${sessionId}: could not save its agent: ${(err as Error).message}`);
    }
  }
}

function launchTarget(session: Session) {
  return {
    id: session.id,
    get argv() {
      return session.info().argv;
    },
    inputAt: (writer: Uint8Array, at: number, bytes: Uint8Array) => session.inputAt(writer, at, bytes, { pastAgentGate: true }),
    onOutput: (listener: (bytes: Uint8Array) => void) => session.onOutput(listener),
  };
}

function screenOf(session: Session): AgentScreen {
  return {
    recentText: async (scrollbackRows) => (await session.screen.text({ scrollbackRows: scrollbackRows ?? SCREEN_ROWS_SCROLLBACK, ansi: false })).text,
  };
}
