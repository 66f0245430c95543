// `await`: type a command into a session's shell and hand back its exit code
// and output when the shell's end mark (OSC 133;D) for it arrives — never on
// "the screen went quiet", and never another command's (await-outcome.ts).
// A caller that stops waiting cancels nothing: the await keeps its id, and
// its result is collected later from its location. Awaits are kept in the
// store (await-store.ts), so one typed before a server restart (or a crash)
// is collected from the next server. Results are kept for
// AWAIT_RESULT_KEEP_MS after they settle.
import { randomBytes } from 'node:crypto';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import type { CommandWatch, FinishedCommand } from '../commands/index.js';
import type { Logger } from '../log.js';
import { finishTyping, prepareCommand, removeStagedScript, typeCommand, type TypingTarget } from './command-typing.js';
import { forgottenOutcome, lineEndedOutcome, outcomeOf, type AwaitOutcome, type AwaitResult, type SettledOutcome } from './await-outcome.js';
import { CommandMarkScanner } from './command-mark-scanner.js';
import { NO_AWAIT_STORE, type AwaitStore, type StoredAwait } from './await-store.js';

/** The afterNumber of an await bound to an agent's turn rather than to a command. */
export const AGENT_TURN = -1;
/** How long a settled await's result can still be collected. */
export const AWAIT_RESULT_KEEP_MS = 60 * 60 * 1000;
/** A command that has not ended after this long is forgotten (its await reads as unknown). */
export const AWAIT_PENDING_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Bounds the memory that callers who never collect can make the server hold. */
export const MAX_AWAITS = 10_000;
/** How often pending awaits check their session is still there, and old ones are dropped. */
const SWEEP_INTERVAL_MS = 1000;
/** An await id: chosen by the caller (so a retried request finds the first one) or by the server. */
export { AWAIT_ID_PATTERN } from '../../protocol/api/index.js';
import { API_ROUTES, routePath } from '../../protocol/api/index.js';

/** What an await needs of its session; Session provides it. */
export interface AwaitSession extends TypingTarget {
  readonly id: string;
  readonly label: string;
  /** False once the session has exited, gone cold or been removed. */
  isLive(): boolean;
  /** Once it is not live, how it ended, for a person: "its program was killed by signal 9 (SIGKILL)". */
  endedHow?(): string;
  /** The session's output as it arrives (before it is parsed; the bytes are good only during the call). */
  onOutput(listener: (bytes: Uint8Array) => void): Disposable;
}

/** A live session and its command index, by id: how awaits restored from the store find theirs. */
export type FindAwaitSession = (sessionId: string) => { session: AwaitSession; commands: CommandWatch } | undefined;

/** R: what the await hands back when done (a command's result, or an agent's turn: agent-await.ts). */
export class AwaitEntry<R = AwaitResult> {
  outcome: AwaitOutcome<R> = { state: 'pending' };
  settledAt: number | null = null;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly id: string,
    readonly sessionId: string,
    /** The session's label when the await started (a restored session that is gone keeps it). */
    readonly sessionLabel: string,
    /** The line typed at the prompt (an agent await: its prompt; restored from the store, the bytes typed for it). */
    readonly typedLine: string,
    /** The session's last command number when the line was typed: the await's command is the next (an agent await: AGENT_TURN, it is bound to a turn). */
    readonly afterNumber: number,
    readonly createdAt: number,
  ) {}

  get location(): string {
    return routePath(API_ROUTES.getAwait, { id: this.id });
  }

  /** Resolves true once settled, or false when `timeoutMs` passes first. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.outcome.state !== 'pending') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(this.outcome.state !== 'pending');
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
    });
  }

  settle(outcome: SettledOutcome<R>, at = Date.now()): boolean {
    if (this.outcome.state !== 'pending') return false;
    this.outcome = outcome;
    this.settledAt = at;
    for (const w of [...this.waiters]) w();
    return true;
  }

  /** Wakes every waiter (they see it still pending): the server is going away. */
  release(): void {
    for (const w of [...this.waiters]) w();
  }
}

export interface AwaitRegistryOptions {
  /** Where long input is staged as scripts (a private runtime directory). */
  stagingDir: string;
  log: Logger;
  /** Where awaits are kept across restarts; none by default. */
  store?: AwaitStore;
}

export class AwaitRegistry extends DisposableBase {
  private readonly entries = new Map<string, AwaitEntry>();
  /** Per pending entry: its subscriptions to its session. */
  private readonly pendingParts = new Map<string, Disposable[]>();
  /** Per pending entry: its session, to ask whether it is still there. */
  private readonly liveness = new Map<string, Pick<AwaitSession, 'isLive' | 'endedHow'>>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly store: AwaitStore;

