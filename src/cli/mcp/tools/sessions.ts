// The session tools of `tend mcp`: list_sessions, new_session, kill_session,
// rename_session. Sessions are tend's handles: they outlive this connection,
// the agent and tend's own restarts, so an id an agent got stays good until
// the session is killed.
import { z } from 'zod';
import { agentHooksHint } from '../../agent/hooks-hint.js';
import {
  API_ROUTES,
  AGENT_KINDS,
  SESSION_NAME_PATTERN,
  SESSION_NAME_RULE,
  SESSION_SIZE_MAX,
  SESSION_SIZE_MIN,
  type CreateSessionRequest,
  type KilledSession,
  type ListedSession,
  type SessionInfo,
} from '../../../protocol/api/index.js';
import { MAX_MAX_CHARS, maxCharsArg } from '../bounded-text.js';
import { indexedSessionView, sessionArg, sessionView, sessionViewSchema } from '../session-view.js';
import { startedCommandSchema, startSessionCommand } from '../session-command.js';
import { checkedDirectory } from '../run-session.js';
import { sessionEnvironment } from '../session-environment.js';
import { waitForQuietOutput } from '../screen-view.js';
import { defineTool, ToolError, type AnyMcpTool } from '../tool-kit.js';

const sessionName = z
  .string()
  .describe(`A name to call it by (":NAME" or "NAME" in every tool): ${SESSION_NAME_RULE}; unique among sessions. A leading ":" is dropped.`);

/** A name as given, its leading ":" dropped (":build" is how the other tools write it), checked. */
function checkedName(given: string): string {
  const name = given.replace(/^:/, '');
  if (!SESSION_NAME_PATTERN.test(name)) throw new ToolError('bad_arguments', `"${given}" cannot be a session's name: a name is ${SESSION_NAME_RULE}`);
  return name;
}

/** Longest new_session waits for a program started by argv to print its first output and settle. */
const PROGRAM_START_WAIT_MS = 3000;

const terminalSize = (what: string) => z.number().int().min(SESSION_SIZE_MIN).max(SESSION_SIZE_MAX).optional().describe(`${what} of the terminal (default 80 columns, 24 rows).`);

const listSessions = defineTool({
  name: 'list_sessions',
  title: 'List terminal sessions',
  description:
    "Lists every tend terminal session: id, name, index, status (running, or exited with its exit code), the program it runs, its directory and title, its size, the AI agent in it and that agent's state, and when it last printed. " +
    'Use it to find a session to work in, or to see what exists before starting another. Any of id, ":name" or index names a session in the other tools (the id never changes; indexes shift when sessions go). ' +
    "Sessions keep running between calls and across restarts of the agent and of tend; an exited session stays listed, its screen and output readable, until kill_session removes it. " +
    'The list is bounded by max_chars: sessions that do not fit are counted in omitted, and note says how to see them.',
  input: z.object({ max_chars: maxCharsArg }),
  output: z.object({
    sessions: z.array(sessionViewSchema),
    omitted: z.number().int().optional().describe('Present when sessions were left out to keep the answer within max_chars: how many (the last ones in the list).'),
    note: z.string().optional().describe('Present with omitted: how to see the others.'),
  }),
  hints: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, call) {
    const listed = await call.api.again<ListedSession[]>(API_ROUTES.listSessions);
    const views = listed.map((s) => sessionView(s));
    // Sessions stay listed until killed, exited ones too: a long-lived tend may hold more than one answer should.
    const maxChars = args.max_chars ?? call.maxChars;
    const sizes = views.map((view) => JSON.stringify(view).length);
    let chars = 0;
    let fit = 0;
    while (fit < views.length && chars + sizes[fit]! <= maxChars) chars += sizes[fit++]!;
    if (fit === views.length) return { sessions: views };
    const omitted = views.length - fit;
    return {
      sessions: views.slice(0, fit),
      omitted,
      note: `the first ${fit} of ${views.length} sessions are listed; ${omitted} more (index ${fit + 1} on) did not fit in ${maxChars} characters: call again with a larger max_chars (up to ${MAX_MAX_CHARS}), or name one by its index; kill_session removes sessions no longer needed`,
    };
  },
});

