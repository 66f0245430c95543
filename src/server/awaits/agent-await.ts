// `await` on a session with an agent: the prompt is typed into the agent's
// input box (agent-prompt-typing.ts) and the await is done when the turn it
// starts ends — answered (Stop, AfterAgent), failed (StopFailure) or
// interrupted (the agent idle again with no Stop) — with the turn's answer:
// the hook's, else the screen's below the prompt (agent-screen-answer.ts).
//
// One await at a time per agent, and only at an agent that is not in a turn
// of its own: a prompt typed into a running turn would be queued or lost, and
// the answer that came back would be some other turn's. A sleeping agent is
// woken by the prompt itself (its input waits at the session's gate).
//
// Agent awaits are kept in the await store beside command awaits (their
// afterNumber AGENT_TURN, their typed line the prompt's bytes as typed), so a
// restarted server binds a pending one to its agent's turn (restored from the
// agent store), finishes typing a prompt a crash cut short, and still hands
// back settled results. What a restart loses: an answer from the screen (the
// row the prompt was typed at is not kept), and a turn whose Stop hook fired
// while no server ran (the agent's turn then stays running until its next).
import { randomBytes } from 'node:crypto';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import type { AgentAwaitResult, AgentState, AgentTurn } from '../../protocol/api/agents.js';
import { API_ERRORS, type ApiErrorCode } from '../../protocol/api/index.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { SessionAgent } from '../agents/session-agent.js';
import type { Logger } from '../log.js';
import type { Session } from '../session.js';
import { AGENT_TURN, AWAIT_RESULT_KEEP_MS, AwaitEntry, MAX_AWAITS, TooManyAwaitsError } from './await-registry.js';
import type { SettledOutcome } from './await-outcome.js';
import { PromptNeedsPasteError, finishPrompt, promptBytes, promptNeedsPaste, promptOfBytes, typePrompt } from './agent-prompt-typing.js';
import { NO_AWAIT_STORE, type AwaitStore, type StoredAwait } from './await-store.js';
import { answerBelowPrompt, type AnswerScreen } from './agent-screen-answer.js';

/** An agent tend has just launched gets this long to report it started before a prompt is typed into it. */
export const AGENT_START_WAIT_MS = 60_000;
/** After an agent's start hook, its output quiet this long (at most the max) means its input box is up. */
const STARTED_QUIET_MS = 300;
const STARTED_QUIET_MAX_MS = 3000;
/** How often pending agent awaits check their session is still there, and old results are dropped. */
const SWEEP_INTERVAL_MS = 1000;
/** At most this many rows of screen are read for an answer the hook did not give. */
const MAX_ANSWER_SCREEN_ROWS = 5000;

export type AgentAwaitEntry = AwaitEntry<AgentAwaitResult>;

/** An await refused before anything was typed: the agent is in a turn, or another await holds it. */
export class AgentBusyError extends Error {
  constructor(message: string, readonly awaitId: string | null) {
    super(message);
  }
}

export interface AgentAwaitsOptions {
  agents: AgentRegistry;
  log: Logger;
  /** Where awaits are kept across restarts (the command awaits' store); none by default. */
  store?: AwaitStore;
}

/** An await's failure, with the code the API answers it with. */
class AgentAwaitFailure extends Error {
  constructor(readonly code: ApiErrorCode, message: string) {
    super(message);
  }
}

interface Pending {
  session: Session;
  agent: SessionAgent;
  parts: Disposable[];
}

export class AgentAwaits extends DisposableBase {
  private readonly entries = new Map<string, AgentAwaitEntry>();
  private readonly pending = new Map<string, Pending>();
  /** Per session id: the pending await its agent is answering. */
  private readonly holding = new Map<string, AgentAwaitEntry>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly store: AwaitStore;

