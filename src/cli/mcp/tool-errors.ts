// A tool's failure as the agent reads it: an `isError` result whose text is
// one JSON object, {"error": {code, message, hint?, ...details}}, the same
// code and details the HTTP API answers (docs/api.md), and for the failures
// an agent can get past, a hint saying how. Anything else that escaped a tool
// is a bug, said in one line (never a stack) and logged on stderr.
import { CliError } from '../cli-error.js';
import { AWAIT_ID_PATTERN } from '../../protocol/api/index.js';
import { ToolError } from './tool-kit.js';

/**
 * Why a command's output may be missing, and how to get it anyway: for the
 * output_gone error, and for a result whose output is null.
 */
export const OUTPUT_NOT_KEPT =
  "tend no longer holds this command's output: it scrolled out of the rows the session keeps (a long output), or the program erased it (it cleared the screen, reset the terminal, or ended on the alternate screen). screen shows what the terminal holds now, and search may still find lines of it; to keep a long output whole, run the command again with its output sent to a file (`CMD > out.log 2>&1`) and read the file in pieces (`sed -n 1,200p out.log`)";

/** What an agent can do about an API error, by its code. */
const HINTS: Record<string, string> = {
  no_session: 'list_sessions shows every session with its id, name and index; any of them names a session',
  ambiguous_target: 'give more of the id, or the session\'s :name or index (list_sessions shows them)',
  no_shell_integration:
    "run and the command tools need a shell that marks its prompts and commands. new_session starts one (bash, zsh and fish get tend's integration by themselves); in a shell tend did not start, run `eval \"$(tend shell-integration bash)\"` (or zsh, fish) first. A program that is not a shell is driven with send and screen",
  shell_busy:
    'the shell is running a command, or (continuation: true) waits for the rest of an unfinished command line (an open quote, a `do`): wait for the command (await_result, or screen to see it), give either up with send keys ["C-c"], or run in another session (new_session)',
  session_not_running: "the session's program has ended; its screen, commands and output are still readable (screen, commands, output), and new_session starts another",
  agent_busy: 'the agent is in a turn or asks a person for permission: wait (screen shows it), or answer it with send',
  no_agent: 'this session runs no agent tend knows of: run is for shell commands; new_session with agent starts one',
  session_has_agent: 'an AI agent holds this terminal: prompt_agent types a prompt to it; run shell commands in another session (run without session makes one)',
  output_gone: OUTPUT_NOT_KEPT,
  input_not_run: "the shell did not run the line as a command (a syntax error, or a program read it, or other input got there first): screen shows what the terminal holds; fix the line and run it again",
  session_ended: "the session ended before the command or turn did; its screen, commands and output stay readable (screen, commands, output), and new_session starts another",
  server_unreachable: 'the tend server could not be reached; the call can be made again',
  server_start_failed: 'no tend server runs and one could not be started; `tend server status` in a terminal says more',
};

export interface ErrorResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError: true;
}

export function errorResult(code: string, message: string, details: Record<string, unknown> = {}): ErrorResult {
  const hint = typeof details.hint === 'string' ? details.hint : HINTS[code];
  const error = { code, message, ...(hint !== undefined ? { hint } : {}), ...details };
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
}

/** Whatever a tool threw, as the result the agent reads. */
export function resultOfError(err: unknown, stderr: NodeJS.WritableStream): ErrorResult {
  if (err instanceof ToolError) return errorResult(err.code, err.message, err.details);
  if (err instanceof CliError) {
    // An answer of the API keeps its code; the HTTP status is of no use to the agent.
    const { status: _status, usage: _usage, id, ...details } = err.details;
    // A failed await names itself `id`; beside a session's id, an agent reads await_id as await_result takes it.
    const named = typeof id === 'string' && AWAIT_ID_PATTERN.test(id) ? { await_id: id } : id !== undefined ? { id } : {};
    return errorResult(err.code, err.message, { ...named, ...details });
  }
  const what = err instanceof Error ? err.message : String(err);
  stderr.write(`tend mcp: internal error: ${err instanceof Error && err.stack ? err.stack : what}\n`);
  return errorResult('internal', `internal error in tend mcp: ${what} (a bug in tend; please report it)`);
}
