// What `tend`'s exit status means: one table, shown in `tend help` and in
// every verb's --help, and the only place the numbers are spelled.

export const EXIT = {
  ok: 0,
  /** The server refused, the session is gone, the server could not be reached: the message says which. */
  failed: 1,
  /** The command line itself is wrong; nothing was done. */
  usage: 2,
  /** `tend await` on an agent: its turn failed (an API error, StopFailure); the error is on stderr. */
  agentTurnFailed: 3,
  /** `tend await` on an agent: its turn was interrupted (Esc, Ctrl-C) before it answered. */
  agentTurnInterrupted: 4,
  /**
   * The server is another build of tend that shares no API version with this
   * one: nothing was asked of it (as sysexits.h's EX_PROTOCOL).
   */
  incompatible: 76,
  /** A wait ran out (`tend await --timeout`), as timeout(1) exits. */
  timedOut: 124,
  /** The reader of stdout went away (`tend search … | head`): 128 + SIGPIPE, as `seq | head` gives. */
  outputClosed: 141,
} as const;

/** A verb's own meaning for an exit status (search's 1, await's 124), listed after the common ones. */
export interface ExitMeaning {
  /** A number, or words for a range ("the command's"). */
  status: number | string;
  meaning: string;
}

const COMMON_EXITS: ExitMeaning[] = [
  { status: EXIT.ok, meaning: 'done' },
  { status: EXIT.failed, meaning: 'failed: the server refused or was not reached (the message says why)' },
  { status: EXIT.usage, meaning: 'the command line is wrong; nothing was done' },
  { status: EXIT.incompatible, meaning: 'the server is a tend this one cannot talk to; nothing was done (the message says what to do)' },
  { status: EXIT.outputClosed, meaning: 'the reader of the output went away (as SIGPIPE ends a program)' },
];

/** The "Exit status" paragraph: the common meanings, then (and overriding) the verb's own. */
export function exitStatusHelp(own: readonly ExitMeaning[] = []): string {
  const overridden = new Set(own.map((e) => e.status));
  const rows = [...COMMON_EXITS.filter((e) => !overridden.has(e.status)), ...own]
    .sort((a, b) => order(a.status) - order(b.status));
  const width = Math.max(...rows.map((e) => String(e.status).length));
  return `Exit status:\n${rows.map((e) => `  ${String(e.status).padEnd(width)}  ${e.meaning}`).join('\n')}`;
}

/** Numbers in order; words (a range such as "the command's") last. */
function order(status: number | string): number {
  return typeof status === 'number' ? status : Number.MAX_SAFE_INTEGER;
}
