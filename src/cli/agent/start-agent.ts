// Starting an agent in a new session, for `tend agent KIND` and `tend new
// --agent KIND`: the session runs the user's shell, and the server types the
// agent's command (with tend's hooks) at its prompt, so the shell and the
// session stay when the agent ends or sleeps.
import type { TendClient } from '../client.js';
import type { SessionView } from '../format.js';
import { API_ROUTES, type AgentLaunchRequest } from '../../protocol/api/index.js';
import { agentHooksHint } from './hooks-hint.js';

export async function startAgentSession(
  client: TendClient,
  body: Record<string, unknown>,
  agent: AgentLaunchRequest,
  stderr: NodeJS.WritableStream,
): Promise<SessionView> {
  // The agent reads its settings with the environment the session is given: the caller's.
  const env = (body.env as NodeJS.ProcessEnv | undefined) ?? process.env;
  const hint = agentHooksHint(agent.kind, env);
  const session = await client.callRoute<SessionView>(API_ROUTES.createSession, {}, { ...body, agent });
  // Said once the session exists: a refused request has its own message, and this one would only distract.
  if (hint !== null) stderr.write(`tend: ${hint}\n`);
  return session;
}
