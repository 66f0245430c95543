// The tools of `tend mcp` that run something and wait for its own end
// signal: `run` (a shell command, done at the shell's end-of-command mark),
// `prompt_agent` (a prompt to an AI agent, done when its turn ends), and
// `await_result` (collects either after a timeout). Each is an await of the
// tend server (docs/api.md "Await"), whose id is chosen here so it survives a
// lost answer and a server restart, and which outlives the call: a timeout
// answers `pending` with the id, and nothing is cancelled.
import { z } from 'zod';
import { CliError } from '../../cli-error.js';
import { AWAIT_ID_PATTERN, MAX_AWAIT_INPUT_BYTES, type AwaitReply, type SessionInfo } from '../../../protocol/api/index.js';
import { agentAnswerSchema, answerOf, anyAnswerSchema, commandAnswerSchema, kindOf, withoutKind } from '../await-answer.js';
import { givenLineView, quotedLine } from '../command-line-view.js';
import { collectAndWait, startAndWait, startShellCommand } from '../await-wait.js';
import { maxCharsArg } from '../bounded-text.js';
import { checkAgent, checkNoAgent, checkRunning, newShellSession, sessionLabel, unexpectedKind } from '../run-session.js';
import { sessionArg } from '../session-view.js';
import { defineTool, ToolError, type AnyMcpTool } from '../tool-kit.js';

const DEFAULT_RUN_TIMEOUT_S = 30;
const DEFAULT_PROMPT_TIMEOUT_S = 300;
const DEFAULT_COLLECT_TIMEOUT_S = 30;
/** The longest one call waits: clients have limits of their own, and a pending answer loses nothing. */
const MAX_TIMEOUT_S = 3600;
const timeoutArg = (defaultSeconds: number, later = 'await_result collects the result later') =>
  z.number().min(0).max(MAX_TIMEOUT_S).optional().describe(`Seconds to wait before answering pending (0–${MAX_TIMEOUT_S}; default ${defaultSeconds}). Nothing is cancelled when it passes: ${later}`);

function checkInputSize(text: string, what: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_AWAIT_INPUT_BYTES) throw new ToolError('input_too_long', `the ${what} is ${bytes} bytes; tend types at most ${MAX_AWAIT_INPUT_BYTES} (1 MiB)`, { hint: 'write it to a file and run that file instead' });
}

const timeoutMsOf = (seconds: number | undefined, defaultSeconds: number) => Math.round((seconds ?? defaultSeconds) * 1000);

const runInput = z.object({
  command: z.string().min(1).describe('The command line, as typed at a shell prompt. Quotes, backslashes, Unicode and several lines are fine: such input is run from a script the shell sources, so it runs as one command exactly as written'),
  session: sessionArg.optional().describe('The shell session to run it in: its id (or a unique prefix of it), its name (":build" or "build"), or its index as list_sessions shows it. Leave it out to run in a new shell session, whose id the answer gives.'),
  cwd: z.string().optional().describe("Only without session: the new session's directory (default: the directory tend mcp was started in)"),
  timeout_seconds: timeoutArg(DEFAULT_RUN_TIMEOUT_S),
  max_chars: maxCharsArg,
});

const runOutput = commandAnswerSchema.extend({
  created_session: z.boolean().describe('true when this call made the session (no session was given): pass its id as session to run there again'),
});

const run = defineTool({
  name: 'run',
  title: 'Run a shell command and wait for it',
  description: `Runs one command line in a shell session and waits for the shell to say the command ended (its integration's end-of-command mark: no polling, no markers added to the output, nothing read off a quiet screen). Returns the exit code, the command's exact output (what it printed, without the prompt or the command line), its number in the session, and how long it took.
Without session, it first makes a new shell session (in cwd) and returns its id: pass that id as session to keep working in the same shell (its directory, variables and history stay).
While it waits it sends progress notifications naming the await id. If timeout_seconds (default ${DEFAULT_RUN_TIMEOUT_S}) passes first, it answers status "pending" with await_id and cancels nothing: call await_result with that await_id to wait for the result, screen to see the terminal, send with keys ["C-c"] to stop the command. Long output is cut to its last lines, and cut says how to read the rest with the output tool; output tend no longer holds (it scrolled out of the session's history, or the program cleared the screen) is null, and note says how to get it.
Fails (isError, with a hint) when the shell is busy with another command (shell_busy names it) or waits for the rest of an unfinished line at its continuation prompt (shell_busy with continuation: true; send keys ["C-c"] gives it up), the session is a program without shell integration (use send and screen for REPLs and other programs), its program has ended (session_not_running, with the exit code), or an AI agent holds the terminal (session_has_agent: use prompt_agent).`,
  input: runInput,
  output: runOutput,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(args, call) {
    checkInputSize(args.command, 'command line');
    let info: SessionInfo;
    const created = args.session === undefined;
    if (args.session !== undefined) {
      if (args.cwd !== undefined) throw new ToolError('bad_arguments', `cwd goes with a new session (no session given); to change the directory of session ${args.session}, run \`cd ${args.cwd}\` there`);
      info = await call.api.session(args.session);
      checkRunning(info);
      checkNoAgent(info);
    } else {
      info = await newShellSession(call, args.cwd);
    }
    const timeoutMs = timeoutMsOf(args.timeout_seconds, DEFAULT_RUN_TIMEOUT_S);
    const what = `the command ${quotedLine(args.command)} in session ${sessionLabel(info)}`;
    const { reply, waitedMs } = await startShellCommand(call, info.id, args.command, timeoutMs, () => what, created ? { newShell: info } : {});
    if (kindOf(reply) === 'agent') throw unexpectedKind(reply, 'command');
    const answer = withoutKind(answerOf(reply, { waitedMs, maxChars: args.max_chars ?? call.maxChars, what, awaiting: 'command' }));
    // A pending answer has no command yet: it names the line as given.
    return { ...answer, ...(answer.command_line === undefined ? givenLineView(args.command) : {}), created_session: created };
  },
});

