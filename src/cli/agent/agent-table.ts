// `tend agent status`: the agents of the sessions as a table a person reads
// (the JSON is the API's AgentInfo as it is): which session, what agent, its
// state and since when, its conversation, its last turn, and any warning.
import { ago, shorten, table, wantsPersonCell } from '../format.js';
import { agentWantsPerson, type AgentInfo, type AgentTurn, type SessionInfo } from '../../protocol/api/index.js';

/** The last turn's prompt, answer or error is shown this long at most (the JSON has it whole). */
const TURN_TEXT_CHARS = 48;

export type SessionWithAgent = Pick<SessionInfo, 'id' | 'name'> & { index?: number; agent: AgentInfo };

/** How to name the session on the command line. */
export function sessionTarget(s: { id: string; name: string | null }): string {
  return s.name ? `:${s.name}` : s.id;
}

/** The state, with what a waiting agent asks for. */
export function stateText(agent: AgentInfo): string {
  return agent.state === 'needs-permission' && agent.asking ? `${agent.state} (${oneLine(agent.asking)})` : agent.state;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** "answered 2m ago: the answer", "running 5s ago: the prompt", "-" before the first. */
export function turnText(turn: AgentTurn | null, now = Date.now()): string {
  if (turn === null) return '-';
  const when = ago(turn.endedAt ?? turn.startedAt, now);
  const said = turn.outcome === 'running' ? turn.prompt : turn.outcome === 'failed' ? turn.error : turn.answer;
  return said ? `${turn.outcome} ${when}: ${shorten(oneLine(said), TURN_TEXT_CHARS)}` : `${turn.outcome} ${when}`;
}

/** The table; with `colour`, the state of an agent waiting for a person stands out, as in `tend ls`. */
export function agentTable(sessions: readonly SessionWithAgent[], { now = Date.now(), colour = false }: { now?: number; colour?: boolean } = {}): string {
  const head = ['SESSION', 'AGENT', 'STATE', 'SINCE', 'CONVERSATION', 'LAST TURN'];
  const stateColumn = head.indexOf('STATE');
  const rows = sessions.map((s) => [
    sessionTarget(s), s.agent.kind, stateText(s.agent), ago(s.agent.since, now), s.agent.agentSessionId ?? '-', turnText(s.agent.lastTurn, now),
  ]);
  // Row 0 is the head; row n is sessions[n - 1].
  const styled = colour
    ? (row: number, column: number, cell: string) => (row > 0 && column === stateColumn && agentWantsPerson(sessions[row - 1]!.agent.state) ? wantsPersonCell(cell) : cell)
    : undefined;
  const warnings = sessions.flatMap((s) => (s.agent.warning ? [`${sessionTarget(s)}: warning: ${s.agent.warning}\n`] : []));
  return table([head, ...rows], styled) + warnings.join('');
}
