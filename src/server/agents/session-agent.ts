// One session's agent: its state, from the agent's own hooks (hook-events.ts
// reads them), reconciled with the screen where hooks race: a tool event of a
// second, parallel tool arrives while the first tool's permission question is
// still on screen, and Claude's permission notification comes seconds late,
// maybe after the question was answered. The screen decides those two.
//
// Turns: a prompt starts one; Stop (AfterAgent) answers it, StopFailure fails
// it; an interrupted turn sends no hook at all, so it ends when the agent's
// "interrupted" text shows (checked when output goes quiet), or when the next
// prompt or a restart of the agent comes first.
import { Emitter, type Listener } from '../../common/event.js';
import type { Disposable } from '../../common/lifecycle.js';
import type { AgentInfo, AgentKind, AgentState, AgentTurn } from '../../protocol/api/agents.js';
import { AGENT_FLAVOURS, type AgentFlavour } from '../../common/agents/catalogue.js';
import type { AgentHookEvent } from './hook-events.js';

/** What the agent reads of its session's screen (the registry gives it). */
export interface AgentScreen {
  /** The screen's text, the last rows of scrollback included. */
  recentText(scrollbackRows: number): Promise<string>;
}

/**
 * What is kept of an agent in the store across server restarts: what the API
 * shows (a warning as null when there is none) and what tend needs besides.
 */
export interface StoredAgent extends Omit<AgentInfo, 'warning'> {
  warning: string | null;
  /** Arguments given at launch after tend's own; a wake does not pass them again (they may hold a first prompt). */
  launchArgs: string[];
  turnCount: number;
  /** Fields the sleep controller keeps (agent-sleep.ts); opaque here. */
  sleep?: Record<string, unknown>;
}

/** Rows above the screen read for a permission question or an interrupt mark. */
const SCREEN_CHECK_SCROLLBACK_ROWS = 0;

export class SessionAgent {
  private readonly changed = new Emitter<AgentInfo>();
  private readonly turnEnded = new Emitter<AgentTurn>();
  private readonly turnStarted = new Emitter<AgentTurn>();
  private readonly started = new Emitter<{ source: string | null }>();
  /** Bumped by each event: a screen check answers only if nothing came after it. */
  private epoch = 0;
  /** The turn promptTyped began, until the agent's own prompt hook for it arrives (that hook does not start another). */
  private typedTurnId: string | null = null;
  /** Set by the sleep controller: input waits at it while the agent sleeps or wakes. */
  gate: (() => Promise<void> | null) | null = null;

  private constructor(
    readonly sessionId: string,
    private data: StoredAgent,
    private readonly screen: AgentScreen,
  ) {}

  static create(sessionId: string, kind: AgentKind, screen: AgentScreen, opts: { launchedByTend: boolean; sleepAfterMs: number | null; launchArgs?: string[]; conversationId?: string | null; cwd?: string | null }, now = Date.now()): SessionAgent {
    return new SessionAgent(sessionId, {
      kind,
      state: 'starting',
      since: now,
      agentSessionId: opts.conversationId ?? null,
      cwd: opts.cwd ?? null,
      hooksSeen: false,
      warning: null,
      asking: null,
      backgroundTasks: 0,
      lastTurn: null,
      sleepAfterMs: opts.sleepAfterMs,
      launchedByTend: opts.launchedByTend,
      launchArgs: opts.launchArgs ?? [],
      turnCount: 0,
    }, screen);
  }

  static restore(sessionId: string, stored: StoredAgent, screen: AgentScreen): SessionAgent {
    return new SessionAgent(sessionId, { ...stored }, screen);
  }

  get kind(): AgentKind {
    return this.data.kind;
  }
  get flavour(): AgentFlavour {
    return AGENT_FLAVOURS[this.data.kind];
  }
  get state(): AgentState {
    return this.data.state;
  }
  get since(): number {
    return this.data.since;
  }
  get conversationId(): string | null {
    return this.data.agentSessionId;
  }
  get cwd(): string | null {
    return this.data.cwd;
  }
  get launchedByTend(): boolean {
    return this.data.launchedByTend;
  }
  get backgroundTasks(): number {
    return this.data.backgroundTasks;
  }
  get sleepAfterMs(): number | null {
    return this.data.sleepAfterMs;
  }
  get hooksSeen(): boolean {
    return this.data.hooksSeen;
  }
  /** The turn that runs now, if one does. */
  get currentTurn(): AgentTurn | null {
    const t = this.data.lastTurn;
    return t !== null && t.outcome === 'running' ? t : null;
  }
  get lastTurn(): AgentTurn | null {
    return this.data.lastTurn;
  }

  /** Fires with the agent's info after every change. */
  onChange(listener: Listener<AgentInfo>): Disposable {
    return this.changed.on(listener);
  }
  /** Fires when a turn begins (a prompt hook, or a prompt tend typed). */
  onTurnStarted(listener: Listener<AgentTurn>): Disposable {
    return this.turnStarted.on(listener);
  }
  /** Fires when the agent process reports it started (SessionStart): a wake waits for it. */
  onStarted(listener: Listener<{ source: string | null }>): Disposable {
    return this.started.on(listener);
  }
  /** Fires when a turn ends: answered, failed or interrupted. */
  onTurnEnded(listener: Listener<AgentTurn>): Disposable {
    return this.turnEnded.on(listener);
  }

