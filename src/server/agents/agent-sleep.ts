// Sleep and wake of agents. An idle agent process holds hundreds of MB; a
// sleeping one holds none: it is ended its own way (agent-ending.ts) while its
// screen is kept for viewers (kept-screen.ts), and input to the session wakes
// it: its resume line is typed at the shell prompt (the registry's
// typeAgentLine), and once it has started and gone quiet, the input that
// waited at the gate reaches it, once and in order.
//
// One SleepFollower per agent (the registry attaches it to each agent, those
// restored after a restart too). Its phase, kept in the store with the agent
// (sleepRecord), lets a later server pick a sleep or a wake up where it was.
import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import { isShellProgram } from './shell-program.js';
import { AgentCannotSleepError, AgentWakeFailedError, NoAgentError } from './agent-errors.js';
import type { Logger } from '../log.js';
import type { HostedScreen, ScreenHost } from '../screen-host/index.js';
import type { Session } from '../session.js';
import { DEFAULT_ENDING_TIMING, endAgent, type EndingTarget, type EndingTiming } from './agent-ending.js';
import type { AgentRegistry } from './agent-registry.js';
import { cutKeptScreen, keptScreenPath, loadKeptScreen, openKeptScreen, removeKeptScreen, saveKeptScreen } from './kept-screen.js';
import type { SessionAgent } from './session-agent.js';

export interface SleepTiming {
  ending: EndingTiming;
  /** A woken agent that has not reported its start (SessionStart) by then has failed to wake. */
  startTimeoutMs: number;
  /** Started, then its output quiet this long: it is ready for the input that waited. */
  readyQuietMs: number;
  /** Started and still drawing after this long: ready all the same (an agent that animates never goes quiet). */
  readyMaxWaitMs: number;
  /** After the resume line is typed, the shell may still hold the terminal this long before the agent has taken it. */
  promptBackGraceMs: number;
  /** How often the terminal's foreground is asked while a wake waits. */
  pollMs: number;
}

export const DEFAULT_SLEEP_TIMING: SleepTiming = {
  ending: DEFAULT_ENDING_TIMING,
  startTimeoutMs: 30_000,
  readyQuietMs: 500,
  readyMaxWaitMs: 5000,
  promptBackGraceMs: 2000,
  pollMs: 250,
};

export interface AgentSleepDeps {
  agents: AgentRegistry;
  /** Where kept screens are opened as screens of their own. */
  screens: ScreenHost;
  /** Each agent's files (the kept screen among them). */
  agentsDir: string;
  log: Logger;
  timing?: Partial<SleepTiming>;
}

/** Where a follower is. falling-asleep: the agent is being ended; its state is 'sleeping' already (input waits). */
type Phase = 'awake' | 'falling-asleep' | 'asleep' | 'waking';

/** What the store keeps with the agent (SessionAgent.sleepRecord). */
interface SleepRecord {
  phase: Phase;
  /** Unix ms the agent fell asleep. */
  asleepAt?: number;
}

/** What the sleep and wake routes need (http/agents-api.ts). */
export interface AgentSleepControl {
  sleep(session: Session): Promise<void>;
  wake(session: Session): Promise<void>;
}

export class AgentSleep implements AgentSleepControl {
  private readonly followers = new Map<string, SleepFollower>();
  private readonly timing: SleepTiming;

  constructor(private readonly deps: AgentSleepDeps) {
    this.timing = { ...DEFAULT_SLEEP_TIMING, ...deps.timing };
    deps.agents.addAttacher((agent, session) => {
      const follower = new SleepFollower(agent, session, deps, this.timing);
      this.followers.set(session.id, follower);
      return toDisposable(() => {
        if (this.followers.get(session.id) === follower) this.followers.delete(session.id);
        follower.dispose();
      });
    });
  }

  /** By hand (POST …/agent/sleep): starts the sleep, or says why it cannot (409 agent_cannot_sleep). */
  async sleep(session: Session): Promise<void> {
    await this.follower(session).sleep(true);
  }

  /** By hand (POST …/agent/wake): starts the wake of a sleeping agent; an awake one is left as it is. */
  async wake(session: Session): Promise<void> {
    const follower = this.follower(session);
    follower.wake().catch(() => undefined); // a failed wake is the agent's warning, not this call's error
  }

