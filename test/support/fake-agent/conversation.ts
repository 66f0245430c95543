// What the fake agent does with a person's keys: draws its prompt, runs a
// turn per submitted prompt (hooks at the real moments, the answer after a
// delay), asks for permission, is interrupted, and exits the agent's own way.
//
// Prompts that act (case-insensitive, anywhere in the prompt):
//   "permission"  asks before running a tool: 1 or Enter allows, 2 denies
//   "fail"        the turn fails (StopFailure; no Stop)
//   "slow"        the answer takes SLOW_ANSWER_MS, time to interrupt it
//   "background"  Stop reports a background task still running (Claude)
// The answer to "echo X" is "X"; to anything else "You said: …".
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeFlavour } from './flavours.js';
import type { HookSettings } from './hook-settings.js';
import { matchingHandlers, runHooks, startHooks, type HookContext, type HookRun } from './hook-runner.js';
import type { Key } from './key-reader.js';
import { hookCall, type BackgroundTask, type MomentFacts, type SessionFacts, type TurnFacts } from './payloads.js';
import { displayWidth, PromptArea } from './prompt-area.js';
import { appendToTranscript, type TranscriptMessage } from './transcript.js';

/** A second Ctrl-C within this long of the first exits. */
export const EXIT_CONFIRM_MS = 2000;
/** How long a "slow" prompt's answer takes: long enough to interrupt it. */
export const SLOW_ANSWER_MS = 5000;
/** What Claude's SessionEnd hooks get at least, together (raised to the largest timeout given, up to the cap). */
const SESSION_END_BUDGET_MS = 1500;
const SESSION_END_BUDGET_CAP_MS = 60_000;
/** Exit status 2 from a prompt hook blocks the prompt. */
const BLOCKING_EXIT_STATUS = 2;

export interface ConversationOptions {
  flavour: FakeFlavour;
  session: SessionFacts;
  /** The earlier conversation when resumed, else null. */
  resumed: TranscriptMessage[] | null;
  hooks: HookSettings;
  hookContext: HookContext;
  answerDelayMs: number;
  /** How long after the permission question shows its Notification fires (Claude), keystrokes postponing it. */
  noticeDelayMs: number;
  /** Overrides Claude's SessionEnd budget, as CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS does. */
  sessionEndBudgetMs: number | null;
  write: (s: string) => void;
  /** Notes what the agent does (keys, hooks, its end), for a test that wants to know why it did not. */
  trace: (what: string) => void;
  columns: () => number;
  /** Called once, when the agent has ended: restore the terminal and exit with `status`. */
  exit: (status: number) => void;
}

type Mode = 'starting' | 'idle' | 'busy' | 'ending';

class Interrupted extends Error {}

interface RunningTurn {
  facts: TurnFacts;
  /** Aborted by Esc or Ctrl-C while the turn works; null once the answer is out (too late to interrupt). */
  abort: AbortController | null;
}

interface PermissionQuestion {
  answer: (allowed: boolean) => void;
  keystroke: () => void;
}