  info(): AgentInfo {
    const d = this.data;
    return {
      kind: d.kind,
      state: d.state,
      since: d.since,
      agentSessionId: d.agentSessionId,
      cwd: d.cwd,
      hooksSeen: d.hooksSeen,
      ...(d.warning !== null ? { warning: d.warning } : {}),
      asking: d.state === 'needs-permission' ? d.asking : null,
      backgroundTasks: d.backgroundTasks,
      lastTurn: d.lastTurn === null ? null : { ...d.lastTurn },
      sleepAfterMs: d.sleepAfterMs,
      launchedByTend: d.launchedByTend,
    };
  }

  stored(): StoredAgent {
    return { ...this.data, lastTurn: this.data.lastTurn === null ? null : { ...this.data.lastTurn } };
  }

  /** The sleep controller's own fields, kept with the agent. */
  get sleepRecord(): Record<string, unknown> | undefined {
    return this.data.sleep;
  }
  set sleepRecord(value: Record<string, unknown> | undefined) {
    this.data = { ...this.data, sleep: value };
    this.changed.fire(this.info());
  }

  inputGate(): Promise<void> | null {
    return this.gate?.() ?? null;
  }

  /** Applies one hook event. Returns whether it told tend anything. */
  apply(event: AgentHookEvent, kindOfHook: AgentKind, now = Date.now()): boolean {
    this.epoch++;
    const d = this.data;
    const firstHook = !d.hooksSeen;
    d.hooksSeen = true;
    if (firstHook && d.warning !== null && d.warning.startsWith(HOOKS_SILENT_PREFIX)) d.warning = null;
    if (kindOfHook !== d.kind) {
      // Another agent started in the same shell (claude, quit, then codex): the session's agent is now that one.
      this.data = { ...SessionAgent.create(this.sessionId, kindOfHook, this.screen, { launchedByTend: false, sleepAfterMs: d.sleepAfterMs }, now).data, hooksSeen: true };
    }
    const sleepingOrWaking = this.data.state === 'sleeping' || this.data.state === 'waking';
    switch (event.type) {
      case 'started':
        if (event.conversationId !== null) this.data.agentSessionId = event.conversationId;
        if (event.cwd !== null) this.data.cwd = event.cwd;
        this.endTurn('interrupted', null, null, now);
        // A waking agent that has started is the wake controller's to call ready (it waits for quiet output).
        if (this.data.state !== 'waking') this.setState('idle', now);
        else this.changed.fire(this.info());
        this.started.fire({ source: event.source });
        return true;
      case 'prompt': {
        const typed = this.currentTurn;
        if (typed !== null && typed.id === this.typedTurnId) {
          // The hook of the prompt tend typed (await): the same turn, by the agent's own id and words.
          this.typedTurnId = null;
          this.data.lastTurn = { ...typed, id: event.turnId ?? typed.id, prompt: event.prompt ?? typed.prompt };
          this.setState('busy', now);
          return true;
        }
        this.endTurn('interrupted', null, null, now);
        const turn: AgentTurn = { id: event.turnId ?? this.nextTurnId(), prompt: event.prompt, startedAt: now, endedAt: null, outcome: 'running', answer: null, error: null };
        this.data.lastTurn = turn;
        this.setState('busy', now);
        this.turnStarted.fire({ ...turn });
        return true;
      }
      case 'tool':
        if (this.data.state === 'needs-permission') {
          // A parallel tool's event while the question is still up must not end it: the screen decides.
          this.checkQuestionGone();
          return true;
        }
        if (!sleepingOrWaking) this.setState('busy', now);
        return true;
      case 'asks':
        if (sleepingOrWaking || this.data.state === 'exited') return true;
        if (event.late && this.data.state !== 'needs-permission') {
          this.confirmQuestionShows(event.asking, now);
          return true;
        }
        if (event.asking !== null || this.data.state !== 'needs-permission') this.data.asking = event.asking ?? this.data.asking;
        this.setState('needs-permission', now);
        return true;
      case 'answered':
        this.data.backgroundTasks = event.backgroundTasks;
        this.endTurn('answered', event.answer, null, now, event.turnId);
        if (!sleepingOrWaking) this.setState('idle', now);
        return true;
      case 'failed':
        this.endTurn('failed', event.answer, event.error, now, event.turnId);
        if (!sleepingOrWaking) this.setState('idle', now);
        return true;
      case 'idle':
        if (this.data.state === 'busy' || this.data.state === 'starting') {
          this.endTurn('interrupted', null, null, now);
          this.setState('idle', now);
        }
        return true;
      case 'ended':
        this.endTurn('interrupted', null, null, now);
        // Ended by tend to sleep: the sleep controller says when it is asleep.
        if (!sleepingOrWaking) this.setState('exited', now);
        return true;
    }
  }

