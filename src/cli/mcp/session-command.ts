// The command new_session starts in the shell it made: typed at the shell's
// first prompt through the await route (so it is the shell's command 1, with
// its own end mark and exact output), waited for briefly, and handed back
// done or pending. The session's shell outlives the command, so its output
// stays readable either way.
import { z } from 'zod';
import { CliError } from '../cli-error.js';
import type { AwaitReply, SessionInfo } from '../../protocol/api/index.js';
import { readOmittedOutput } from './await-answer.js';
import { startShellCommand } from './await-wait.js';
import { keepTail, textCutSchema } from './bounded-text.js';
import { quotedLine } from './command-line-view.js';
import { sessionLabel } from './run-session.js';
import type { ToolCall } from './tool-kit.js';
import { OUTPUT_NOT_KEPT } from './tool-errors.js';

/**
 * How long new_session waits for its command to end before answering
 * pending (after the shell's first prompt): a quick command comes back done;
 * a server or a build goes on.
 */
export const NEW_SESSION_COMMAND_WAIT_MS = 3000;

export const startedCommandSchema = z
  .object({
    await_id: z.string().nullable().describe('Names the command\'s await: await_result collects its result (exit code, output) while it is pending. Null when it failed.'),
    status: z.enum(['done', 'pending', 'failed']).describe('done: it ended within a few seconds (exit_code and output below); pending: it still runs (await_result with await_id waits for it, screen shows it); failed: it did not run (error says why).'),
    number: z.number().int().nullable().describe("The command's number in the session's shell (the output tool reads it by this number); null until known."),
    exit_code: z.number().int().nullable(),
    output: z.string().nullable().describe('Once done: its output (bounded, the end kept); else null.'),
    cut: textCutSchema,
    note: z.string().optional().describe('When done with output null: why tend has no output for it, and how to get it.'),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .nullable()
  .describe('The command started in the session, when one was given; else null.');

export type StartedCommand = NonNullable<z.infer<typeof startedCommandSchema>>;

/** Starts `line` at the first prompt of the new shell session `info` and waits a moment for it to end. */
export async function startSessionCommand(call: ToolCall, info: SessionInfo, line: string, maxChars: number): Promise<StartedCommand> {
  const what = `the command ${quotedLine(line)} in the new session ${sessionLabel(info)}`;
  let reply: AwaitReply;
  try {
    ({ reply } = await startShellCommand(call, info.id, line, NEW_SESSION_COMMAND_WAIT_MS, () => what, { newShell: info }));
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { await_id: null, status: 'failed', number: null, exit_code: null, output: null, cut: null, error: { code: err.code, message: err.message } };
  }
  if (reply.status === 'pending') return { await_id: reply.id, status: 'pending', number: null, exit_code: null, output: null, cut: null, error: null };
  // expect: 'shell' keeps the line from an agent's input box; a new shell has no agent anyway.
  if (!('command' in reply)) throw new Error(`the new session ${info.id} took its command as a prompt to an agent`);
  const number = reply.command.number;
  if (reply.output === null) return { await_id: reply.id, status: 'done', number, exit_code: reply.exitCode, output: null, cut: null, note: OUTPUT_NOT_KEPT, error: null };
  const bounded = keepTail(reply.output, maxChars, readOmittedOutput(info.id, number));
  return { await_id: reply.id, status: 'done', number, exit_code: reply.exitCode, output: bounded.text, cut: bounded.cut, error: null };
}
