// The session a `run` or `prompt_agent` call goes to, checked before
// anything is typed: it must be running, and hold what the tool drives (a
// shell for run, an agent for prompt_agent) — the same POST …/await takes a
// line as a shell command or as a prompt depending on whether an agent is
// there, so a tool that guessed wrong would type a prompt into a shell or a
// command into an agent. A run without a session gets a new shell session.
import { sessionEnvironment } from './session-environment.js';
import { checkDirectory } from '../argument-checks.js';
import { CliError } from '../cli-error.js';
import { API_ROUTES, type AwaitReply, type SessionInfo } from '../../protocol/api/index.js';
import { notRunningNote } from './session-view.js';
import { ToolError, type ToolCall } from './tool-kit.js';

/** How a session is named in messages: ":name (id)", or its id. */
export function sessionLabel(info: Pick<SessionInfo, 'id' | 'name'>): string {
  return info.name === null ? info.id : `:${info.name} (${info.id})`;
}

/** Refuses a session whose program no longer runs, with its exit code: nothing can be typed there. */
export function checkRunning(info: SessionInfo): void {
  const note = notRunningNote(info);
  if (note === undefined) return;
  throw new ToolError('session_not_running', `session ${sessionLabel(info)} is ${info.status}, so nothing can run in it: ${note}`, {
    session: info.id,
    status: info.status,
    exit_code: info.exitCode,
    exit_signal: info.exitSignal,
  });
}

/** Whether the session has an agent that is there to take a prompt (known, not exited). */
export function hasLiveAgent(info: SessionInfo): boolean {
  return info.agent !== null && info.agent.state !== 'exited';
}

/** Refuses a session whose terminal an agent holds: a command line typed there would be a prompt. */
export function checkNoAgent(info: SessionInfo): void {
  if (!hasLiveAgent(info)) return;
  const agent = info.agent!;
  throw new ToolError('session_has_agent', `session ${sessionLabel(info)} runs ${agent.kind} (an AI agent, ${agent.state}): a line typed there is a prompt to it, not a shell command`, {
    session: info.id,
    agent: { kind: agent.kind, state: agent.state },
    hint: 'prompt_agent gives the agent a prompt and returns its answer; to run a shell command, call run without a session (it makes a new shell session) or with another session',
  });
}

/** Refuses a session with no agent to prompt, saying how to start one. */
export function checkAgent(info: SessionInfo): void {
  if (hasLiveAgent(info)) return;
  const why = info.agent === null
    ? `session ${sessionLabel(info)} runs no agent tend knows of`
    : `the ${info.agent.kind} agent in session ${sessionLabel(info)} has exited (the shell it ran in is there again)`;
  throw new ToolError('no_agent', `${why}, so there is nothing to prompt`, {
    session: info.id,
    hint: 'new_session with agent "claude", "codex" or "gemini" starts one (prompt_agent may be called at once: the prompt waits for the agent to be ready); a shell command goes to run instead. An agent started by hand is known to tend only with its hooks (`tend hooks install claude|codex|gemini` in a terminal)',
  });
}

/** `cwd` made absolute (from tend mcp's own directory), refused as a bad argument when it is no directory. */
export function checkedDirectory(given: string): string {
  try {
    return checkDirectory('cwd', given);
  } catch (err) {
    if (err instanceof CliError) throw new ToolError('bad_arguments', err.message);
    throw err;
  }
}

/** A new session running the user's shell with tend's integration, in `cwd` (default: this process's directory). */
export async function newShellSession(call: ToolCall, cwd: string | undefined): Promise<SessionInfo> {
  const body = { cwd: checkedDirectory(cwd ?? process.cwd()), env: sessionEnvironment() };
  // Made once: a retry after a lost answer would start a second session.
  return call.api.once<SessionInfo>(API_ROUTES.createSession, {}, body);
}

/** What a run reached that is not what the tool drives (the session changed between the check and the typing). */
export function unexpectedKind(reply: AwaitReply, wanted: 'command' | 'agent'): ToolError {
  return wanted === 'command'
    ? new ToolError('session_has_agent', `an agent took session ${reply.session}'s terminal as the line was typed, so it went to the agent as a prompt; await_result with await_id "${reply.id}" has its answer`, { session: reply.session, await_id: reply.id })
    : new ToolError('no_agent', `session ${reply.session}'s agent exited before the prompt was typed, so its shell ran it as a command; await_result with await_id "${reply.id}" has its result`, { session: reply.session, await_id: reply.id });
}