  /** The session is gone (killed): the file of its kept screen goes too (a wake would have removed it). */
  forget(sessionId: string): void {
    removeKeptScreen(keptScreenPath(this.deps.agentsDir, sessionId)).catch((err: Error) => this.deps.log.warn(`session ${sessionId}: could not remove its kept screen: ${err.message}`));
  }

  private follower(session: Session): SleepFollower {
    const f = this.followers.get(session.id);
    if (f === undefined) throw new NoAgentError(`session ${session.label} has no agent`);
    return f;
  }
}

class SleepFollower extends DisposableBase {
  private phase: Phase = 'awake';
  /** The screen viewers are shown while it sleeps (null: the live one). */
  private kept: Promise<HostedScreen> | null = null;
  private fallingAsleep: Promise<void> | null = null;
  private waking: Promise<void> | null = null;
  /** Writes that waited at the gate during this sleep: dropped, and said so, if the wake fails. */
  private heldWrites = 0;
  private lastOutputAt = Date.now();
  private lastInputAt = 0;
  /** An automatic sleep found it could not happen (the shell had the terminal): not tried again before a whole idle time. */
  private lastRefusedAt = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly file: string;
  /** This wake was begun by an earlier server: its resume line may be half typed at the prompt. */
  private wakeBegunBefore = false;

  constructor(
    private readonly agent: SessionAgent,
    private readonly session: Session,
    private readonly deps: AgentSleepDeps,
    private readonly timing: SleepTiming,
  ) {
    super();
    this.file = keptScreenPath(deps.agentsDir, session.id);
    const gate = () => this.gate();
    agent.gate = gate;
    this.register(toDisposable(() => {
      if (agent.gate === gate) agent.gate = null;
      if (this.idleTimer !== null) clearTimeout(this.idleTimer);
      this.idleTimer = null;
      // The kept screen's file stays: the next server shows it again.
      this.disposeKept();
    }));
    this.register(session.onOutput(() => {
      this.lastOutputAt = Date.now();
    }));
    this.register(agent.onChange(() => this.armIdleTimer()));
    this.pickUpAfterRestart();
    this.armIdleTimer();
  }

  private get title(): string {
    return this.agent.flavour.title;
  }

  // ---- the input gate ----------------------------------------------------

  /** Every input to the session passes here: it counts as activity, and while the agent sleeps it waits for (and starts) the wake. */
  private gate(): Promise<void> | null {
    this.lastInputAt = Date.now();
    if (this.phase === 'awake') return null;
    this.heldWrites++;
    return this.wake();
  }

  // ---- sleep -------------------------------------------------------------

  /** Why the agent cannot sleep now, from what is known without asking the holder; null: it may. */
  private whyNotNow(): string | null {
    const { agent, session } = this;
    if (this.phase === 'waking') return 'it is waking';
    if (session.status !== 'running') return `the session is ${session.status}`;
    if (!isShellProgram(session.info().argv[0])) return 'it does not run under a shell (the session would end with it)';
    switch (agent.state) {
      case 'busy':
        return 'it is busy with a turn';
      case 'needs-permission':
        return 'it waits for a person to answer its permission question';
      case 'starting':
        return 'it has not finished starting';
      case 'exited':
        return 'it is not running';
      default:
        break;
    }
    if (agent.backgroundTasks > 0) return `its last turn left ${agent.backgroundTasks} background task${agent.backgroundTasks === 1 ? '' : 's'} running`;
    if (agent.conversationId === null) return 'its conversation id is not known, so it could not be resumed (a new conversation would be worse than none)';
    // The agents write a conversation down with its first message: an empty one cannot be resumed.
    if (agent.lastTurn === null) return 'it has had no turn yet, so there is no conversation to resume';
    return null;
  }

