// `await`: type a command into a session's shell and hand back its exit code
// and output when the shell's end mark (OSC 133;D) for it arrives — never on
// "the screen went quiet". A caller that stops waiting cancels nothing: the
// await keeps its id, and its result is collected later from its location.
// Results are kept for AWAIT_RESULT_KEEP_MS after they settle.
import { randomBytes } from 'node:crypto';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import type { CommandWatch, FinishedCommand } from '../commands/index.js';
import type { Logger } from '../log.js';
import { typeCommand, type TypedCommand, type TypingTarget } from './command-typing.js';

/** How long a settled await's result can still be collected. */
export const AWAIT_RESULT_KEEP_MS = 60 * 60 * 1000;
/** A command that has not ended after this long is forgotten (its await reads as unknown). */
export const AWAIT_PENDING_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** Bounds the memory that callers who never collect can make the server hold. */
export const MAX_AWAITS = 10_000;
/** How often pending awaits check their session is still there, and old ones are dropped. */
const SWEEP_INTERVAL_MS = 1000;

export interface AwaitedCommand {
  number: number;
  commandLine: string;
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
}

export interface AwaitResult {
  exitCode: number | null;
  /** The command's output as the screen held it at its end mark; null when it had already scrolled out. */
  output: string | null;
  command: AwaitedCommand;
}

export type AwaitOutcome =
  | { state: 'pending' }
  | { state: 'done'; result: AwaitResult }
  | { state: 'failed'; code: string; message: string };

/** What an await needs of its session; Session provides it. */
export interface AwaitSession extends TypingTarget {
  readonly id: string;
  readonly label: string;
  /** False once the session has exited, gone cold or been removed. */
  isLive(): boolean;
}

export class AwaitEntry {
  outcome: AwaitOutcome = { state: 'pending' };
  settledAt: number | null = null;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly id: string,
    readonly session: AwaitSession,
    readonly input: string,
    readonly createdAt: number,
  ) {}

  get location(): string {
    return `/v1/awaits/${this.id}`;
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

  settle(outcome: Exclude<AwaitOutcome, { state: 'pending' }>): void {
    if (this.outcome.state !== 'pending') return;
    this.outcome = outcome;
    this.settledAt = Date.now();
    for (const w of [...this.waiters]) w();
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
}

export class AwaitRegistry extends DisposableBase {
  private readonly entries = new Map<string, AwaitEntry>();
  /** Per pending entry: its subscriptions and staged script. */
  private readonly pendingParts = new Map<string, Disposable>();
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: AwaitRegistryOptions) {
    super();
    this.register(toDisposable(() => {
      if (this.sweepTimer) clearInterval(this.sweepTimer);
      for (const parts of this.pendingParts.values()) parts.dispose();
      this.pendingParts.clear();
      for (const e of this.entries.values()) e.release();
      this.entries.clear();
    }));
  }

  get(id: string): AwaitEntry | undefined {
    return this.entries.get(id);
  }

  /**
   * Types `input` into the session and settles when the first command that
   * starts after it ends. Rejects (and records nothing) if the input could not be sent.
   */
  async start(session: AwaitSession, commands: CommandWatch, input: string): Promise<AwaitEntry> {
    this.dropOld(Date.now());
    if (this.entries.size >= MAX_AWAITS) throw new TooManyAwaitsError();
    const id = `w${randomBytes(6).toString('hex')}`;
    const entry = new AwaitEntry(id, session, input, Date.now());
    // Anything that starts after this point is ours: the shell runs typed
    // lines in order, so the first command numbered past the current last one
    // is the one this input started (even if a command is running right now).
    const after = await commands.lastNumber();
    if (this.entries.size >= MAX_AWAITS) throw new TooManyAwaitsError();
    let typed: TypedCommand | null = null;
    // Subscribed before the input is typed, so its end mark cannot be missed.
    const finished = commands.onCommandFinished((command) => {
      if (command.number <= after) return;
      entry.settle({ state: 'done', result: { exitCode: command.exitCode, output: command.output, command: describeCommand(command) } });
      this.finishPending(entry);
    });
    this.pendingParts.set(id, toDisposable(() => {
      finished.dispose();
      typed?.dispose();
    }));
    this.entries.set(id, entry);
    try {
      typed = await typeCommand(session, input, this.options.stagingDir, id);
    } catch (err) {
      this.finishPending(entry);
      this.entries.delete(id);
      throw err;
    }
    if (this.isDisposed) typed.dispose();
    this.ensureSweep();
    return entry;
  }

  private finishPending(entry: AwaitEntry): void {
    const parts = this.pendingParts.get(entry.id);
    this.pendingParts.delete(entry.id);
    parts?.dispose();
  }

  private ensureSweep(): void {
    if (this.sweepTimer !== null || this.isDisposed) return;
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  private sweep(): void {
    const now = Date.now();
    for (const entry of this.entries.values()) {
      if (entry.outcome.state === 'pending' && !entry.session.isLive()) {
        entry.settle({ state: 'failed', code: 'session_ended', message: `session ${entry.session.label} ended before the command finished` });
        this.finishPending(entry);
      }
    }
    this.dropOld(now);
    if (this.entries.size === 0 && this.sweepTimer !== null) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = null;
    }
  }

  private dropOld(now: number): void {
    for (const [id, entry] of this.entries) {
      const expired = entry.settledAt !== null
        ? now - entry.settledAt > AWAIT_RESULT_KEEP_MS
        : now - entry.createdAt > AWAIT_PENDING_MAX_MS;
      if (!expired) continue;
      this.finishPending(entry);
      entry.release();
      this.entries.delete(id);
    }
  }
}

export class TooManyAwaitsError extends Error {
  constructor() {
    super(`${MAX_AWAITS} awaits are pending or uncollected; collect some (GET their location) or wait for them to expire`);
  }
}

function describeCommand(c: FinishedCommand): AwaitedCommand {
  return { number: c.number, commandLine: c.commandLine, cwd: c.cwd, startedAt: c.startedAt, endedAt: c.endedAt };
}
