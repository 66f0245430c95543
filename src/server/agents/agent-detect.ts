// An agent a person started in a tend shell without tend's hooks (`claude`
// typed at the prompt, no `tend hooks install`) sends tend nothing, so tend
// would show no agent and no hint why. When a session's output goes quiet,
// the detector asks who holds its terminal: a foreground process group that is
// not the shell and whose program is one of the agents' makes that agent known
// (state starting, a warning saying what to run); the shell holding the
// terminal again ends it (exited), as no hook will say so.
//
// Busy sessions pay nothing measurable: output only stamps a time; the check
// waits for quiet, runs at most once per CHECK_MIN_INTERVAL_MS per session,
// costs one holder STATE query and one read of /proc, and nothing re-arms it
// on an idle session. Sessions whose agent reports by its hooks are never
// queried. Only Linux says a process's command line (/proc); elsewhere the
// detector does nothing.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import { AGENT_KINDS, type AgentKind } from '../../protocol/api/agents.js';
import type { Logger } from '../log.js';
import type { Session } from '../session.js';
import type { SessionAgent } from './session-agent.js';
import { isShellProgram } from './shell-program.js';

/** Output quiet this long before a check: an agent's start settles, and a busy session is never asked. */
export const DETECT_QUIET_MS = 500;
/** How many times in a row a check that found the terminal's group leader gone is asked again unprompted. */
const ASK_AGAIN_TIMES = 3;
/** At most one check per session this often, however the output comes and goes. */
export const DETECT_MIN_INTERVAL_MS = 5_000;

/**
 * Programs that run a script named by their first argument that is not an
 * option: an agent installed from npm runs as `node /usr/bin/claude`.
 */
const SCRIPT_RUNNERS = new Set(['node', 'nodejs', 'bun']);
/** Scripts' extensions, dropped before a script's name is matched (`codex.js` is codex). */
const SCRIPT_EXTENSION = /\.[cm]?js$/;
/** The agents' npm packages: a script run by its path inside one (`…/@anthropic-ai/claude-code/cli.js`) is that agent. */
const AGENT_PACKAGES: Readonly<Record<AgentKind, string>> = {
  claude: '@anthropic-ai/claude-code',
  codex: '@openai/codex',
  gemini: '@google/gemini-cli',
};

/** What the detector needs of the agent registry. */
export interface DetectorAgents {
  of(sessionId: string): SessionAgent | undefined;
  noticed(session: Session, kind: AgentKind, warning: string): SessionAgent;
}

export interface AgentDetectorDeps {
  agents: DetectorAgents;
  log: Logger;
  /** A process's argv, or null where the system does not tell (the default reads Linux's /proc). */
  commandLine?: (pid: number) => string[] | null;
  quietMs?: number;
  minIntervalMs?: number;
}

/** Which agent a command line runs, or null. Conservative: `vim claude.md`, `less claude` are not an agent. */
export function agentOfCommandLine(argv: readonly string[]): AgentKind | null {
  const program = argv[0];
  if (program === undefined || program === '') return null;
  const name = basename(program);
  const byName = kindOfProgramName(name);
  if (byName !== null) return byName;
  if (!SCRIPT_RUNNERS.has(name)) return null;
  const script = argv.slice(1).find((a) => !a.startsWith('-'));
  if (script === undefined) return null;
  return kindOfProgramName(basename(script).replace(SCRIPT_EXTENSION, '')) ?? kindOfPackagePath(script);
}

function kindOfProgramName(name: string): AgentKind | null {
  return AGENT_KINDS.find((kind) => AGENT_FLAVOURS[kind].program === name) ?? null;
}

function kindOfPackagePath(path: string): AgentKind | null {
  return AGENT_KINDS.find((kind) => path.includes(`/node_modules/${AGENT_PACKAGES[kind]}/`)) ?? null;
}

/** Process `pid`'s argv from Linux's /proc; null elsewhere or when it is gone. */
export function procCommandLine(pid: number): string[] | null {
  if (process.platform !== 'linux') return null;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    // A program that set its title (Node's process.title) leaves the rest of the area as NULs.
    while (args.length > 0 && args[args.length - 1] === '') args.pop();
    return args.length === 0 ? null : args;
  } catch {
    return null;
  }
}

/** The warning of an agent found running with no hook of it heard: what to run so its hooks reach tend. */
export function hooksMissingWarning(kind: AgentKind): string {
  const title = AGENT_FLAVOURS[kind].title;
  const fix = kind === 'claude'
    ? 'run `tend hooks install claude` (or start it with `tend agent claude`, which passes tend\'s hooks for the run)'
    : kind === 'codex'
      ? 'run `tend hooks install codex`, then trust them in Codex\'s /hooks screen'
      : `run \`tend hooks install ${kind}\``;
  // Starts with HOOKS_SILENT_PREFIX, so the agent's first hook clears it.
  return `no hook of ${title} has reached tend: ${fix}`;
}

/** An agent tend knows only from the terminal: not launched by tend, no hook ever heard. */
function knownWithoutHooks(agent: SessionAgent): boolean {
  return !agent.launchedByTend && !agent.hooksSeen;
}

export class AgentDetector extends DisposableBase {
  private readonly followers = new Map<string, SessionFollower>();
  private readonly commandLine: (pid: number) => string[] | null;