  /** Puts the agent to sleep; by hand, a refusal is an error saying why (automatically, it just does not happen). */
  async sleep(byHand: boolean): Promise<void> {
    if (this.phase === 'falling-asleep' || this.phase === 'asleep') return;
    const refuse = (why: string): void => {
      if (byHand) throw new AgentCannotSleepError(`${this.title} in session ${this.session.label} cannot be put to sleep: ${why}`);
      this.lastRefusedAt = Date.now();
      this.armIdleTimer();
    };
    let why = this.whyNotNow();
    if (why !== null) return refuse(why);
    const fg = await this.session.foreground().catch(() => null);
    if (fg === null) return refuse('its session has no holder to ask');
    if (fg.pgid === fg.childPid) return refuse('its shell has the terminal (the agent is not running in the foreground)');
    // Asked again: the state may have moved while the holder answered.
    if (this.phase !== 'awake') return;
    why = this.whyNotNow();
    if (why !== null) return refuse(why);
    const falling = this.fallAsleep(byHand ? 'by hand' : `idle ${Math.round((this.agent.sleepAfterMs ?? 0) / 1000)} s`);
    this.fallingAsleep = falling;
    void falling.finally(() => {
      if (this.fallingAsleep === falling) this.fallingAsleep = null;
    });
  }

  private async fallAsleep(why: string): Promise<void> {
    const { agent, session } = this;
    const t0 = Date.now();
    this.phase = 'falling-asleep';
    this.heldWrites = 0;
    agent.setState('sleeping');
    agent.sleepRecord = { phase: 'falling-asleep' } satisfies SleepRecord;
    // Cut and frozen in one turn: what viewers were sent until now is exactly the kept screen.
    const cut = cutKeptScreen(session.screen);
    this.showKept(cut.then((snapshot) => openKeptScreen(this.deps.screens, snapshot)));
    const saved = cut.then((snapshot) => saveKeptScreen(this.file, snapshot)).then(
      () => true,
      (err: Error) => {
        this.deps.log.warn(`session ${session.label}: could not save the screen of its sleeping ${this.title} (${err.message}); a server restart will show the live screen instead`);
        return false;
      },
    );
    await this.finishFallingAsleep(why, t0, saved);
  }

  /** Ends the agent; asleep once it is gone (and its screen saved), else awake again with a warning. */
  private async finishFallingAsleep(why: string, t0: number, saved: Promise<boolean>): Promise<void> {
    const { agent, session } = this;
    const ending = await endAgent(this.endingTarget(), this.timing.ending).catch((err: Error) => ({ ended: false as const, why: err.message }));
    await saved;
    if (this.isDisposed) return;
    if (!ending.ended) {
      this.deps.log.warn(`session ${session.label}: could not put ${this.title} to sleep: ${ending.why}`);
      this.phase = 'awake';
      this.showLive();
      // Gone before the agent reads idle again: a sleep given up leaves no kept screen behind.
      await removeKeptScreen(this.file).catch(() => undefined);
      if (this.isDisposed) return;
      agent.sleepRecord = undefined;
      agent.setState('idle');
      agent.setWarning(`tend could not put ${this.title} to sleep: ${ending.why}`);
      return; // input that waited meanwhile goes to the agent, which still runs
    }
    this.phase = 'asleep';
    agent.sleepRecord = { phase: 'asleep', asleepAt: Date.now() } satisfies SleepRecord;
    this.deps.log.info(`session ${session.label}: ${this.title} is asleep (${why}; ended by ${ending.by} in ${Date.now() - t0} ms)`);
  }

  private endingTarget(): EndingTarget {
    const session = this.session;
    return {
      foreground: () => session.foreground(),
      type: (bytes) => session.input(bytes),
      signalForeground: (signo) => session.signal(signo),
    };
  }

  // ---- wake --------------------------------------------------------------

  /** Wakes a sleeping agent (after its fall asleep, if that still runs). Resolves when it is ready; rejects if it could not be woken. */
  wake(): Promise<void> {
    if (this.phase === 'awake') return Promise.resolve();
    if (this.waking === null) {
      const waking = (async () => {
        if (this.fallingAsleep !== null) await this.fallingAsleep;
        // The sleep failed: the agent runs on, and takes the input that waited.
        if (this.phase === 'awake' || this.isDisposed) return;
        await this.runWake();
      })();
      this.waking = waking;
      waking.then(
        () => undefined,
        () => undefined,
      ).finally(() => {
        if (this.waking === waking) this.waking = null;
      });
    }
    return this.waking;
  }