  constructor(private readonly options: AwaitRegistryOptions) {
    super();
    this.store = options.store ?? NO_AWAIT_STORE;
    this.register(toDisposable(() => {
      if (this.sweepTimer) clearInterval(this.sweepTimer);
      // Pending awaits stay in the store: the next server collects them.
      for (const parts of this.pendingParts.values()) for (const part of parts) part.dispose();
      this.pendingParts.clear();
      for (const e of this.entries.values()) e.release();
      this.entries.clear();
    }));
  }

  get(id: string): AwaitEntry | undefined {
    return this.entries.get(id);
  }

  /**
   * Types `input` into the session, whose shell the caller found at its
   * prompt with `afterNumber` its last command, and settles at the end of
   * the command that line starts. Rejects (and records nothing) if the input
   * could not be sent. `stage`: run it from a sourced script however short (command-typing.ts).
   */
  async start(session: AwaitSession, commands: CommandWatch, input: string, options: { afterNumber: number; id?: string; stage?: boolean }): Promise<AwaitEntry> {
    this.dropOld(Date.now());
    if (this.entries.size >= MAX_AWAITS) throw new TooManyAwaitsError();
    const id = options.id ?? `w${randomBytes(6).toString('hex')}`;
    if (this.entries.has(id)) throw new Error(`await ${id} exists already`);
    const prepared = prepareCommand(input, this.options.stagingDir, id, { stage: options.stage });
    const entry = new AwaitEntry(id, session.id, session.label, prepared.typed, options.afterNumber, Date.now());
    // Subscribed before the input is typed, so its end mark cannot be missed.
    this.watch(entry, commands, session);
    try {
      // Saved before anything is typed: a server that dies after typing still knows the await.
      this.store.insert(storedOf(entry));
      this.pendingParts.get(id)?.push(this.watchLineEnd(entry, session, commands));
      await typeCommand(session, id, prepared);
      this.store.markTyped(id, Date.now());
    } catch (err) {
      this.forget(entry); // removes the staged script too
      throw err;
    }
    this.ensureSweep();
    return entry;
  }

  /**
   * Takes up the awaits the store kept from an earlier server: settled ones
   * can be collected again, pending ones are bound to their command in the
   * session's (restored) command index and settle at its end.
   */
  async restore(find: FindAwaitSession): Promise<void> {
    const now = Date.now();
    for (const saved of this.store.list()) {
      // An agent's turn is not a command: agent-await.ts takes those up.
      if (this.entries.has(saved.id) || saved.afterNumber === AGENT_TURN) continue;
      const found = saved.outcome === null ? find(saved.sessionId) : undefined;
      const entry = new AwaitEntry(saved.id, saved.sessionId, found?.session.label ?? saved.sessionId, saved.typedLine, saved.afterNumber, saved.createdAt);
      this.entries.set(entry.id, entry);
      if (saved.outcome !== null) {
        entry.settle(saved.outcome, saved.settledAt ?? now);
        continue;
      }
      if (found === undefined) {
        this.finish(entry, { state: 'failed', code: 'session_ended', message: `session ${saved.sessionId} ended before the command finished` });
        continue;
      }
      this.watch(entry, found.commands, found.session);
      if (saved.typedAt === null) this.finishCutTyping(entry, found.session);
      // The command may have ended while no server watched: the index holds it.
      try {
        await this.settleFromIndex(entry, found.commands);
      } catch (err) {
        this.options.log.warn(`await ${entry.id}: could not read session ${saved.sessionId}'s commands (${(err as Error).message}); it waits for the command's end`);
      }
    }
    this.dropOld(now);
    this.ensureSweep();
  }

  /**
   * The server that typed the line died before the holder had taken all of it: the
   * holder has what it took (and drops it if sent again), so the rest is sent now.
   */
  private finishCutTyping(entry: AwaitEntry, session: AwaitSession): void {
    finishTyping(session, entry.id, entry.typedLine).then(
      () => this.store.markTyped(entry.id, Date.now()),
      (err: Error) => this.options.log.warn(`await ${entry.id}: could not finish typing its line after a restart (${err.message})`),
    );
  }

  /** Settles the entry at the first command after its number ends. */
  private watch(entry: AwaitEntry, commands: CommandWatch, session: Pick<AwaitSession, 'isLive' | 'endedHow'>): void {
    this.entries.set(entry.id, entry);
    this.liveness.set(entry.id, session);
    const finished = commands.onCommandFinished((command) => {
      if (command.number > entry.afterNumber) this.decide(entry, command);
    });
    this.pendingParts.set(entry.id, [finished]);
  }

