// The history tools of `tend mcp`: what a session's shell ran (commands),
// the exact output of one command (output, read whole or a range of lines at
// a time), and lines found in the history of one session or all (search).
// All read, none types: they are safe to call while a command runs, and
// again after a server restart.
import { z } from 'zod';
import { CliError } from '../../cli-error.js';
import {
  API_ROUTES,
  MAX_SEARCH_PATTERN_CHARS,
  type CommandOutputReply,
  type CommandRecord,
  type SearchAllReply,
} from '../../../protocol/api/index.js';
import { describeExit } from '../../../protocol/exit-status.js';
import { keepHead, keepTail, maxCharsArg, splitLines, textCutSchema } from '../bounded-text.js';
import { commandLineFields, recordedLineView } from '../command-line-view.js';
import type { McpApi } from '../mcp-api.js';
import { boundHits, matchFinder, type MatchFinder } from '../search-hits.js';
import { sessionArg } from '../session-view.js';
import { defineTool, ToolError, type AnyMcpTool } from '../tool-kit.js';

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as const;

/** How to get commands and their output from a shell that does not report them. */
const ENABLE_INTEGRATION =
  "tend learns each command's start, end and exit code from the shell's integration marks: new_session starts a shell with them (bash, zsh and fish get them by themselves); in a shell tend did not start, run `eval \"$(tend shell-integration bash)\"` (zsh: the same; fish: `tend shell-integration fish | source`) and the commands after it are listed";

/**
 * A command the shell never marked as ended runs on only while its session
 * does: the history cannot tell a shell that went away mid-command. Says so
 * for command `number` when the session `target` has ended; undefined while
 * it runs.
 */
async function endedBeforeCommand(api: McpApi, target: string, number: number): Promise<string | undefined> {
  const session = await api.session(target);
  // Elsewhere: another server holds the session, where the command may well run on.
  if (session.status === 'running' || session.status === 'elsewhere') return undefined;
  const how = session.status === 'exited' ? `its program ${describeExit({ code: session.exitCode, signal: session.exitSignal })}` : 'its process is gone';
  return `the session ended (${how}) before its shell marked the end of command ${number}, so that command has no exit code`;
}

// ---- output ---------------------------------------------------------------

/** A command as output takes it: its number, or "last". Models send numbers as strings too. */
const commandArg = z
  .union([z.number().int().min(1), z.string().regex(/^(last|[1-9][0-9]{0,9})$/)])
  .optional()
  .describe('The command: its number (the commands tool lists them; run answers it) or "last" (the default: the newest command, which may still be running).');

const outputInput = z.object({
  session: sessionArg,
  command: commandArg,
  from_line: z.number().int().min(1).optional().describe('Read from this line (1-based) instead of the end: for an output too long for one answer, read it piece by piece. Each piece says where the next starts.'),
  max_lines: z.number().int().min(1).max(1_000_000).optional().describe('Read at most this many lines from from_line (line 1 when from_line is not given); default: as many as fit in max_chars.'),
  max_chars: maxCharsArg,
});

const outputOutput = z.object({
  number: z.number().int().describe("The command's number in its session (stays the same: read it again by this number, not by \"last\")."),
  ...commandLineFields,
  exit_code: z.number().int().nullable().describe('Null while it runs, or when the shell reported none.'),
  running: z.boolean().describe('True while the command runs: text is its output so far. False too when the session ended before the command did (note says so).'),
  total_lines: z.number().int().describe('Lines of its whole output (so far, while it runs).'),
  text: z.string().describe('The exact output, as the terminal showed it (no prompt, no command line, no markers); bounded: see cut.'),
  cut: textCutSchema,
  note: z.string().optional().describe("Present when the session's program ended before this command did: it never got an exit code."),
});

function commandQuery(command: z.infer<typeof commandArg>): string {
  return command === undefined ? 'last' : String(command);
}

/** An output route refusal said for an agent: which numbers there are, or how to get commands at all. */
async function outputRefusal(err: CliError, api: McpApi, session: string, asked: string): Promise<Error> {
  if (err.code !== 'not_found') return err;
  if (asked === 'last') return new ToolError('no_commands', err.message, { hint: `run runs a command and reports it; if commands were typed there and none is known, ${ENABLE_INTEGRATION}` });
  const list = await api.again<CommandRecord[]>(API_ROUTES.listCommands, { target: session });
  const first = list[0]?.number ?? null;
  const last = list[list.length - 1]?.number ?? null;
  const range = first === null ? 'it has no commands yet' : `its commands are numbered ${first}–${last}`;
  return new ToolError('no_command', `the session has no command ${asked}; ${range}`, {
    first_command: first,
    last_command: last,
    hint: first === null ? `run runs a command; ${ENABLE_INTEGRATION}` : 'the commands tool lists them with their command lines; output without command reads the last',
  });
}