  /** A prompt tend typed (await): the turn starts now, unless the agent's own hook said so first. */
  promptTyped(prompt: string, now = Date.now()): AgentTurn {
    const running = this.currentTurn;
    if (running !== null) return running;
    const turn: AgentTurn = { id: this.nextTurnId(), prompt, startedAt: now, endedAt: null, outcome: 'running', answer: null, error: null };
    this.data.lastTurn = turn;
    this.typedTurnId = turn.id;
    this.setState('busy', now);
    this.turnStarted.fire({ ...turn });
    return turn;
  }

  /** Output went quiet: a busy agent whose "interrupted" text shows has ended its turn (no hook says so). */
  async outputQuiet(): Promise<void> {
    if (this.data.state !== 'busy' && this.data.state !== 'needs-permission') return;
    if (this.currentTurn === null) return;
    const epoch = this.epoch;
    const text = await this.screen.recentText(SCREEN_CHECK_SCROLLBACK_ROWS).catch(() => null);
    const turn = this.currentTurn;
    if (text === null || epoch !== this.epoch || turn === null) return;
    // Only a mark below this turn's prompt counts: an earlier turn's may still show above it.
    if (!this.flavour.interruptedMark.test(lastLines(belowPrompt(text, turn.prompt), INTERRUPT_CHECK_LINES))) return;
    this.endTurn('interrupted', null, null, Date.now());
    this.setState('idle');
  }

  /** Sets the state (the sleep controller's states too) and tells the watchers. */
  setState(state: AgentState, now = Date.now()): void {
    if (this.data.state === state) {
      this.changed.fire(this.info());
      return;
    }
    this.data.state = state;
    this.data.since = now;
    if (state !== 'needs-permission') this.data.asking = null;
    this.changed.fire(this.info());
  }

  setWarning(warning: string | null): void {
    if (this.data.warning === warning) return;
    this.data.warning = warning;
    this.changed.fire(this.info());
  }

  setSleepAfter(ms: number | null): void {
    this.data.sleepAfterMs = ms;
    this.changed.fire(this.info());
  }

  /** tend launched (or relaunched) the agent: its next hooks are awaited. */
  launched(opts: { conversationId: string | null; cwd: string | null; launchArgs: string[] }, now = Date.now()): void {
    this.data.launchedByTend = true;
    this.data.launchArgs = opts.launchArgs;
    if (opts.conversationId !== null) this.data.agentSessionId = opts.conversationId;
    if (opts.cwd !== null) this.data.cwd = opts.cwd;
    this.setState('starting', now);
  }

  get launchArgs(): string[] {
    return this.data.launchArgs;
  }

  private checkQuestionGone(): void {
    const epoch = this.epoch;
    void this.screen.recentText(SCREEN_CHECK_SCROLLBACK_ROWS).then(
      (text) => {
        if (epoch !== this.epoch || this.data.state !== 'needs-permission') return;
        if (!this.flavour.permissionPrompt.test(text)) this.setState(this.currentTurn !== null ? 'busy' : 'idle');
      },
      () => undefined,
    );
  }

  private confirmQuestionShows(asking: string | null, now: number): void {
    const epoch = this.epoch;
    void this.screen.recentText(SCREEN_CHECK_SCROLLBACK_ROWS).then(
      (text) => {
        if (epoch !== this.epoch || !this.flavour.permissionPrompt.test(text)) return;
        this.data.asking = asking;
        this.setState('needs-permission', now);
      },
      () => undefined,
    );
  }

  private endTurn(outcome: 'answered' | 'failed' | 'interrupted', answer: string | null, error: string | null, now: number, turnId: string | null = null): void {
    let turn = this.currentTurn;
    if (turn === null) {
      if (outcome === 'interrupted') return;
      // An answer to a turn tend did not see begin (it began before tend knew the agent): still a turn.
      turn = { id: turnId ?? this.nextTurnId(), prompt: null, startedAt: now, endedAt: null, outcome: 'running', answer: null, error: null };
    }
    const ended: AgentTurn = { ...turn, endedAt: now, outcome, answer, error };
    this.data.lastTurn = ended;
    this.turnEnded.fire({ ...ended });
  }

  private nextTurnId(): string {
    this.data.turnCount++;
    return `t${this.data.turnCount}`;
  }
}

/** A warning that hooks never fired starts so; the first hook clears it. */
export const HOOKS_SILENT_PREFIX = 'no hook of';
const INTERRUPT_CHECK_LINES = 8;

/** The prompt's last line ends this many characters: enough to find its echo, short enough that a wrap rarely splits it. */
const PROMPT_TAIL_CHARS = 12;

/** The text below the last row that shows the end of `prompt`; all of it when the prompt is unknown or not shown. */
function belowPrompt(text: string, prompt: string | null): string {
  const lines = (prompt ?? '').split(/\r\n|\r|\n/).map((l) => l.trim()).filter((l) => l !== '');
  const tail = (lines[lines.length - 1] ?? '').slice(-PROMPT_TAIL_CHARS);
  if (tail === '') return text;
  const rows = text.split('\n');
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.includes(tail)) return rows.slice(i + 1).join('\n');
  return text;
}

function lastLines(text: string, n: number): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  return lines.slice(-n).join('\n');
}