  constructor(private readonly options: AgentAwaitsOptions) {
    super();
    this.store = options.store ?? NO_AWAIT_STORE;
    // An agent that goes (its session removed, another agent in its place) ends its await.
    options.agents.addAttacher((agent, session) => toDisposable(() => this.agentGone(agent, session)));
    this.register(toDisposable(() => {
      // Pending awaits stay in the store: the next server takes them up.
      if (this.sweepTimer !== null) clearInterval(this.sweepTimer);
      for (const p of this.pending.values()) for (const part of p.parts) part.dispose();
      this.pending.clear();
      for (const entry of this.entries.values()) entry.release();
      this.entries.clear();
      this.holding.clear();
    }));
  }

  get(id: string): AgentAwaitEntry | undefined {
    return this.entries.get(id);
  }

  /** The agent an await at this session goes to: one there is and that has not exited (else it is a shell await). */
  agentOf(sessionId: string): SessionAgent | undefined {
    const agent = this.options.agents.of(sessionId);
    return agent !== undefined && agent.state !== 'exited' ? agent : undefined;
  }

  /**
   * Starts typing `prompt` into the agent and returns the await at once; it
   * settles when the prompt's turn ends. Throws AgentBusyError (nothing
   * typed) when the agent is in a turn or another await holds it.
   */
  start(agent: SessionAgent, session: Session, prompt: string, options: { id?: string } = {}): AgentAwaitEntry {
    this.dropOld(Date.now());
    if (this.entries.size >= MAX_AWAITS) throw new TooManyAwaitsError();
    this.refuseIfBusy(agent, session);
    const id = options.id ?? `w${randomBytes(6).toString('hex')}`;
    if (this.entries.has(id)) throw new Error(`await ${id} exists already`);
    const entry: AgentAwaitEntry = new AwaitEntry<AgentAwaitResult>(id, session.id, session.label, prompt, AGENT_TURN, Date.now());
    this.entries.set(id, entry);
    this.holding.set(session.id, entry);
    this.pending.set(id, { session, agent, parts: [] });
    this.ensureSweep();
    this.settleWhenDone(entry, session, this.run(entry, agent, session, prompt));
    return entry;
  }

  private settleWhenDone(entry: AgentAwaitEntry, session: Session, work: Promise<AgentAwaitResult>): void {
    work.then(
      (result) => this.finish(entry, { state: 'done', result }),
      (err: Error) => {
        const code = codeOf(err);
        if (code !== null) this.finish(entry, { state: 'failed', code, message: err.message });
        else {
          this.options.log.warn(`await ${entry.id} at session ${session.label}: ${err.message}`);
          const code: ApiErrorCode = isLive(session) ? 'internal' : 'session_ended';
          const message = isLive(session) ? `the prompt could not be typed: ${err.message}` : `session ${session.label} ended before the agent's turn did`;
          this.finish(entry, { state: 'failed', code, message });
        }
      },
    );
  }

  /** The store is the awaits' memory across restarts; one that cannot be written never fails an await. */
  private persist(what: string, write: () => void): void {
    try {
      write();
    } catch (err) {
      this.options.log.error(`could not save ${what}`, err);
    }
  }

  private refuseIfBusy(agent: SessionAgent, session: Session): void {
    const held = this.holding.get(session.id);
    const title = agent.flavour.title;
    if (held !== undefined && held.outcome.state === 'pending') {
      throw new AgentBusyError(
        `${title} in session ${session.label} is answering await ${held.id}, so nothing was typed: one await at a time per agent. ` +
          `Wait for it (\`tend await --resume ${held.id}\`), then await again`,
        held.id,
      );
    }
    if (agent.state === 'busy') {
      throw new AgentBusyError(`${title} in session ${session.label} is busy with a turn, so nothing was typed: a prompt now would go into that turn. Wait until it is idle, then await again`, null);
    }
    if (agent.state === 'needs-permission') {
      const what = agent.info().asking;
      throw new AgentBusyError(
        `${title} in session ${session.label} is waiting for a person to allow ${what === null ? 'a tool' : what}, so nothing was typed. ` +
          `Answer it (\`tend attach ${session.label}\`), then await again`,
        null,
      );
    }
  }