export class Conversation {
  private mode: Mode = 'starting';
  private readonly input: PromptArea;
  private turn: RunningTurn | null = null;
  private question: PermissionQuestion | null = null;
  /** Enter pressed while a turn was still ending: the typed text is submitted as soon as the prompt is back. */
  private submitQueued = false;
  private exitArmedUntil = 0;
  private hintTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ConversationOptions) {
    const look = opts.flavour.look;
    this.input = new PromptArea({ write: opts.write, mark: look.promptMark, continuation: look.continuation, columns: opts.columns });
  }

  /** A method, not a field read: TypeScript would keep a mode narrowed across an await. */
  private ending(): boolean {
    return this.mode === 'ending';
  }

  async start(): Promise<void> {
    const { flavour, session, resumed, hooks } = this.opts;
    this.line(flavour.look.banner(session.sessionId));
    this.line(`  cwd: ${session.cwd}`);
    for (const warning of hooks.warnings) this.line(`⚠ ${warning}`);
    if (resumed !== null) {
      this.line('Resumed conversation');
      for (const m of resumed) this.message(m.role === 'user' ? flavour.look.promptMark : flavour.look.answerMark, m.text);
    }
    this.opts.write('\r\n');
    await this.fire({ moment: 'sessionStart', source: resumed !== null ? 'resume' : 'startup' });
    if (this.mode !== 'starting') return;
    this.promptAgain();
  }

  onKey(key: Key): void {
    this.opts.trace(`key ${key.kind}${'text' in key ? ` ${JSON.stringify(key.text)}` : ''} in ${this.mode}${this.question !== null ? ' (asking)' : ''}`);
    if (this.mode === 'ending') return;
    if (this.question !== null) {
      this.onQuestionKey(key, this.question);
      return;
    }
    switch (key.kind) {
      case 'text':
      case 'paste':
        this.input.insert(key.text);
        break;
      case 'backspace':
        this.input.backspace();
        break;
      case 'enter':
        if (this.mode === 'idle') this.submit();
        else if (this.input.text.trim() !== '') this.submitQueued = true;
        break;
      case 'escape':
        this.interrupt();
        break;
      case 'ctrl-c':
        if (this.mode === 'idle') this.ctrlCAtPrompt();
        else this.interrupt();
        break;
      case 'ignored':
        break;
    }
  }

  /** Ends the agent: SessionEnd with `reason` (within its budget), then exit with `status`. */
  async end(reason: string, status: number): Promise<void> {
    if (this.mode === 'ending') return;
    this.opts.trace(`end: ${reason}, exit status ${status}`);
    const wasShown = this.input.visible;
    this.mode = 'ending';
    this.turn?.abort?.abort();
    if (this.hintTimer !== null) clearTimeout(this.hintTimer);
    if (wasShown) this.input.commit();
    const call = hookCall(this.opts.flavour, this.opts.session, null, { moment: 'sessionEnd', reason });
    if (call !== null) {
      const handlers = matchingHandlers(this.opts.hooks.handlers, call.event, call.subject);
      if (!this.opts.flavour.waitsForSessionEnd) await startHooks(handlers, call.payload, this.opts.hookContext);
      else if (handlers.length > 0) await Promise.race([runHooks(handlers, call.payload, this.opts.hookContext), sleep(this.sessionEndBudgetMs(handlers))]);
    }
    const farewell = this.opts.flavour.look.farewell(this.opts.session.sessionId);
    if (farewell !== null) this.line(farewell);
    this.opts.exit(status);
  }

  private sessionEndBudgetMs(handlers: ReadonlyArray<{ timeoutMs: number; timeoutGiven: boolean }>): number {
    if (this.opts.sessionEndBudgetMs !== null) return this.opts.sessionEndBudgetMs;
    const given = handlers.filter((h) => h.timeoutGiven).map((h) => h.timeoutMs);
    return Math.min(SESSION_END_BUDGET_CAP_MS, Math.max(SESSION_END_BUDGET_MS, ...given));
  }

  private ctrlCAtPrompt(): void {
    if (this.input.text !== '') {
      this.input.clear();
      return;
    }
    if (Date.now() < this.exitArmedUntil) {
      void this.end(this.opts.flavour.endReasons.promptExit, 0);
      return;
    }
    this.exitArmedUntil = Date.now() + EXIT_CONFIRM_MS;
    this.input.setHint(this.opts.flavour.look.exitHint);
    if (this.hintTimer !== null) clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => this.disarmExit(), EXIT_CONFIRM_MS);
  }

  private disarmExit(): void {
    if (this.hintTimer !== null) clearTimeout(this.hintTimer);
    this.hintTimer = null;
    this.exitArmedUntil = 0;
    if (this.mode !== 'ending') this.input.setHint(null);
  }

  private interrupt(): void {
    this.turn?.abort?.abort();
  }

  private submit(): void {
    if (this.input.text.trim() === '') return;
    this.disarmExit();
    const prompt = this.input.commit();
    void this.runTurn(prompt);
  }

  private promptAgain(): void {
    this.mode = 'idle';
    this.input.show();
    if (this.submitQueued) {
      this.submitQueued = false;
      this.submit();
    }
  }

  private async runTurn(prompt: string): Promise<void> {
    const { flavour } = this.opts;
    this.mode = 'busy';
    const turn: RunningTurn = {
      facts: { id: randomUUID(), prompt, toolUseId: `${flavour.kind === 'claude' ? 'toolu_' : 'call_'}${randomBytes(12).toString('hex')}` },
      abort: new AbortController(),
    };
    this.turn = turn;
    this.record({ role: 'user', text: prompt });
    try {
      const submitted = await this.fire({ moment: 'promptSubmit' });
      const blocker = submitted.find((r) => r.exitCode === BLOCKING_EXIT_STATUS);
      if (blocker !== undefined) {
        this.line(`  ⎿  ${flavour.events.promptSubmit} operation blocked by hook:`);
        if (blocker.stderr.trim() !== '') this.message('     ', blocker.stderr.trim());
        return this.endTurn();
      }
      const outcome = await this.work(turn);
      if (this.ending()) return;
      turn.abort = null;
      if ('failure' in outcome) {
        this.line(flavour.look.failure);
        await this.fire({ moment: 'stopFailure', error: 'rate_limit', details: '429 Too Many Requests', message: flavour.look.failure });
      } else {
        this.message(flavour.look.answerMark, outcome.answer);
        this.record({ role: 'assistant', text: outcome.answer });
        await this.fire({ moment: 'stop', answer: outcome.answer, backgroundTasks: outcome.backgroundTasks });
      }
    } catch (err) {
      if (!(err instanceof Interrupted) && !(err instanceof Error && err.name === 'AbortError')) throw err;
      if (this.ending()) return;
      this.line(flavour.look.interrupted);
    }
    this.endTurn();
  }

  private endTurn(): void {
    this.turn = null;
    if (this.mode === 'ending') return;
    this.opts.write('\r\n');
    this.promptAgain();
  }

  /** The turn's work between the prompt hook and the answer; throws Interrupted when Esc or Ctrl-C stops it. */
  private async work(turn: RunningTurn): Promise<{ answer: string; backgroundTasks: BackgroundTask[] } | { failure: true }> {
    const { flavour, answerDelayMs } = this.opts;
    const signal = (turn.abort as AbortController).signal;
    const check = () => {
      if (signal.aborted) throw new Interrupted();
    };
    check();
    const prompt = turn.facts.prompt;
    let answer: string | null = null;
    if (/permission/i.test(prompt)) {
      const command = flavour.tool.input.command ?? '';
      this.line(`${flavour.look.answerMark}${flavour.tool.name}(${command})`);
      await this.fire({ moment: 'preTool' });
      check();
      await this.fire({ moment: 'permissionRequest' });
      check();
      const allowed = await this.ask(command, signal);
      if (!allowed) {
        this.line('  ⎿  User rejected the command');
        answer = 'Permission denied';
      } else {
        const output = 'fake-output.txt';
        this.line(`  ⎿  ${output}`);
        await this.fire({ moment: 'postTool', output });
        check();
      }
    }
    if (answer === null) {
      await sleep(/slow/i.test(prompt) ? SLOW_ANSWER_MS : answerDelayMs, undefined, { signal });
      if (/fail/i.test(prompt)) return { failure: true };
      answer = answerTo(prompt);
    }
    const backgroundTasks: BackgroundTask[] =
      /background/i.test(prompt) && flavour.kind === 'claude'
        ? [{ id: 'bash_1', type: 'bash', status: 'running', description: 'A job the fake agent left running', command: 'sleep 600' }]
        : [];
    return { answer, backgroundTasks };
  }

  /** Draws the permission question and waits for 1/Enter (allow) or 2 (deny); erases it after, as the agents do. */
  private ask(command: string, signal: AbortSignal): Promise<boolean> {
    const { flavour, noticeDelayMs } = this.opts;
    const rows = flavour.look.permission(command);
    for (const row of rows) this.line(row);
    const message = `${flavour.title} needs your permission to use ${flavour.tool.name}`;
    const notice = () => void this.fire({ moment: 'permissionNotice', message });
    let noticeTimer: NodeJS.Timeout | null = null;
    if (flavour.noticeDelayed) noticeTimer = setTimeout(notice, noticeDelayMs);
    else notice();
    return new Promise<boolean>((resolve, reject) => {
      const settle = () => {
        if (noticeTimer !== null) clearTimeout(noticeTimer);
        this.question = null;
        if (this.mode !== 'ending') this.opts.write(`\x1b[${rows.length}A\r\x1b[J`);
      };
      const onAbort = () => {
        settle();
        reject(new Interrupted());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.question = {
        answer: (allowed) => {
          signal.removeEventListener('abort', onAbort);
          settle();
          resolve(allowed);
        },
        // Claude puts its permission notification off while someone types.
        keystroke: () => {
          if (noticeTimer === null) return;
          clearTimeout(noticeTimer);
          noticeTimer = setTimeout(notice, noticeDelayMs);
        },
      };
    });
  }

  private onQuestionKey(key: Key, question: PermissionQuestion): void {
    if (key.kind === 'enter' || (key.kind === 'text' && key.text.startsWith('1'))) question.answer(true);
    else if (key.kind === 'text' && key.text.startsWith('2')) question.answer(false);
    else if (key.kind === 'escape' || key.kind === 'ctrl-c') this.interrupt();
    else question.keystroke();
  }

  /** Runs the hooks of a moment, as the agent would, and waits for them. */
  private async fire(facts: MomentFacts): Promise<HookRun[]> {
    const call = hookCall(this.opts.flavour, this.opts.session, this.turn?.facts ?? null, facts);
    if (call === null) return [];
    const handlers = matchingHandlers(this.opts.hooks.handlers, call.event, call.subject);
    this.opts.trace(`${call.event}: ${handlers.length} handler(s)`);
    if (handlers.length === 0) return [];
    return runHooks(handlers, call.payload, this.opts.hookContext);
  }

  private record(message: TranscriptMessage): void {
    const { session } = this.opts;
    appendToTranscript(session.transcriptPath, { sessionId: session.sessionId, cwd: session.cwd, message });
  }

  private line(text: string): void {
    this.opts.write(`${text}\r\n`);
  }

  /** A message of the conversation: the mark, then its lines under one another. */
  private message(mark: string, text: string): void {
    const indent = ' '.repeat(displayWidth(mark));
    text.split('\n').forEach((row, i) => this.line(`${i === 0 ? mark : indent}${row}`));
  }
}

/** "echo X" is answered "X"; anything else is said back, with its count of lines when there are several. */
export function answerTo(prompt: string): string {
  const echo = /^echo (.*)$/s.exec(prompt);
  if (echo !== null) return echo[1] as string;
  const lines = prompt.split('\n').length;
  return lines > 1 ? `You said (${lines} lines):\n${prompt}` : `You said: ${prompt}`;
}
