// An agent's kind and state as a badge (dashboard rows and cards, pane
// headers). needs-permission stands out: it is the one that waits for a
// person. The agent's warning (hooks that never fired, a wake that failed)
// is its tooltip, and a mark says there is one.
import type { AgentInfo, AgentKind, AgentState } from '../../../src/protocol/api/index.js';

const KIND_NAMES: Record<AgentKind, string> = { claude: 'Claude', codex: 'Codex', gemini: 'Gemini' };

const STATE_WORDS: Record<AgentState, string> = {
  starting: 'starting',
  idle: 'idle',
  busy: 'busy',
  'needs-permission': 'needs permission',
  sleeping: 'sleeping',
  waking: 'waking',
  exited: 'exited',
};

export function agentKindName(kind: AgentKind): string {
  return KIND_NAMES[kind] ?? kind;
}

export function agentStateWords(state: AgentState): string {
  return STATE_WORDS[state] ?? state;
}

function tooltip(agent: AgentInfo): string | undefined {
  if (agent.warning) return agent.warning;
  if (agent.state === 'needs-permission' && agent.asking) return `asks: ${agent.asking}`;
  return undefined;
}

export function AgentBadge(props: { agent: AgentInfo }) {
  const { agent } = props;
  return (
    <span
      className={`badge agent-badge agent-${agent.state}${agent.warning ? ' agent-has-warning' : ''}`}
      data-agent-state={agent.state}
      title={tooltip(agent)}
    >
      {agentKindName(agent.kind)} · {agentStateWords(agent.state)}
      {agent.warning && (
        <span className="agent-warning-mark" aria-label={`warning: ${agent.warning}`}>
          {' '}
          ⚠
        </span>
      )}
    </span>
  );
}