  private async run(entry: AgentAwaitEntry, agent: SessionAgent, session: Session, prompt: string): Promise<AgentAwaitResult> {
    await this.untilStarted(agent, session);
    // A sleeping agent wakes here; the prompt is typed to the agent it wakes as.
    await agent.inputGate();
    this.checkStillOurs(entry, agent, session);
    const bracketedPaste = promptNeedsPaste(prompt) ? (await session.screen.modes()).bracketedPaste : false;
    let bytes: Buffer;
    try {
      bytes = promptBytes(prompt, bracketedPaste);
    } catch (err) {
      if (err instanceof PromptNeedsPasteError) throw new AgentAwaitFailure('bad_request', `${err.message}. Nothing was typed`);
      throw err;
    }
    const screen = answerScreen(session);
    const anchor = await screen.cursorRow().catch(() => null);
    const turnEnded = this.nextTurnEnd(entry, agent);
    // Saved before anything is typed: a server that dies while typing still knows the await.
    this.persist(`await ${entry.id}`, () => this.store.insert(storedOf(entry, bytes)));
    await typePrompt(session, entry.id, bytes, () => {
      turnEnded.arm();
      agent.promptTyped(prompt);
    });
    this.persist(`await ${entry.id}`, () => this.store.markTyped(entry.id, Date.now()));
    const turn = await turnEnded.turn;
    const fromScreen = anchor === null ? null : async () => answerBelowPrompt(await screen.rowsFrom(anchor).catch(() => []), prompt);
    return this.resultOf(turn, agent, fromScreen);
  }

  /**
   * The next turn of `agent` to end once armed (armed just before the
   * prompt's Enter: the first turn to end after it is the prompt's).
   */
  private nextTurnEnd(entry: AgentAwaitEntry, agent: SessionAgent, armed = false): { turn: Promise<AgentTurn>; arm(): void } {
    let resolveTurn!: (turn: AgentTurn) => void;
    const turn = new Promise<AgentTurn>((resolve) => (resolveTurn = resolve));
    this.pending.get(entry.id)?.parts.push(agent.onTurnEnded((ended) => {
      if (armed) resolveTurn(ended);
    }));
    return { turn, arm: () => (armed = true) };
  }

  private async resultOf(turn: AgentTurn, agent: SessionAgent, fromScreen: (() => Promise<string | null>) | null): Promise<AgentAwaitResult> {
    let answer = turn.answer;
    let answerFrom: AgentAwaitResult['answerFrom'] = answer !== null ? 'hook' : null;
    if (answer === null && turn.outcome !== 'failed' && fromScreen !== null) {
      answer = await fromScreen();
      if (answer !== null) answerFrom = 'screen';
    }
    return {
      answer,
      outcome: turn.outcome === 'running' ? 'interrupted' : turn.outcome,
      error: turn.error,
      answerFrom,
      agentSessionId: agent.conversationId,
      turnId: turn.id,
      durationMs: Math.max(0, (turn.endedAt ?? Date.now()) - turn.startedAt),
      state: agent.state,
    };
  }