  private async runWake(): Promise<void> {
    const { agent, session } = this;
    const t0 = Date.now();
    this.phase = 'waking';
    agent.setState('waking');
    agent.sleepRecord = { ...(agent.sleepRecord as SleepRecord | undefined), phase: 'waking' } satisfies SleepRecord;
    let startedSub: { dispose(): void } | null = null;
    const started = new Promise<void>((resolve) => {
      startedSub = agent.onStarted(() => resolve());
    });
    let typedMs = 0;
    let startedMs = 0;
    try {
      const fg = await session.foreground();
      // A server restarted mid-wake finds the agent running already: it started; only its quiet is waited for.
      const runsAlready = fg.pgid !== fg.childPid && fg.pgid !== 0;
      if (!runsAlready) {
        // A line the last server had typed without its Enter would run glued to this one: Ctrl-U erases it
        // (the shell's line editor, or the terminal's own kill character at a plain prompt).
        if (this.wakeBegunBefore) session.input(Uint8Array.of(0x15));
        this.wakeBegunBefore = false;
        await this.deps.agents.typeAgentLine(agent, 'resume');
        typedMs = Date.now() - t0;
        const outcome = await this.waitForStart(started);
        if (outcome !== 'started') throw new Error(outcome);
        startedMs = Date.now() - t0;
      }
      await this.waitForQuiet();
    } catch (err) {
      const why = (err as Error).message;
      this.failWake(why);
      // What each write that waited is answered (a script's send, an await): it was dropped, and why.
      throw new AgentWakeFailedError(`${this.title} in session ${session.label} could not be woken (${why}); this input was dropped, not typed into the shell`);
    } finally {
      (startedSub as { dispose(): void } | null)?.dispose();
    }
    if (this.isDisposed) return;
    this.phase = 'awake';
    agent.sleepRecord = undefined;
    agent.setState('idle');
    this.showLive();
    void removeKeptScreen(this.file).catch(() => undefined);
    this.deps.log.info(`session ${session.label}: ${this.title} woke in ${Date.now() - t0} ms (resume typed at ${typedMs} ms, started at ${startedMs} ms, then its output went quiet); ${this.heldWrites} writes that waited go to it now`);
    this.heldWrites = 0;
  }

  /** 'started' once its start hook came; else why the wake failed: the shell's prompt came back, or too long without a start. */
  private waitForStart(started: Promise<void>): Promise<string> {
    const typedAt = Date.now();
    return new Promise((resolve) => {
      let done = false;
      let sawAgent = false;
      const finish = (outcome: string) => {
        if (done) return;
        done = true;
        clearTimeout(limit);
        clearTimeout(poll);
        resolve(outcome);
      };
      const limit = setTimeout(() => finish(`it did not report its start within ${Math.round(this.timing.startTimeoutMs / 1000)} s`), this.timing.startTimeoutMs);
      let poll: NodeJS.Timeout | undefined;
      const ask = () => {
        poll = setTimeout(() => {
          this.session.foreground().then(
            (fg) => {
              if (done) return;
              if (fg.pgid !== fg.childPid) sawAgent = true;
              else if (sawAgent || Date.now() - typedAt >= this.timing.promptBackGraceMs) {
                finish('its resume ended at once and the shell prompt came back (is its conversation still there?)');
                return;
              }
              ask();
            },
            () => finish('the session ended'),
          );
        }, this.timing.pollMs);
      };
      ask();
      void started.then(() => finish('started'));
    });
  }