const output = defineTool({
  name: 'output',
  title: "A command's output",
  description: `The exact output of one command a shell session ran (between the shell's own marks: no prompt, no command line, no markers), with its exit code.
Use it to read again what a command printed (run answers the output too), to read output that was too long for one answer, or to follow a command that still runs (running: true; text is what it printed so far).
Without from_line: the whole output, or when it is longer than max_chars its last lines, with cut saying how many lines were left out. With from_line (and max_lines): those lines from the start of the output, as many as fit, with cut saying where the next piece starts; read a long output by calling again with that from_line.
Fails when the session has no such command (the error gives the numbers there are), when the output has scrolled out of what the session keeps (output_gone: search may still find lines of it), or when the shell does not report commands (the error says how to enable that).`,
  input: outputInput,
  output: outputOutput,
  hints: READ_ONLY,
  async run(args, call) {
    const asked = commandQuery(args.command);
    let reply: CommandOutputReply;
    try {
      reply = await call.api.again<CommandOutputReply>(API_ROUTES.commandOutput, { target: args.session }, undefined, { cmd: asked });
    } catch (err) {
      throw err instanceof CliError ? await outputRefusal(err, call.api, args.session, asked) : err;
    }
    const maxChars = args.max_chars ?? call.maxChars;
    const lines = splitLines(reply.text);
    const endedFirst = reply.complete ? undefined : await endedBeforeCommand(call.api, args.session, reply.number);
    const head = {
      number: reply.number,
      ...recordedLineView(reply.commandLine),
      exit_code: reply.exitCode,
      running: !reply.complete && endedFirst === undefined,
      total_lines: lines.length,
      ...(endedFirst !== undefined ? { note: `${endedFirst}; text is all it printed` } : {}),
    };
    const n = reply.number;
    if (args.from_line === undefined && args.max_lines === undefined) {
      const tail = keepTail(reply.text, maxChars, (lastOmitted) => `output with command ${n} and from_line 1 reads lines 1–${lastOmitted} from the start, a piece at a time`);
      return { ...head, ...tail };
    }
    const from = args.from_line ?? 1;
    if (from > Math.max(1, lines.length)) {
      throw new ToolError('bad_range', `command ${n}'s output has ${lines.length} lines; from_line takes 1–${Math.max(1, lines.length)}`, { total_lines: lines.length });
    }
    const end = args.max_lines === undefined ? lines.length : Math.min(lines.length, from - 1 + args.max_lines);
    const rangeLines = lines.slice(from - 1, end);
    const outside = reply.text.length - rangeLines.reduce((c, l) => c + l.length + 1, 0);
    const more = args.max_lines === undefined ? '' : ` and max_lines ${args.max_lines}`;
    const piece = keepHead(rangeLines, from, lines.length, maxChars, (next) => `output with command ${n}, from_line ${next}${more} reads on`, Math.max(0, outside));
    return { ...head, ...piece };
  },
});

// ---- commands ---------------------------------------------------------------

const DEFAULT_LISTED_COMMANDS = 20;
const MAX_LISTED_COMMANDS = 200;
/** Characters a listed command costs besides its command line and cwd (its keys, times, numbers). */
const COMMAND_OVERHEAD_CHARS = 200;

const commandSchema = z.object({
  number: z.number().int().describe('Names the command for output.'),
  ...commandLineFields,
  exit_code: z.number().int().nullable().describe('Null while it runs, or when the shell reported none.'),
  running: z.boolean(),
  started_at: z.string().describe('ISO 8601.'),
  ended_at: z.string().nullable().describe('ISO 8601; null while it runs.'),
  duration_ms: z.number().int().describe('How long it took (while it runs: so far).'),
  cwd: z.string().nullable().describe('The directory the shell was in when it ran.'),
});

const commandsOutput = z.object({
  commands: z.array(commandSchema).describe('Oldest first; the newest last.'),
  total: z.number().int().describe('Commands the session knows of, all told.'),
  omitted: z.number().int().describe('Older commands not listed here.'),
  note: z.string().nullable().describe('Why the list is empty or short, or that the session ended during its last command, and what to do; null when there is nothing to say.'),
});

