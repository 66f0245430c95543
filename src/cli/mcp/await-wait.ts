// Waiting for an await of the tend server from an MCP tool: started with an
// id chosen here (so a start whose answer a server restart cut off is asked
// again by that id, and the server answers the await it started instead of
// typing the line twice), then collected in short calls, each followed by a
// progress notification that names the await: a client that gives up on the
// call still has the handle, and a client's idle timeout is reset. A server
// that goes away mid-wait is waited for (McpApi.again); nothing is cancelled
// when the wait ends, whatever ends it.
import { CliError } from '../cli-error.js';
import { newAwaitId } from '../verbs/await-connection.js';
import { API_ROUTES, type AwaitReply, type AwaitRequest, type SessionInfo } from '../../protocol/api/index.js';
import { formatSeconds } from './await-answer.js';
import { rememberStagedLine } from './command-line-view.js';
import { sessionLabel } from './run-session.js';
import { shouldStage } from './stage-line.js';
import type { ToolCall } from './tool-kit.js';

/**
 * One call to the server waits at most this long; a longer wait is a loop of
 * calls, with a progress notification after each.
 */
export const WAIT_PER_CALL_MS = 3000;

/**
 * A new shell session's first prompt (its first integration mark) may take
 * longer than the server's own wait for it (4 s) on a loaded machine or with
 * rc files that load version managers: the start is asked again this long.
 */
export const NEW_SHELL_READY_MS = 20_000;

export interface AwaitWait {
  /** The server's last answer: done, or pending when the deadline passed (or the client went away). */
  reply: AwaitReply;
  /** How long the tool waited, from the start of the wait. */
  waitedMs: number;
}

/** Says, in a progress message, what is being waited for: "`make test` in session ab12cd34". */
export type Describe = (reply: AwaitReply) => string;

/**
 * POSTs an await of `input` at `session` (the await's id chosen here unless
 * the request has one), and waits for it up to `timeoutMs`.
 */
export async function startAndWait(call: ToolCall, session: string, request: Omit<AwaitRequest, 'timeoutMs'>, timeoutMs: number, describe: Describe): Promise<AwaitWait> {
  const startedAt = Date.now();
  const id = request.id ?? newAwaitId();
  const first = await call.api.again<AwaitReply>(API_ROUTES.startAwait, { target: session }, {
    ...request,
    id,
    timeoutMs: Math.min(timeoutMs, WAIT_PER_CALL_MS),
  } satisfies AwaitRequest);
  return waitOn(call, first, startedAt, timeoutMs, describe);
}

/**
 * Types the command `line` at the prompt of the shell in `session` (staged
 * when typing it could leave the shell waiting for more: stage-line.ts) and
 * waits for it up to `timeoutMs`. With `newShell`, the session was made a
 * moment ago: while its shell has not shown its first prompt the server
 * refuses the line (no_shell_integration, nothing typed), and it is offered
 * again up to NEW_SHELL_READY_MS, a progress message saying so.
 */
export async function startShellCommand(
  call: ToolCall,
  session: string,
  line: string,
  timeoutMs: number,
  describe: Describe,
  options: { newShell?: Pick<SessionInfo, 'id' | 'name'> } = {},
): Promise<AwaitWait> {
  const request = { input: line, expect: 'shell' as const, ...(shouldStage(line) ? { stage: true } : {}) };
  const giveUpAt = Date.now() + NEW_SHELL_READY_MS;
  for (;;) {
    const id = newAwaitId();
    // A staged line is recorded as the line sourcing its script, which this id names.
    rememberStagedLine(id, line);
    try {
      return await startAndWait(call, session, { ...request, id }, timeoutMs, describe);
    } catch (err) {
      const shellStarting = err instanceof CliError && err.code === 'no_shell_integration';
      if (options.newShell === undefined || !shellStarting || Date.now() > giveUpAt || call.signal.aborted) throw err;
      await call.progress(`session ${sessionLabel(options.newShell)} was made; its shell has not shown its first prompt yet`);
    }
  }
}

/** Waits for the await `id` up to `timeoutMs`. */
export async function collectAndWait(call: ToolCall, id: string, timeoutMs: number, describe: Describe): Promise<AwaitWait> {
  const startedAt = Date.now();
  const first = await call.api.again<AwaitReply>(API_ROUTES.getAwait, { id }, undefined, { waitMs: Math.min(timeoutMs, WAIT_PER_CALL_MS) });
  return waitOn(call, first, startedAt, timeoutMs, describe);
}

async function waitOn(call: ToolCall, first: AwaitReply, startedAt: number, timeoutMs: number, describe: Describe): Promise<AwaitWait> {
  const deadline = startedAt + timeoutMs;
  let reply = first;
  while (reply.status === 'pending' && !call.signal.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    await call.progress(`${describe(reply)}: waiting for ${formatSeconds(Date.now() - startedAt)} (of at most ${formatSeconds(timeoutMs)}); await id ${reply.id}, which await_result takes if this call is cut off`);
    reply = await call.api.again<AwaitReply>(API_ROUTES.getAwait, { id: reply.id }, undefined, { waitMs: Math.min(left, WAIT_PER_CALL_MS) });
  }
  return { reply, waitedMs: Date.now() - startedAt };
}