  /** Resolves once output has been quiet for readyQuietMs, or readyMaxWaitMs have passed. */
  private waitForQuiet(): Promise<void> {
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout;
      const done = () => {
        clearTimeout(quiet);
        clearTimeout(limit);
        sub.dispose();
        resolve();
      };
      const limit = setTimeout(done, this.timing.readyMaxWaitMs);
      const sub = this.session.onOutput(() => {
        clearTimeout(quiet);
        quiet = setTimeout(done, this.timing.readyQuietMs);
      });
      quiet = setTimeout(done, this.timing.readyQuietMs);
    });
  }

  /** The wake failed: the shell is shown again, and input that waited is dropped (typed into a shell, a prompt to an agent could run as commands). */
  private failWake(why: string): void {
    if (this.isDisposed) return;
    const { agent, session } = this;
    const held = this.heldWrites;
    this.heldWrites = 0;
    this.phase = 'awake';
    agent.sleepRecord = undefined;
    agent.setState('exited');
    this.showLive();
    void removeKeptScreen(this.file).catch(() => undefined);
    const dropped = held > 0 ? ` The input typed while it slept (${held} write${held === 1 ? '' : 's'}) was dropped, not typed into the shell: type it again once ${this.title} runs.` : '';
    agent.setWarning(`tend could not wake ${this.title}: ${why}.${dropped}`);
    this.deps.log.warn(`session ${session.label}: could not wake ${this.title}: ${why}${held > 0 ? `; ${held} writes dropped` : ''}`);
  }

  // ---- the kept screen ---------------------------------------------------

  private showKept(kept: Promise<HostedScreen>): void {
    this.kept = kept;
    kept.catch((err: Error) => {
      // Without a kept screen, the live one is shown: better than none.
      this.deps.log.warn(`session ${this.session.label}: the screen of its sleeping ${this.title} could not be kept (${err.message}); viewers see the live screen`);
      if (this.kept === kept) {
        this.kept = null;
        this.session.showLiveScreen();
      }
    });
    this.session.showKeptScreen(kept);
  }

  private showLive(): void {
    if (this.kept === null) return;
    this.session.showLiveScreen();
    this.disposeKept();
  }

  private disposeKept(): void {
    const kept = this.kept;
    this.kept = null;
    kept?.then((screen) => screen.dispose(), () => undefined);
  }

  // ---- after a restart ----------------------------------------------------

  /** A stored sleeping (or waking) agent: its kept screen shown again, and a sleep or wake caught by the restart finished. */
  private pickUpAfterRestart(): void {
    const { agent, session } = this;
    if (agent.state !== 'sleeping' && agent.state !== 'waking') return;
    if (session.status !== 'running') return;
    const record = agent.sleepRecord as SleepRecord | undefined;
    this.showKept(loadKeptScreen(this.file).then((loaded) => {
      if (!loaded.ok) throw new Error(loaded.why);
      return openKeptScreen(this.deps.screens, loaded.snapshot);
    }));
    if (agent.state === 'waking') {
      this.phase = 'asleep';
      this.wakeBegunBefore = true;
      this.wake().catch(() => undefined);
      return;
    }
    if (record?.phase === 'falling-asleep') {
      this.phase = 'falling-asleep';
      const falling = this.finishFallingAsleep('continued after a server restart', Date.now(), Promise.resolve(true));
      this.fallingAsleep = falling;
      void falling.finally(() => {
        if (this.fallingAsleep === falling) this.fallingAsleep = null;
      });
      return;
    }
    this.phase = 'asleep';
  }

  // ---- idle -------------------------------------------------------------

  /** When the agent is idle and has a sleep time: a check when that time will have passed. */
  private armIdleTimer(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const after = this.agent.sleepAfterMs;
    if (after === null || this.phase !== 'awake' || this.agent.state !== 'idle' || this.isDisposed) return;
    const due = this.idleSince() + after;
    this.idleTimer = setTimeout(() => this.idleCheck(), Math.max(0, due - Date.now()));
    this.idleTimer.unref();
  }

  /** The last of: it became idle, output, input, a refused automatic sleep. */
  private idleSince(): number {
    return Math.max(this.agent.since, this.lastOutputAt, this.lastInputAt, this.lastRefusedAt);
  }

  private idleCheck(): void {
    this.idleTimer = null;
    const after = this.agent.sleepAfterMs;
    if (after === null || this.phase !== 'awake' || this.agent.state !== 'idle') return;
    if (Date.now() < this.idleSince() + after) {
      this.armIdleTimer(); // output or input came meanwhile
      return;
    }
    this.sleep(false).catch((err: Error) => this.deps.log.warn(`session ${this.session.label}: ${err.message}`));
  }
}