  constructor(private readonly deps: AgentDetectorDeps) {
    super();
    this.commandLine = deps.commandLine ?? procCommandLine;
    this.register(toDisposable(() => {
      for (const f of this.followers.values()) f.dispose();
      this.followers.clear();
    }));
  }

  /** Watches `session` until forget() (or the detector's disposal). */
  follow(session: Session): void {
    if (this.isDisposed || this.followers.has(session.id)) return;
    // No command lines to read on this system: nothing to follow.
    if (this.deps.commandLine === undefined && process.platform !== 'linux') return;
    this.followers.set(session.id, new SessionFollower(session, {
      agents: this.deps.agents,
      log: this.deps.log,
      commandLine: this.commandLine,
      quietMs: this.deps.quietMs ?? DETECT_QUIET_MS,
      minIntervalMs: this.deps.minIntervalMs ?? DETECT_MIN_INTERVAL_MS,
    }));
  }

  forget(sessionId: string): void {
    this.followers.get(sessionId)?.dispose();
    this.followers.delete(sessionId);
  }
}

interface FollowerDeps {
  agents: DetectorAgents;
  log: Logger;
  commandLine: (pid: number) => string[] | null;
  quietMs: number;
  minIntervalMs: number;
}

/** What a check is for, decided before anything is asked. */
type Purpose = 'notice' | 'watch-exit';

class SessionFollower implements Disposable {
  private lastOutputAt = 0;
  private lastCheckAt = Number.NEGATIVE_INFINITY;
  /** When a check last found the shell holding the terminal (Date.now()). */
  private shellSeenAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  /** Checks left to ask again after one found the terminal's group leader gone. */
  private asksAgainLeft = ASK_AGAIN_TIMES;
  private disposed = false;
  private readonly output: Disposable;

  constructor(private readonly session: Session, private readonly deps: FollowerDeps) {
    this.output = session.onOutput(() => {
      this.lastOutputAt = performance.now();
      if (this.timer === null) this.arm(this.deps.quietMs);
    });
  }

  dispose(): void {
    this.disposed = true;
    this.output.dispose();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.due(), Math.max(0, ms));
    this.timer.unref();
  }

  private due(): void {
    this.timer = null;
    if (this.disposed) return;
    const now = performance.now();
    const quietFor = now - this.lastOutputAt;
    if (quietFor < this.deps.quietMs) return this.arm(this.deps.quietMs - quietFor);
    const sinceCheck = now - this.lastCheckAt;
    if (sinceCheck < this.deps.minIntervalMs) return this.arm(this.deps.minIntervalMs - sinceCheck);
    if (this.checking) return this.arm(this.deps.quietMs);
    const purpose = this.purpose();
    if (purpose === null) return;
    this.lastCheckAt = now;
    this.checking = true;
    void this.check(purpose)
      .then((answer) => {
        // A program caught on its way out is asked about again: the quiet that follows its exit brings no output to arm a check.
        // A few times only: a group whose leader is gone for good (`echo x | less`) is not asked about for as long as it runs.
        if (answer === 'answered') this.asksAgainLeft = ASK_AGAIN_TIMES;
        else if (this.asksAgainLeft > 0 && this.timer === null && !this.disposed) {
          this.asksAgainLeft--;
          this.arm(this.deps.quietMs);
        }
      })
      .catch((err: Error) => this.deps.log.warn(`session ${this.session.label}: could not tell which program holds its terminal: ${err.message}`))
      .finally(() => {
        this.checking = false;
      });
  }

  private purpose(): Purpose | null {
    if (this.session.status !== 'running') return null;
    const agent = this.deps.agents.of(this.session.id);
    if (agent === undefined || agent.state === 'exited') return 'notice';
    if (knownWithoutHooks(agent) && agent.state !== 'sleeping' && agent.state !== 'waking') return 'watch-exit';
    // An agent whose hooks report (or that tend launched and watches itself): nothing to ask.
    return null;
  }

  private async check(purpose: Purpose): Promise<'answered' | 'ask-again'> {
    const fg = await this.session.foreground();
    if (this.disposed || fg.pgid === 0) return 'answered';
    const argv = fg.pgid === fg.childPid ? null : this.deps.commandLine(fg.pgid);
    if (fg.pgid !== fg.childPid && argv === null) return 'ask-again'; // gone already (a zombie's command line is empty), or unreadable
    // A login shell's name starts with '-'.
    const shellHolds = argv === null || isShellProgram(argv[0]!.replace(/^-/, ''));
    const agent = this.deps.agents.of(this.session.id);
    if (shellHolds) {
      if (purpose === 'watch-exit' && agent !== undefined && knownWithoutHooks(agent) && agent.state !== 'exited' && agent.state !== 'sleeping' && agent.state !== 'waking') {
        agent.setState('exited');
        this.deps.log.info(`session ${this.session.label}: ${agent.flavour.title} is gone (its shell holds the terminal again), no hook of it heard`);
      }
      // After the exit's own time: the next run of an agent is one begun since.
      this.shellSeenAt = Date.now();
      return 'answered';
    }
    const kind = agentOfCommandLine(argv!);
    if (kind === null || purpose !== 'notice') return 'answered';
    if (agent !== undefined) {
      if (agent.state !== 'exited') return 'answered';
      // An agent whose end its hooks reported may still be on its way out: only a run begun after the shell had the terminal is a new one.
      if (this.shellSeenAt < agent.since) return 'answered';
    }
    this.deps.agents.noticed(this.session, kind, hooksMissingWarning(kind));
    return 'answered';
  }
}
