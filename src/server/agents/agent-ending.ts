// Ending an agent its own way, for sleep: Ctrl-C at its prompt, as a person
// quits Claude Code, Codex or Gemini CLI (twice: the first only asks "press
// again to exit"), until its shell has the terminal again. Never `/exit` or
// `/quit`: typed at the prompt those enter the conversation, which the wake
// would then resume. An agent that ignores Ctrl-C gets SIGTERM; one that
// outlives that too is left running (the caller says so to a person).
import { constants as osConstants } from 'node:os';

/** What ending needs of the session. */
export interface EndingTarget {
  /** The PTY's foreground process group and the session's own process (its shell). */
  foreground(): Promise<{ pgid: number; childPid: number }>;
  /** Bytes for the agent, past the input gate (this is tend's own typing). */
  type(bytes: Uint8Array): void;
  /** A signal to the PTY's foreground process group. */
  signalForeground(signo: number): void;
}

export interface EndingTiming {
  /** Ctrl-C presses at most. */
  ctrlCPresses: number;
  /** Between presses: long enough for the agent to draw its "again to exit" and take the next as the second. */
  ctrlCGapMs: number;
  /** After the last press, before SIGTERM: an agent may save its conversation on the way out. */
  termAfterMs: number;
  /** After SIGTERM, before giving up. */
  giveUpAfterMs: number;
  /** How often the foreground is asked while waiting. */
  pollMs: number;
}

export const DEFAULT_ENDING_TIMING: EndingTiming = {
  ctrlCPresses: 3,
  ctrlCGapMs: 400,
  termAfterMs: 3000,
  giveUpAfterMs: 10_000,
  pollMs: 100,
};

const CTRL_C = Uint8Array.of(0x03);

export type EndingOutcome =
  /** Its shell has the terminal again; `by` says what it took. */
  | { ended: true; by: 'not-running' | 'ctrl-c' | 'sigterm' }
  | { ended: false; why: string };

/** Whether the shell has the terminal, i.e. nothing (no agent) runs in the foreground. */
async function shellHasTerminal(target: EndingTarget): Promise<boolean> {
  const { pgid, childPid } = await target.foreground();
  return pgid === childPid;
}

/** Asks until the shell has the terminal, or `ms` have passed. */
async function waitForShell(target: EndingTarget, ms: number, pollMs: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await shellHasTerminal(target)) return true;
    const left = until - Date.now();
    if (left <= 0) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, left)));
  }
}

export async function endAgent(target: EndingTarget, timing: EndingTiming = DEFAULT_ENDING_TIMING): Promise<EndingOutcome> {
  // 0: the holder cannot tell (no PTY foreground to ask); nothing is pressed or signalled blind.
  if ((await target.foreground()).pgid === 0) return { ended: false, why: 'tend cannot tell which process has the terminal' };
  if (await shellHasTerminal(target)) return { ended: true, by: 'not-running' };
  for (let press = 0; press < timing.ctrlCPresses; press++) {
    target.type(CTRL_C);
    if (await waitForShell(target, timing.ctrlCGapMs, timing.pollMs)) return { ended: true, by: 'ctrl-c' };
  }
  if (await waitForShell(target, timing.termAfterMs, timing.pollMs)) return { ended: true, by: 'ctrl-c' };
  // Asked again just before: the shell itself must never be the one signalled.
  if (await shellHasTerminal(target)) return { ended: true, by: 'ctrl-c' };
  target.signalForeground(osConstants.signals.SIGTERM);
  if (await waitForShell(target, timing.giveUpAfterMs, timing.pollMs)) return { ended: true, by: 'sigterm' };
  const seconds = Math.round((timing.ctrlCPresses * timing.ctrlCGapMs + timing.termAfterMs + timing.giveUpAfterMs) / 1000);
  return { ended: false, why: `it still ran ${seconds} s after ${timing.ctrlCPresses} Ctrl-C presses and a SIGTERM` };
}
