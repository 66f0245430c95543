// How a program's end reads, the same on every surface (tend ls, screen,
// attach, await, the browser app): "exited with code 2", "was killed by
// signal 9 (SIGKILL)". The holder reports a signal death as code -1 plus the signal
// (the EXIT frame keeps that shape); everywhere above it a signal death is
// code null and the signal, so no one reads -1 as the program's own code.
// DOM- and Node-neutral: the browser app imports it too.

export interface ExitStatus {
  /** The program's exit code; null when a signal ended it (or nothing is known). */
  code: number | null;
  /** The signal that ended it, null when it exited by itself. */
  signal: number | null;
}

// Linux's numbers (the holders run there; 1-6, 8, 9, 11 and 13-15 are the
// same on every Unix). Real-time signals (34-64) have no fixed names.
const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: 'SIGHUP', 2: 'SIGINT', 3: 'SIGQUIT', 4: 'SIGILL', 5: 'SIGTRAP', 6: 'SIGABRT', 7: 'SIGBUS', 8: 'SIGFPE',
  9: 'SIGKILL', 10: 'SIGUSR1', 11: 'SIGSEGV', 12: 'SIGUSR2', 13: 'SIGPIPE', 14: 'SIGALRM', 15: 'SIGTERM',
  16: 'SIGSTKFLT', 17: 'SIGCHLD', 18: 'SIGCONT', 19: 'SIGSTOP', 20: 'SIGTSTP', 21: 'SIGTTIN', 22: 'SIGTTOU',
  23: 'SIGURG', 24: 'SIGXCPU', 25: 'SIGXFSZ', 26: 'SIGVTALRM', 27: 'SIGPROF', 28: 'SIGWINCH', 29: 'SIGIO',
  30: 'SIGPWR', 31: 'SIGSYS',
};

function signalName(signal: number): string | undefined {
  return SIGNAL_NAMES[signal];
}

/** The status from the holder's pair (code −1 and a signal, or a code and signal 0), or from an older record that stored −1. */
export function exitStatusOf(code: number | null, signal: number | null): ExitStatus {
  if (signal !== null && signal > 0) return { code: null, signal };
  return { code, signal: null };
}

/** What the program did, after a subject: "exited with code 2", "was killed by signal 9 (SIGKILL)", or "ended" when nothing is known. */
export function describeExit(status: ExitStatus): string {
  const { code, signal } = exitStatusOf(status.code, status.signal);
  if (signal !== null) {
    const name = signalName(signal);
    return `was killed by signal ${signal}${name === undefined ? '' : ` (${name})`}`;
  }
  return code === null ? 'ended' : `exited with code ${code}`;
}

/** For a status column: "exited (2)", "killed (SIGKILL)", "exited". */
export function describeExitShort(status: ExitStatus): string {
  const { code, signal } = exitStatusOf(status.code, status.signal);
  if (signal !== null) return `killed (${signalName(signal) ?? `signal ${signal}`})`;
  return code === null ? 'exited' : `exited (${code})`;
}