  /**
   * Until the typed line's command starts, watches for the shell ending the
   * line without one: an end mark while no command numbered past the
   * await's has started settles it as input_not_run at once, rather than at
   * the next command someone runs.
   */
  private watchLineEnd(entry: AwaitEntry, session: AwaitSession, commands: CommandWatch): Disposable {
    const scanner = new CommandMarkScanner();
    let stopped = false;
    let asking = false;
    let again = false;
    /** An end mark has been seen since the line was typed (a start mark alone never fails the await). */
    let ended = false;
    const check = (): void => {
      // One question at a time; an end mark seen meanwhile is asked about after it.
      if (stopped) return;
      if (asking) {
        again = true;
        return;
      }
      asking = true;
      again = false;
      // The state read now covers every byte seen so far, and no later one: only an end mark among them counts.
      const endedBefore = ended;
      commands.state().then(({ commands: list, running }) => {
        asking = false;
        if (stopped || entry.outcome.state !== 'pending') return;
        const last = list[list.length - 1]?.number ?? 0;
        if (last > entry.afterNumber) stop(); // the line's command started: its own end mark settles the await
        else if (endedBefore && running === null) this.finish(entry, lineEndedOutcome(entry.sessionLabel));
        else if (again) check();
      }, () => {
        asking = false;
      });
    };
    const output = session.onOutput((bytes) => {
      const seen = scanner.feed(bytes);
      if (seen.end) ended = true;
      // A start mark is asked about too: once the line's command has started the watch ends.
      if (seen.start || seen.end) check();
    });
    const stop = (): void => {
      stopped = true;
      output.dispose();
    };
    return toDisposable(stop);
  }

  private async settleFromIndex(entry: AwaitEntry, commands: CommandWatch): Promise<void> {
    const { commands: list, running } = await commands.state();
    const number = entry.afterNumber + 1;
    const first = list.find((c) => c.number === number);
    if (first === undefined) {
      // Numbers are never reused: a later command kept and this one not means it was dropped.
      if (list.some((c) => c.number > number)) this.finish(entry, forgottenOutcome(number, entry.sessionLabel));
      return;
    }
    if (running === number || first.endedAt === null) return; // still running: its end mark settles it
    const output = await commands.output(number);
    this.decide(entry, { ...first, output: output?.text ?? null });
  }

  private decide(entry: AwaitEntry, first: FinishedCommand): void {
    if (entry.outcome.state !== 'pending') return;
    this.finish(entry, outcomeOf(first, entry.typedLine, entry.sessionLabel));
  }

  private finish(entry: AwaitEntry, outcome: SettledOutcome): void {
    if (!entry.settle(outcome)) return;
    this.stopWatching(entry);
    this.persist(`the result of await ${entry.id}`, () => this.store.settle(entry.id, outcome, entry.settledAt!));
  }

  private stopWatching(entry: AwaitEntry): void {
    const parts = this.pendingParts.get(entry.id) ?? [];
    this.pendingParts.delete(entry.id);
    this.liveness.delete(entry.id);
    for (const part of parts) part.dispose();
    removeStagedScript(this.options.stagingDir, entry.id);
  }

  private forget(entry: AwaitEntry): void {
    this.stopWatching(entry);
    entry.release();
    this.entries.delete(entry.id);
    this.persist(`the removal of await ${entry.id}`, () => this.store.remove(entry.id));
  }

  /** The store is the await's memory across restarts; one that cannot be written never fails the await itself. */
  private persist(what: string, write: () => void): void {
    try {
      write();
    } catch (err) {
      this.options.log.error(`could not save ${what}`, err);
    }
  }

  private ensureSweep(): void {
    if (this.sweepTimer !== null || this.isDisposed || this.entries.size === 0) return;
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const entry of this.entries.values()) {
      const session = this.liveness.get(entry.id);
      if (entry.outcome.state === 'pending' && session !== undefined && !session.isLive()) {
        const how = session.endedHow?.();
        this.finish(entry, { state: 'failed', code: 'session_ended', message: `session ${entry.sessionLabel} ended before the command finished${how === undefined ? '' : `: ${how}`}` });
      }
    }
    this.dropOld(now);
    if (this.entries.size === 0 && this.sweepTimer !== null) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
    }
  }

  private dropOld(now: number): void {
    for (const entry of [...this.entries.values()]) {
      const expired = entry.settledAt !== null
        ? now - entry.settledAt > AWAIT_RESULT_KEEP_MS
        : now - entry.createdAt > AWAIT_PENDING_MAX_MS;
      if (expired) this.forget(entry);
    }
  }
}

export class TooManyAwaitsError extends Error {
  constructor() {
    super(`${MAX_AWAITS} awaits are pending or uncollected; collect some (GET their location) or wait for them to expire`);
  }
}

function storedOf(entry: AwaitEntry): StoredAwait {
  return {
    id: entry.id,
    sessionId: entry.sessionId,
    typedLine: entry.typedLine,
    afterNumber: entry.afterNumber,
    createdAt: entry.createdAt,
    typedAt: null,
    outcome: null,
    settledAt: null,
  };
}