  /** An agent tend launched a moment ago has not drawn its input box yet: the prompt waits for its start. */
  private async untilStarted(agent: SessionAgent, session: Session): Promise<void> {
    if (agent.state !== 'starting') return;
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        subscription.dispose();
      };
      const subscription = agent.onChange((info) => {
        if (info.state === 'starting') return;
        done();
        resolve();
      });
      const timer = setTimeout(() => {
        done();
        reject(new AgentAwaitFailure('no_agent', `${agent.flavour.title} in session ${session.label} did not report its start within ${AGENT_START_WAIT_MS / 1000} s, so the prompt was not typed. ${agent.info().warning ?? 'Look at its screen (`tend attach`)'}`));
      }, AGENT_START_WAIT_MS);
    });
    const state = agent.state as AgentState; // changed while waiting
    if (state === 'busy' || state === 'needs-permission') {
      throw new AgentAwaitFailure('agent_busy', `${agent.flavour.title} in session ${session.label} began a turn of its own as it started, so the prompt was not typed; await again when it is idle`);
    }
    // Its start hook may come before it draws its input box: typed then, the prompt could be echoed or lost.
    await outputQuiet(session, STARTED_QUIET_MS, STARTED_QUIET_MAX_MS);
  }

  private checkStillOurs(entry: AgentAwaitEntry, agent: SessionAgent, session: Session): void {
    if (entry.outcome.state !== 'pending') throw new AgentAwaitFailure('internal', 'the await ended before its prompt was typed');
    if (!isLive(session)) throw new AgentAwaitFailure('session_ended', `session ${session.label} ended before the prompt was typed`);
    if (this.options.agents.of(session.id) !== agent || agent.state === 'exited') {
      throw new AgentAwaitFailure('no_agent', `${agent.flavour.title} in session ${session.label} exited before the prompt was typed`);
    }
  }

  private agentGone(agent: SessionAgent, session: Session): void {
    if (this.isDisposed) return;
    const entry = this.holding.get(session.id);
    if (entry === undefined || this.pending.get(entry.id)?.agent !== agent) return;
    if (isLive(session)) this.finish(entry, { state: 'failed', code: 'no_agent', message: `${agent.flavour.title} left session ${session.label} before its turn ended` });
    else this.finish(entry, { state: 'failed', code: 'session_ended', message: `session ${session.label} ended before the agent's turn did` });
  }

  /**
   * Takes up the agent awaits the store kept from an earlier server (after
   * the agents were restored): settled ones can be collected again, pending
   * ones are bound to their agent's turn, their typing finished if a crash
   * cut it short.
   */
  restore(): void {
    const now = Date.now();
    for (const saved of this.store.list()) {
      if (saved.afterNumber !== AGENT_TURN || this.entries.has(saved.id)) continue;
      const session = this.options.agents.sessionOf(saved.sessionId);
      const agent = this.options.agents.of(saved.sessionId);
      const entry: AgentAwaitEntry = new AwaitEntry<AgentAwaitResult>(saved.id, saved.sessionId, session?.label ?? saved.sessionId, saved.typedLine, AGENT_TURN, saved.createdAt);
      this.entries.set(entry.id, entry);
      if (saved.outcome !== null) {
        // Written by finish() below: an agent turn's result, whatever the store's type says of command awaits.
        entry.settle(saved.outcome as unknown as SettledOutcome<AgentAwaitResult>, saved.settledAt ?? now);
        continue;
      }
      if (session === undefined || !isLive(session)) {
        this.finish(entry, { state: 'failed', code: 'session_ended', message: `session ${entry.sessionLabel} ended before the agent's turn did` });
        continue;
      }
      if (agent === undefined || agent.state === 'exited') {
        this.finish(entry, { state: 'failed', code: 'no_agent', message: `the agent in session ${session.label} ended before its turn did` });
        continue;
      }
      this.holding.set(session.id, entry);
      this.pending.set(entry.id, { session, agent, parts: [] });
      this.settleWhenDone(entry, session, this.resume(entry, agent, session, saved.typedAt !== null));
    }
    this.dropOld(now);
    this.ensureSweep();
  }

  /** A restored await: its turn, if it has ended meanwhile, or the end of the one running (typed first if it was cut short). */
  private async resume(entry: AgentAwaitEntry, agent: SessionAgent, session: Session, typed: boolean): Promise<AgentAwaitResult> {
    const last = agent.lastTurn;
    if (typed && last !== null && last.startedAt >= entry.createdAt && last.outcome !== 'running') return this.resultOf(last, agent, null);
    const turnEnded = this.nextTurnEnd(entry, agent, typed);
    if (!typed) {
      await finishPrompt(session, entry.id, Buffer.from(entry.typedLine, 'utf8'), () => {
        turnEnded.arm();
        agent.promptTyped(promptOfBytes(entry.typedLine));
      });
      this.persist(`await ${entry.id}`, () => this.store.markTyped(entry.id, Date.now()));
    }
    return this.resultOf(await turnEnded.turn, agent, null);
  }

  private finish(entry: AgentAwaitEntry, outcome: SettledOutcome<AgentAwaitResult>): void {
    if (!entry.settle(outcome)) return;
    this.persist(`the result of await ${entry.id}`, () => this.store.settle(entry.id, outcome, entry.settledAt!));
    const p = this.pending.get(entry.id);
    this.pending.delete(entry.id);
    for (const part of p?.parts ?? []) part.dispose();
    if (this.holding.get(entry.sessionId) === entry) this.holding.delete(entry.sessionId);
  }

  private ensureSweep(): void {
    if (this.sweepTimer !== null || this.isDisposed) return;
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  private sweep(): void {
    for (const [id, p] of this.pending) {
      const entry = this.entries.get(id);
      if (entry !== undefined && !isLive(p.session)) {
        this.finish(entry, { state: 'failed', code: 'session_ended', message: `session ${p.session.label} ended before the agent's turn did` });
      }
    }
    this.dropOld(Date.now());
    if (this.entries.size === 0 && this.sweepTimer !== null) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
    }
  }

  private dropOld(now: number): void {
    for (const entry of [...this.entries.values()]) {
      if (entry.settledAt !== null && now - entry.settledAt > AWAIT_RESULT_KEEP_MS) {
        entry.release();
        this.entries.delete(entry.id);
        this.persist(`the removal of await ${entry.id}`, () => this.store.remove(entry.id));
      }
    }
  }
}