function listedCommand(c: CommandRecord, now: number): z.infer<typeof commandSchema> {
  return {
    number: c.number,
    ...recordedLineView(c.commandLine),
    exit_code: c.exitCode,
    running: c.running,
    started_at: new Date(c.startedAt).toISOString(),
    ended_at: c.endedAt === null ? null : new Date(c.endedAt).toISOString(),
    duration_ms: Math.max(0, (c.endedAt ?? now) - c.startedAt),
    cwd: c.cwd,
  };
}

const commands = defineTool({
  name: 'commands',
  title: "The commands a shell ran",
  description: `The commands a shell session ran, oldest first: number, command line, exit code, whether it still runs, when it started and ended, how long it took, and the directory it ran in.
Use it to see what happened in a session (what failed, what is still running) and to find a command's number for the output tool.
Lists the last 20 by default (last: up to 200); the list is bounded by max_chars, the oldest left out first, and note says how many were. An empty list means no command has run yet, or the shell does not report its commands: note says how to enable that.`,
  input: z.object({
    session: sessionArg,
    last: z.number().int().min(1).max(MAX_LISTED_COMMANDS).optional().describe(`How many of the newest commands to list (1–${MAX_LISTED_COMMANDS}; default ${DEFAULT_LISTED_COMMANDS}).`),
    max_chars: maxCharsArg,
  }),
  output: commandsOutput,
  hints: READ_ONLY,
  async run(args, call) {
    const all = await call.api.again<CommandRecord[]>(API_ROUTES.listCommands, { target: args.session });
    const now = Date.now();
    const maxChars = args.max_chars ?? call.maxChars;
    const unended = all.find((c) => c.running);
    const endedFirst = unended === undefined ? undefined : await endedBeforeCommand(call.api, args.session, unended.number);
    const listed = all.slice(-(args.last ?? DEFAULT_LISTED_COMMANDS)).map((c) => listedCommand(endedFirst === undefined ? c : { ...c, running: false }, now));
    const charsOf = (c: z.infer<typeof commandSchema>) => c.command_line.length + (c.ran_as?.length ?? 0) + (c.cwd?.length ?? 0) + COMMAND_OVERHEAD_CHARS;
    let chars = listed.reduce((n, c) => n + charsOf(c), 0);
    while (listed.length > 1 && chars > maxChars) chars -= charsOf(listed.shift()!);
    const omitted = all.length - listed.length;
    const notes: string[] = [];
    if (all.length === 0) notes.push(`no commands yet. ${ENABLE_INTEGRATION}`);
    else if (omitted > 0) {
      const first = listed[0]!.number;
      notes.push(`the ${listed.length} newest of ${all.length} commands are listed; ${omitted} older ones (numbers before ${first}) are not: ${listed.length < (args.last ?? DEFAULT_LISTED_COMMANDS) ? 'a larger max_chars lists more' : `last (up to ${MAX_LISTED_COMMANDS}) lists more`}; output reads any of them by number`);
    }
    if (endedFirst !== undefined) notes.push(`${endedFirst} (running is false)`);
    return { commands: listed, total: all.length, omitted, note: notes.length === 0 ? null : notes.join('. ') };
  },
});

// ---- search -----------------------------------------------------------------

const DEFAULT_HITS_PER_SESSION = 20;
const MAX_HITS_PER_SESSION = 1000;

const searchInput = z.object({
  pattern: z.string().min(1).max(MAX_SEARCH_PATTERN_CHARS).describe('The text to find (or, with regex, a JavaScript regular expression).'),
  regex: z.boolean().optional().describe('The pattern is a JavaScript regular expression (default false: plain text).'),
  ignore_case: z.boolean().optional().describe('Match regardless of case (default false).'),
  session: sessionArg.optional().describe('Search only this session (its id, :name or index); absent: every session.'),
  max: z.number().int().min(1).max(MAX_HITS_PER_SESSION).optional().describe(`At most this many hits per session, the newest (default ${DEFAULT_HITS_PER_SESSION}).`),
  max_chars: maxCharsArg,
});

