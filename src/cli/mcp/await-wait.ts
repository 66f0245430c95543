// Waiting for an await of the tend server from an MCP tool: started with an
// id chosen here (so a start whose answer a server restart cut off is asked
// again by that id, and the server answers the await it started instead of
// typing the line twice), then collected in short calls, each followed by a
// progress notification that names the await: a client that gives up on the
// call still has the handle, and a client's idle timeout is reset. A server
// that goes away mid-wait is waited for (McpApi.again); nothing is cancelled
// when the wait ends, whatever ends it.
import { newAwaitId } from '../verbs/await-connection.js';
import { API_ROUTES, type AwaitReply, type AwaitRequest } from '../../protocol/api/index.js';
import { formatSeconds } from './await-answer.js';
import type { ToolCall } from './tool-kit.js';

/**
 * One call to the server waits at most this long; a longer wait is a loop of
 * calls, with a progress notification after each.
 */
export const WAIT_PER_CALL_MS = 3000;

export interface AwaitWait {
  /** The server's last answer: done, or pending when the deadline passed (or the client went away). */
  reply: AwaitReply;
  /** How long the tool waited, from the start of the wait. */
  waitedMs: number;
}

/** Says, in a progress message, what is being waited for: "`make test` in session ab12cd34". */
export type Describe = (reply: AwaitReply) => string;

/**
 * POSTs an await of `input` at `session` (the await's id chosen here), and
 * waits for it up to `timeoutMs`.
 */
export async function startAndWait(call: ToolCall, session: string, request: Omit<AwaitRequest, 'id' | 'timeoutMs'>, timeoutMs: number, describe: Describe): Promise<AwaitWait> {
  const startedAt = Date.now();
  const id = newAwaitId();
  const first = await call.api.again<AwaitReply>(API_ROUTES.startAwait, { target: session }, {
    ...request,
    id,
    timeoutMs: Math.min(timeoutMs, WAIT_PER_CALL_MS),
  } satisfies AwaitRequest);
  return waitOn(call, first, startedAt, timeoutMs, describe);
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
