// The dashboard's agents: a card per session with an agent, its state and a
// live preview of its screen, those that need a person first, then those at
// work (attention-order.ts). The previews share one read-only viewer socket,
// opened while the cards are on the page.
import { useEffect, useState } from 'react';
import type { AgentInfo } from '../../../src/protocol/api/index.js';
import { sessionLabel, type SessionInfo } from '../api/sessions.js';
import { ViewerSocket, viewerSocketUrl } from '../connection/viewer-socket.js';
import { reportProblem } from '../debug-hook.js';
import type { AgentStore } from '../agents/agent-store.js';
import { byAttention } from '../agents/attention-order.js';
import { firstLine } from '../agents/agent-alerts.js';
import { AgentBadge } from './AgentBadge.js';
import { StatusBadge } from './StatusBadge.js';
import { SessionPreviewBox } from './SessionPreviewBox.js';

/** A card's line of text about the turn is one short line. */
const CARD_LINE_MAX_CHARS = 120;

export interface AgentCardsProps {
  sessions: readonly SessionInfo[];
  agentOf(session: SessionInfo): AgentInfo | null;
  agents: AgentStore;
  open(session: SessionInfo): void;
  pathOf(session: SessionInfo): string;
}

/** What the agent is at, in one line: what it asks, what it works on, how its last turn ended. */
function cardLine(agent: AgentInfo): string {
  const turn = agent.lastTurn;
  const line = (text: string | null | undefined) => firstLine(text ?? null, CARD_LINE_MAX_CHARS);
  switch (agent.state) {
    case 'needs-permission':
      return `asks: ${line(agent.asking) ?? 'permission'}`;
    case 'busy':
      return turn?.prompt ? `working on: ${line(turn.prompt)}` : 'working';
    case 'sleeping':
      return 'asleep, its screen kept: typing wakes it';
    case 'waking':
      return 'waking…';
    case 'starting':
      return 'starting…';
    case 'exited':
      return 'the agent has ended';
    case 'idle':
      if (turn?.outcome === 'failed') return `failed: ${line(turn.error) ?? 'no reason given'}`;
      if (turn?.outcome === 'interrupted') return 'interrupted';
      return line(turn?.answer) ?? 'ready for a prompt';
  }
}

export function AgentCards(props: AgentCardsProps) {
  const [socket, setSocket] = useState<ViewerSocket | null>(null);
  useEffect(() => {
    const s = new ViewerSocket({ url: viewerSocketUrl(location), onProblem: reportProblem, readOnly: true });
    setSocket(s);
    return () => s.dispose();
  }, []);

  const withAgents = props.sessions.filter((s) => props.agentOf(s) !== null);
  const ordered = byAttention(withAgents, props.agentOf);
  return (
    <section className="agent-cards" aria-label="agents">
      {ordered.map((s) => {
        const agent = props.agentOf(s)!;
        const label = sessionLabel(s);
        return (
          <article key={s.id} className={`agent-card agent-card-${agent.state}`} data-session={s.id} data-agent-state={agent.state} aria-label={`agent ${label}`}>
            <header className="agent-card-header">
              <a
                href={props.pathOf(s)}
                className="session-name"
                onClick={(e) => {
                  e.preventDefault();
                  props.open(s);
                }}
              >
                {label}
              </a>
              <AgentBadge agent={agent} />
              {s.status !== 'running' && <StatusBadge session={s} />}
            </header>
            <div className="agent-card-preview" onClick={() => props.open(s)} title={`open ${label}`}>
              {socket && <SessionPreviewBox socket={socket} sessionId={s.id} agents={props.agents} />}
            </div>
            <p className="agent-card-line" title={cardLine(agent)}>
              {cardLine(agent)}
            </p>
          </article>
        );
      })}
    </section>
  );
}