const promptAgent = defineTool({
  name: 'prompt_agent',
  title: 'Prompt an AI agent in a session and wait for its answer',
  description: `Types a prompt into the AI coding agent (Claude Code, Codex, Gemini CLI) running in a session, and waits for that turn to end, as the agent's own hooks report it. Returns the agent's answer (its final message), the outcome (answered; failed, with the error, e.g. an API error; interrupted), the agent's state after the turn, and how long it took. A multi-line prompt is pasted as one.
An agent that is asleep is woken by the prompt; one just started is waited for. While it waits it sends progress notifications naming the await id. If timeout_seconds (default ${DEFAULT_PROMPT_TIMEOUT_S}) passes first, it answers status "pending" with await_id and cancels nothing: await_result collects the answer. A long answer is cut to its end, and cut says how to read more.
Fails (isError, with a hint) when the session runs no agent (no_agent: new_session with agent starts one; shell commands go to run), or the agent is busy with another turn or asks a person for permission (agent_busy: screen shows it; send answers it).`,
  input: z.object({
    session: sessionArg,
    prompt: z.string().min(1).describe('The prompt, as a person would type it into the agent'),
    timeout_seconds: timeoutArg(DEFAULT_PROMPT_TIMEOUT_S),
    max_chars: maxCharsArg,
  }),
  output: agentAnswerSchema,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(args, call) {
    checkInputSize(args.prompt, 'prompt');
    const info = await call.api.session(args.session);
    checkRunning(info);
    checkAgent(info);
    const what = `the ${info.agent!.kind} agent's turn in session ${sessionLabel(info)} (prompt ${quotedLine(args.prompt)})`;
    const { reply, waitedMs } = await startAndWait(call, info.id, { input: args.prompt, expect: 'agent' }, timeoutMsOf(args.timeout_seconds, DEFAULT_PROMPT_TIMEOUT_S), () => what);
    if (kindOf(reply) === 'command') throw unexpectedKind(reply, 'agent');
    return withoutKind(answerOf(reply, { waitedMs, maxChars: args.max_chars ?? call.maxChars, what, awaiting: 'agent' }));
  },
});

const awaitResult = defineTool({
  name: 'await_result',
  title: 'Wait for the result of a run or prompt_agent that was pending',
  description: `Waits for the result of an earlier run or prompt_agent that answered status "pending" (or whose call was cut off: its progress notifications named the await id). Answers as they do: for a command, exit_code, output, command number; for an agent, answer and outcome (kind says which). If timeout_seconds (default ${DEFAULT_COLLECT_TIMEOUT_S}) passes first it answers pending again, cancelling nothing; call it again. It may be called again after it answered done, e.g. with a larger max_chars: results are kept for an hour after the command or turn ended.
Fails (isError) when the command never ran (input_not_run: the shell did not start it, e.g. a syntax error, or another program read the line), the session ended first (session_ended, saying how), or the id is unknown (no_await).`,
  input: z.object({
    await_id: z.string().regex(AWAIT_ID_PATTERN).describe('The await_id a run or prompt_agent answered ("w" and 12 hex digits)'),
    timeout_seconds: timeoutArg(DEFAULT_COLLECT_TIMEOUT_S, 'call await_result again to go on waiting'),
    max_chars: maxCharsArg,
  }),
  output: anyAnswerSchema,
  hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, call) {
    const what = `await ${args.await_id}`;
    const describe = (reply: AwaitReply) => `${what} in session ${reply.session}`;
    let waited;
    try {
      waited = await collectAndWait(call, args.await_id, timeoutMsOf(args.timeout_seconds, DEFAULT_COLLECT_TIMEOUT_S), describe);
    } catch (err) {
      if (err instanceof CliError && err.code === 'not_found') {
        throw new ToolError('no_await', err.message, { await_id: args.await_id, hint: 'await ids come from run and prompt_agent (and their progress notifications); a finished command is still readable with commands and output' });
      }
      throw err;
    }
    const { reply, waitedMs } = waited;
    return answerOf(reply, { waitedMs, maxChars: args.max_chars ?? call.maxChars, what: `${what} in session ${reply.session}` });
  },
});

export const runTools: AnyMcpTool[] = [run, awaitResult, promptAgent];
