// The environment of a session new_session starts: tend mcp's own (the
// agent's that started it, as `tend new` passes the caller's), less the
// variables by which an AI agent marks its own process tree. Claude Code
// sets CLAUDECODE in everything it starts and refuses to start where it finds
// it ("cannot be launched inside another Claude Code session"); a tend
// session is a terminal of its own, not a process inside the agent, so an
// agent started in it (new_session with agent, or typed there) must not find
// the marks of the agent that asked for the session.
import { callerEnvironment } from '../verbs/new.js';

/** Variables an agent sets for its own children: its nesting guard, and the ids its hooks are told. */
export const AGENT_MARK_VARIABLES: readonly string[] = ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SESSION_ID', 'GEMINI_SESSION_ID'];

/** The caller's environment without TERM (callerEnvironment) and without the agent's marks, then `given` over it. */
export function sessionEnvironment(given: Record<string, string> = {}): Record<string, string> {
  const env = callerEnvironment();
  for (const name of AGENT_MARK_VARIABLES) delete env[name];
  return { ...env, ...given };
}