const newSession = defineTool({
  name: 'new_session',
  title: 'Start a terminal session',
  description:
    "Starts a new terminal session that keeps running after this call ends, and across restarts of the agent and of tend. By default it runs the user's shell with tend's shell integration, so run can run commands in it and wait for each one's exit code and exact output. " +
    'Give command to type a shell command line at its first prompt (a dev server, a build, a watcher): it runs as the shell\'s command 1, the answer says done (with exit code and output) if it ended within a few seconds, else pending with an await_id that await_result collects; the shell stays when it ends. ' +
    `Give argv instead to run one program directly with no shell around it (a REPL, an editor, a TUI; drive it with send and screen): the answer comes once the program has printed its first output and gone quiet (at most ${PROGRAM_START_WAIT_MS / 1000} s), so what is sent next reaches a program that is ready. Give agent to start claude, codex or gemini in the shell (prompt_agent and screen then talk to it). ` +
    'Returns the session as list_sessions shows it. To run one command and wait for its result, run (which starts a session when given none) is simpler. ' +
    'On failure: a name already in use is refused (choose another, or rename_session the other one); a directory that does not exist is refused.',
  input: z.object({
    command: z.string().min(1).optional().describe("A shell command line to start in the new session's shell (quotes and several lines are fine: it runs as one command)."),
    argv: z.array(z.string()).min(1).optional().describe('Run this program with these arguments instead of a shell (no shell integration: use send and screen). Not with command or agent.'),
    cwd: z.string().optional().describe("The working directory (default: the one tend mcp was started in; a relative path is taken from there)."),
    name: sessionName.optional(),
    cols: terminalSize('Columns'),
    rows: terminalSize('Rows'),
    shell_integration: z.boolean().optional().describe("Load tend's integration into the shell (bash, zsh, fish): how run and the command tools know where each command starts and ends (default true)."),
    env: z.record(z.string(), z.string()).optional().describe("Variables to set for the program, over tend mcp's own environment (less the variables by which the calling agent marks its children, such as CLAUDECODE: another agent started in the session would refuse to run)."),
    agent: z.enum(AGENT_KINDS as ['claude', 'codex', 'gemini']).optional().describe('Start this AI coding agent in the session\'s shell, with tend\'s hooks so its state (idle, busy, needs-permission) is known.'),
    max_chars: maxCharsArg,
  }),
  output: z.object({
    session: sessionViewSchema,
    command: startedCommandSchema,
    warning: z.string().optional().describe("Something to act on: the agent's hooks are not installed, so its state will not be known."),
  }),
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, call) {
    // Every combination that cannot work is refused before a session exists.
    if (args.argv !== undefined && (args.command !== undefined || args.agent !== undefined)) {
      throw new ToolError('bad_arguments', 'argv runs a program with no shell around it, so command and agent (which the shell runs) cannot go with it: give command or agent with no argv, or argv alone');
    }
    if (args.command !== undefined && args.agent !== undefined) {
      throw new ToolError('bad_arguments', 'a session starts with a command or with an agent, not both: start the agent here and run the command in another session (run with no session makes one)');
    }
    if (args.shell_integration === false && (args.command !== undefined || args.agent !== undefined)) {
      throw new ToolError('bad_arguments', "command and agent need tend's shell integration (it tells when the command ends and where the prompt is): leave shell_integration out, or start the shell alone and type into it with send");
    }
    const body: CreateSessionRequest = {
      cwd: checkedDirectory(args.cwd ?? process.cwd()),
      env: sessionEnvironment(args.env),
      ...(args.argv !== undefined ? { argv: args.argv } : {}),
      ...(args.name !== undefined ? { name: checkedName(args.name) } : {}),
      ...(args.cols !== undefined ? { cols: args.cols } : {}),
      ...(args.rows !== undefined ? { rows: args.rows } : {}),
      ...(args.shell_integration === false ? { shellIntegration: false } : {}),
      ...(args.agent !== undefined ? { agent: { kind: args.agent } } : {}),
    };
    const warning = args.agent === undefined ? null : agentHooksHint(args.agent, body.env ?? process.env);
    // Made once: a retry after a lost answer would start a second session.
    const created = await call.api.once<SessionInfo>(API_ROUTES.createSession, {}, body);
    const command = args.command === undefined ? null : await startSessionCommand(call, created, args.command, args.max_chars ?? call.maxChars);
    // A program started directly (a REPL) reads what is typed before it is
    // ready as the terminal echoes it, not as its own input: the answer waits
    // for its first output to settle, so a send that follows finds it ready.
    if (args.argv !== undefined) await waitForQuietOutput(call.api, created.id, PROGRAM_START_WAIT_MS, call.signal, { afterFirstOutput: true });
    // Read again when a command ran or a program started: the title, directory and last output have changed.
    const now = command === null && args.argv === undefined ? created : await call.api.session(created.id);
    return { session: await indexedSessionView(call.api, now), command, ...(warning !== null ? { warning } : {}) };
  },
});

const killSession = defineTool({
  name: 'kill_session',
  title: 'Kill a terminal session',
  description:
    "Ends a session's program and everything running in it (SIGHUP, then SIGKILL) and forgets the session: its screen, commands and output are gone, and its id names nothing afterwards. " +
    'Use it for sessions you started and no longer need; to stop only the running command and keep the session, use send with keys ["C-c"] instead. ' +
    'Returns the id, name, command and directory of the session it ended. An unknown session is an error listing the candidates, and ends nothing.',
  input: z.object({ session: sessionArg }),
  output: z.object({
    killed: z.object({ id: z.string(), name: z.string().nullable(), command: z.array(z.string()), cwd: z.string() }).describe('The session that was ended and forgotten.'),
  }),
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(args, call) {
    // Looked up first and killed by id: an index or a name must not come to mean another session between the two.
    const { id } = await call.api.session(args.session);
    const killed = await call.api.once<KilledSession>(API_ROUTES.killSession, { target: id });
    return { killed: { id: killed.id, name: killed.name, command: killed.argv, cwd: killed.cwd } };
  },
});

const renameSession = defineTool({
  name: 'rename_session',
  title: 'Rename a terminal session',
  description:
    'Gives a session a name (then ":NAME" or "NAME" names it in every tool, and people see it in `tend ls` and the browser app), or removes its name with name null. ' +
    'Returns the session as list_sessions shows it. A name another session has is refused: choose another.',
  input: z.object({
    session: sessionArg,
    name: sessionName.nullable().describe(`The new name (${SESSION_NAME_RULE}; a leading ":" is dropped), or null to remove the name.`),
  }),
  output: z.object({ session: sessionViewSchema }),
  hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, call) {
    const renamed = await call.api.again<SessionInfo>(API_ROUTES.renameSession, { target: args.session }, { name: args.name === null ? null : checkedName(args.name) });
    return { session: await indexedSessionView(call.api, renamed) };
  },
});

export const sessionTools: AnyMcpTool[] = [listSessions, newSession, killSession, renameSession];
