// The order the dashboard lists agents in: those that need a person first,
// then those at work, then the rest, each group in the order it came (the
// sessions' `tend ls` order), so cards move only when their group changes.
import { agentWantsPerson, type AgentInfo } from '../../../src/protocol/api/index.js';

/** 0: needs a person; 1: busy; 2: everything else. */
export function attentionRank(agent: AgentInfo | null): number {
  if (agent === null) return 2;
  if (agentWantsPerson(agent.state)) return 0;
  return agent.state === 'busy' ? 1 : 2;
}

/** A new array in attention order; stable within a group (Array.prototype.sort is). */
export function byAttention<T>(items: readonly T[], agentOf: (item: T) => AgentInfo | null): T[] {
  return items
    .map((item) => ({ item, rank: attentionRank(agentOf(item)) }))
    .sort((a, b) => a.rank - b.rank)
    .map((entry) => entry.item);
}