/** The API code a failure carries: ours, or one the input gate answered with (a wake that failed: agent_wake_failed). */
function codeOf(err: Error): ApiErrorCode | null {
  if (err instanceof AgentAwaitFailure) return err.code;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && Object.hasOwn(API_ERRORS, code) ? (code as ApiErrorCode) : null;
}

/** Resolves once the session's output has been quiet for `quietMs`, or after `maxMs` whatever it does. */
function outputQuiet(session: Session, quietMs: number, maxMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(quiet);
      clearTimeout(cap);
      subscription.dispose();
      resolve();
    };
    let quiet = setTimeout(done, quietMs);
    const cap = setTimeout(done, maxMs);
    const subscription = session.onOutput(() => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    });
  });
}

function isLive(session: Session): boolean {
  return !session.isDisposed && session.status === 'running';
}

/** The session's screen as the answer is read from it: rows counted from the oldest one held. */
function answerScreen(session: Session): AnswerScreen {
  const read = (scrollbackRows: number) => session.screen.text({ scrollbackRows, ansi: false });
  return {
    cursorRow: async () => {
      const now = await read(0);
      return now.scrollback.available + now.cursor.y;
    },
    rowsFrom: async (row) => {
      const probe = await read(0);
      const above = Math.min(MAX_ANSWER_SCREEN_ROWS, Math.max(0, probe.scrollback.available - row));
      const shown = await read(above);
      const firstRow = shown.scrollback.available - shown.scrollback.shown;
      return shown.text.split('\n').slice(Math.max(0, row - firstRow));
    },
  };
}

function storedOf(entry: AgentAwaitEntry, typed: Uint8Array): StoredAwait {
  return {
    id: entry.id,
    sessionId: entry.sessionId,
    typedLine: Buffer.from(typed).toString('utf8'),
    afterNumber: AGENT_TURN,
    createdAt: entry.createdAt,
    typedAt: null,
    outcome: null,
    settledAt: null,
  };
}
