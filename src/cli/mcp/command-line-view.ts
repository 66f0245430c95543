// A command line as `tend mcp` shows it to an agent. Bounded: a pasted
// script of a thousand lines must not come back whole in every answer that
// names its command. And for a line `run` staged, the line the agent gave:
// the shell ran `source '…/<await id>.sh'`, which is what the session's
// history records and what would otherwise come back from commands, output
// and await_result, telling the agent nothing. This process remembers the
// lines it staged by their await id (the id names the script), so those
// answers show the agent's line, with the recorded one as ran_as. A line
// staged by another process (or before this one started) is shown as
// recorded.
import { z } from 'zod';

/** A command line longer than this is shown by its start. */
export const MAX_SHOWN_COMMAND_LINE_CHARS = 500;
/** A line as a progress message or a note quotes it, at most this many characters. */
const QUOTED_LINE_CHARS = 60;
/** Staged lines remembered at most; the oldest is forgotten first (an await's result is kept an hour anyway). */
const MAX_REMEMBERED_LINES = 1000;

/** The line a staged command is recorded as: the shell sourcing the await's script. */
const STAGED_LINE = /^source '[^']*\/(w[0-9a-f]{12})\.sh'$/;

/** Staged lines by await id, each already bounded (a 1 MiB script is kept as its start). */
const stagedLines = new Map<string, { line: string; cut: boolean }>();

export interface CommandLineView {
  command_line: string;
  /** Present (true) only when the line was cut. */
  command_line_cut?: true;
  /** Present when the shell ran the line another way: the line the session's history records. */
  ran_as?: string;
}

/** The fields of a command line in an answer's schema. */
export const commandLineFields = {
  command_line: z.string().describe(`The command line as the agent gave it (at most ${MAX_SHOWN_COMMAND_LINE_CHARS} characters: see command_line_cut)`),
  command_line_cut: z.literal(true).optional().describe(`Present when the line is longer than ${MAX_SHOWN_COMMAND_LINE_CHARS} characters and only its start is shown`),
  ran_as: z.string().optional().describe("Present when the shell ran the line another way: a staged line is sourced from a script, and this is the line the session's history records for it"),
};

function bounded(line: string): { line: string; cut: boolean } {
  return line.length > MAX_SHOWN_COMMAND_LINE_CHARS ? { line: line.slice(0, MAX_SHOWN_COMMAND_LINE_CHARS), cut: true } : { line, cut: false };
}

/** A line as given, bounded. */
export function givenLineView(line: string): CommandLineView {
  const shown = bounded(line);
  return { command_line: shown.line, ...(shown.cut ? { command_line_cut: true } : {}) };
}

/** Remembers that the await `awaitId` ran `line` staged, so the answers about it can show `line`. */
export function rememberStagedLine(awaitId: string, line: string): void {
  stagedLines.delete(awaitId);
  stagedLines.set(awaitId, bounded(line));
  if (stagedLines.size > MAX_REMEMBERED_LINES) stagedLines.delete(stagedLines.keys().next().value!);
}

/** A line as the session's history recorded it: the agent's own line when this process staged it, else the recorded one. */
export function recordedLineView(recorded: string): CommandLineView {
  const id = STAGED_LINE.exec(recorded)?.[1];
  const staged = id === undefined ? undefined : stagedLines.get(id);
  if (staged === undefined) return givenLineView(recorded);
  return { command_line: staged.line, ...(staged.cut ? { command_line_cut: true } : {}), ran_as: recorded };
}

/** A line quoted in a message: on one line, in backticks, its start when long. */
export function quotedLine(line: string): string {
  const oneLine = line.replace(/\s+/g, ' ').trim();
  return `\`${oneLine.length > QUOTED_LINE_CHARS ? `${oneLine.slice(0, QUOTED_LINE_CHARS - 1)}…` : oneLine}\``;
}