const searchOutput = z.object({
  hits: z
    .array(
      z.object({
        session: z.string().describe('The session id.'),
        name: z.string().nullable(),
        row: z.number().int().describe("The row of the session's history the line starts at (rows count up from the session's first line)."),
        line: z.string().describe('The matching line (wrapped rows joined); a very long one is shown around its match, "…" where it was cut.'),
      }),
    )
    .describe("Sessions in list_sessions order, each one's hits oldest first."),
  sessions: z
    .array(z.object({ session: z.string(), name: z.string().nullable(), total: z.number().int().describe('Lines that matched in it.'), shown: z.number().int().describe('Of them, the hits listed here.') }))
    .describe('Each session that matched.'),
  total: z.number().int().describe('Lines that matched in all.'),
  omitted: z.number().int().describe('Matching lines not listed (older ones): beyond max per session, or left out to keep the answer small.'),
  searched: z.number().int().describe('Sessions searched whole.'),
  skipped: z
    .array(z.object({ session: z.string(), name: z.string().nullable(), reason: z.string(), message: z.string() }))
    .describe('Sessions not searched, or not whole, and why.'),
  note: z.string().nullable().describe('When hits were left out: how to see them. Null when every match is listed.'),
});

/** What to do when the server refuses a search, by its code. */
const SEARCH_HINTS: Record<string, string> = {
  pattern_too_slow: 'the regular expression backtracks (nested repeats such as (a+)+ try ever more ways to match): write it without nested repeats, anchor it, or search for plain text (regex false)',
  search_too_long: 'the history is too long to search in time: search one session (session), or a stricter pattern',
};

const search = defineTool({
  name: 'search',
  title: 'Search terminal history',
  description: `Finds lines in the whole history (scrollback and screen) of every session, or of one: "where did I see that error", which session printed a URL or a stack trace, whether a log line ever appeared.
Plain text by default; regex for a JavaScript regular expression; ignore_case to ignore case. Returns each hit's session, row and line, each session's hits oldest first; per session the newest max (default ${DEFAULT_HITS_PER_SESSION}), and the whole answer bounded by max_chars, the oldest hits left out first (note says how many, and how to narrow: one session, a stricter pattern).
Sessions that could not be searched (a history too long to search in time) are listed in skipped with why. A regular expression that backtracks is refused (pattern_too_slow): make it stricter. To read around a hit, use screen with scrollback, or output for a command's whole output.`,
  input: searchInput,
  output: searchOutput,
  hints: READ_ONLY,
  async run(args, call) {
    const how = { regex: args.regex === true, ignoreCase: args.ignore_case === true };
    let find: MatchFinder;
    try {
      find = matchFinder(args.pattern, how);
    } catch (err) {
      throw new ToolError('bad_pattern', `the pattern is not a JavaScript regular expression: ${(err as Error).message}`, { hint: 'fix it, or search for plain text (regex false)' });
    }
    const max = args.max ?? DEFAULT_HITS_PER_SESSION;
    let reply: SearchAllReply;
    try {
      reply = await call.api.again<SearchAllReply>(API_ROUTES.searchSessions, {}, undefined, {
        q: args.pattern,
        regex: how.regex ? '1' : undefined,
        'ignore-case': how.ignoreCase ? '1' : undefined,
        max,
        sessions: args.session,
      });
    } catch (err) {
      const hint = err instanceof CliError ? SEARCH_HINTS[err.code] : undefined;
      throw hint === undefined ? err : new ToolError((err as CliError).code, (err as CliError).message, { hint });
    }
    const maxChars = args.max_chars ?? call.maxChars;
    const bounded = boundHits(reply.sessions, find, maxChars);
    const skipped = reply.skipped.map((s) => ({ session: s.id, name: s.name, reason: s.reason, message: s.message }));
    let note: string | null = null;
    if (bounded.omitted > 0) {
      const beyondMax = reply.sessions.some((s) => s.total > s.matches.length);
      const widen = beyondMax && max < MAX_HITS_PER_SESSION ? `; a larger max lists more per session` : '';
      const narrow = args.session === undefined ? 'search one session (session), or a stricter pattern' : 'a stricter pattern';
      note = `${reply.total} lines matched; the newest ${bounded.hits.length} are listed and ${bounded.omitted} older ones are not. To see others, narrow the search: ${narrow}${widen}`;
    }
    return { hits: bounded.hits, sessions: bounded.per_session, total: reply.total, omitted: bounded.omitted, searched: reply.searched, skipped, note };
  },
});

export const historyTools: AnyMcpTool[] = [output, commands, search];
