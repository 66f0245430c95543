// The command new_session starts in the shell it made: typed at the shell's
// first prompt through the await route (so it is the shell's command 1, with
// its own end mark and exact output), waited for briefly, and handed back
// done or pending. The session's shell outlives the command, so its output
// stays readable either way.
import { z } from 'zod';
import { CliError } from '../cli-error.js';
import { newAwaitId } from '../verbs/await-connection.js';
import { API_ROUTES, type AwaitDone, type AwaitReply, type AwaitRequest } from '../../protocol/api/index.js';
import { keepTail, textCutSchema } from './bounded-text.js';
import type { McpApi } from './mcp-api.js';
import { shouldStage } from './stage-line.js';

/**
 * How long new_session waits for its command to end before answering
 * pending (after the shell's first prompt, which the server waits for on its
 * own): a quick command comes back done; a server or a build goes on.
 */
export const NEW_SESSION_COMMAND_WAIT_MS = 3000;

/**
 * How long a new shell may take to show its first prompt (rc files that load
 * version managers take seconds on a busy machine) before the command is
 * given up as failed. The server waits a few seconds of it per request.
 */
const SHELL_START_WAIT_MS = 20_000;

export const startedCommandSchema = z
  .object({
    await_id: z.string().describe('Names the command\'s await: await_result collects its result (exit code, output) while it is pending.'),
    status: z.enum(['done', 'pending', 'failed']).describe('done: it ended within a few seconds (exit_code and output below); pending: it still runs (await_result with await_id waits for it, screen shows it); failed: it did not run (error says why).'),
    number: z.number().int().nullable().describe("The command's number in the session's shell (the output tool reads it by this number); null until known."),
    exit_code: z.number().int().nullable(),
    output: z.string().nullable().describe('Once done: its output (bounded, the end kept); else null.'),
    cut: textCutSchema,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .nullable()
  .describe('The command started in the session, when one was given; else null.');

export type StartedCommand = NonNullable<z.infer<typeof startedCommandSchema>>;

/** Starts `line` at the prompt of the new shell session `sessionId` and waits a moment for it to end. */
export async function startSessionCommand(api: McpApi, sessionId: string, line: string, maxChars: number): Promise<StartedCommand> {
  const id = newAwaitId();
  const request: AwaitRequest = { input: line, timeoutMs: NEW_SESSION_COMMAND_WAIT_MS, id, ...(shouldStage(line) ? { stage: true } : {}) };
  const giveUpAt = Date.now() + SHELL_START_WAIT_MS;
  let reply: AwaitReply;
  for (;;) {
    try {
      // Safe to make again: the server answers an await it already has by its id, typing nothing twice.
      reply = await api.again<AwaitReply>(API_ROUTES.startAwait, { target: sessionId }, request);
      break;
    } catch (err) {
      if (!(err instanceof CliError)) throw err;
      // No marks yet: the shell is still reading its rc files (nothing was typed; the server waited a few seconds).
      if (err.code === 'no_shell_integration' && Date.now() < giveUpAt) continue;
      return { await_id: id, status: 'failed', number: null, exit_code: null, output: null, cut: null, error: { code: err.code, message: err.message } };
    }
  }
  if (reply.status === 'pending') return { await_id: id, status: 'pending', number: null, exit_code: null, output: null, cut: null, error: null };
  if (!('command' in reply)) {
    // An agent's turn: a session new_session made with a command has no agent.
    return { await_id: id, status: 'done', number: null, exit_code: null, output: reply.agent.answer, cut: null, error: null };
  }
  return commandDone(reply, sessionId, maxChars);
}

function commandDone(reply: AwaitDone, sessionId: string, maxChars: number): StartedCommand {
  const number = reply.command.number;
  const bounded = reply.output === null
    ? { text: null, cut: null }
    : keepTail(reply.output, maxChars, (first) => `read lines 1–${first - 1} with the output tool (session "${sessionId}", command ${number}, from_line 1)`);
  return { await_id: reply.id, status: 'done', number, exit_code: reply.exitCode, output: bounded.text, cut: bounded.cut, error: null };
}
