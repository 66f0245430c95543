// The agent a viewer socket's STATE frame carries: `{ agent: AgentInfo | null }`
// whenever a session's agent changes, and once on subscribe. STATE also
// carries other news (a degraded screen), so a frame without `agent` says
// nothing about it.
import { AGENT_STATES, isAgentKind, type AgentInfo } from '../../../src/protocol/api/index.js';

/** The frame's agent; undefined when the frame is about something else or its agent is not one this page can read. */
export function agentInStateFrame(state: Record<string, unknown>): AgentInfo | null | undefined {
  if (!('agent' in state)) return undefined;
  const agent = state.agent;
  if (agent === null) return null;
  return isAgentInfo(agent) ? agent : undefined;
}

/** The fields the page reads to draw and order an agent; the rest it reads with care. */
export function isAgentInfo(value: unknown): value is AgentInfo {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return isAgentKind(v.kind) && typeof v.state === 'string' && (AGENT_STATES as readonly string[]).includes(v.state) && typeof v.since === 'number';
}
