// What an await comes to, and the rule that binds it to its command.
//
// The await types its line only at the shell's prompt with no command
// running, after noting the session's last command number (`after`). The
// shell runs typed lines in order, so the first command it starts after that
// (number after + 1) is the one the line started — unless the line never
// reached the shell (a program reading the terminal took it, other input got
// there first). The command's own line, which the shell reports with the
// command (OSC 633;E) or the index reads off the screen, tells these apart:
// a first command whose line is not the typed one is someone else's, and the
// await says so instead of handing back that command's result.
import type { CommandInfo, FinishedCommand } from '../commands/index.js';

import type { AwaitedCommand, ApiErrorCode } from '../../protocol/api/index.js';
export type { AwaitedCommand };

export interface AwaitResult {
  exitCode: number | null;
  /** The command's output as the screen held it at its end mark; null when it had already scrolled out. */
  output: string | null;
  command: AwaitedCommand;
}

/** R: what a done await hands back (a command's result; an agent's turn, agent-await.ts). */
export type AwaitOutcome<R = AwaitResult> =
  | { state: 'pending' }
  | { state: 'done'; result: R }
  | { state: 'failed'; code: ApiErrorCode; message: string };

export type SettledOutcome<R = AwaitResult> = Exclude<AwaitOutcome<R>, { state: 'pending' }>;

/** The stable code of an await whose line did not start the command that followed it. */
export const INPUT_NOT_RUN = 'input_not_run';

/**
 * Whether `commandLine` (as the index recorded it) is the line that was typed.
 * An empty line is one the index could not learn (no 633;E and nothing
 * readable on the screen): it is taken as the typed one, as it is the first
 * command after the prompt the line was typed at.
 */
export function isTypedLine(commandLine: string, typedLine: string): boolean {
  const recorded = commandLine.trim();
  return recorded === '' || recorded === typedLine.trim();
}

/**
 * The outcome once `first`, the first command the session finished after
 * the await's `after` number, is known: its result if it is the typed line's
 * command, else a failure naming the command that ran instead.
 */
export function outcomeOf(first: FinishedCommand, typedLine: string, sessionLabel: string): SettledOutcome {
  if (isTypedLine(first.commandLine, typedLine)) {
    return { state: 'done', result: { exitCode: first.exitCode, output: first.output, command: describeCommand(first) } };
  }
  return {
    state: 'failed',
    code: INPUT_NOT_RUN,
    message:
      `the input did not start a command of its own: the first command session ${sessionLabel} ran after it was typed ` +
      `is command ${first.number} (${quoteLine(first.commandLine)}), so its result is not this await's. ` +
      'Something read the input before the shell did (a program reading the terminal), or other input reached the shell first; ' +
      `\`tend commands ${sessionLabel}\` lists what ran`,
  };
}

/**
 * The failure of an await whose line the shell ended (its end mark came)
 * without starting a command: nothing ran for it.
 */
export function lineEndedOutcome(sessionLabel: string): SettledOutcome {
  return {
    state: 'failed',
    code: INPUT_NOT_RUN,
    message:
      `session ${sessionLabel}'s shell finished with the typed line without starting a command for it, so nothing ran: ` +
      'the shell rejected it (a syntax error, a history expansion that failed), the line was cancelled, or something reading the terminal took it',
  };
}

/** The failure of an await whose command has left the index (more than MAX_COMMANDS_KEPT ran since). */
export function forgottenOutcome(number: number, sessionLabel: string): SettledOutcome {
  return { state: 'failed', code: 'command_forgotten', message: `session ${sessionLabel} no longer keeps command ${number} in its command index` };
}

function describeCommand(c: CommandInfo): AwaitedCommand {
  return { number: c.number, commandLine: c.commandLine, cwd: c.cwd, startedAt: c.startedAt, endedAt: c.endedAt };
}

const QUOTED_LINE_MAX_CHARS = 80;

/** A command line for a message: back-quoted, cut short. */
export function quoteLine(line: string): string {
  const one = line.replace(/\s+/g, ' ').trim();
  if (one === '') return 'its line unknown';
  return `\`${one.length > QUOTED_LINE_MAX_CHARS ? `${one.slice(0, QUOTED_LINE_MAX_CHARS - 1)}…` : one}\``;
}
