// Agents in the store's SQLite file (the `agents` table, migration 7): a
// restarted server knows each session's agent, its conversation id and
// whether it sleeps, so a sleeping agent stays asleep and wakes with the same
// conversation. A read-only store keeps nothing (agents then are learnt again
// from their next hook).
import type Database from 'better-sqlite3';
import { isAgentKind, AGENT_STATES } from '../../protocol/api/agents.js';
import type { StoredAgent } from './session-agent.js';

export interface AgentStore {
  put(sessionId: string, agent: StoredAgent): void;
  remove(sessionId: string): void;
  list(): Array<{ sessionId: string; agent: StoredAgent }>;
  /** Rows of sessions the store no longer has. */
  collectOrphans(): number;
}

export const NO_AGENT_STORE: AgentStore = { put() {}, remove() {}, list: () => [], collectOrphans: () => 0 };

export function openAgentStore(db: Database.Database, opts: { readOnly: boolean; onBadRow: (sessionId: string) => void }): AgentStore {
  if (opts.readOnly) return NO_AGENT_STORE;
  const put = db.prepare(`INSERT INTO agents (session_id, agent, updated_at) VALUES (?, ?, ?)
    ON CONFLICT(session_id) DO UPDATE SET agent = excluded.agent, updated_at = excluded.updated_at`);
  const remove = db.prepare('DELETE FROM agents WHERE session_id = ?');
  const list = db.prepare('SELECT session_id, agent FROM agents');
  const orphans = db.prepare(`DELETE FROM agents WHERE session_id NOT IN (SELECT id FROM sessions WHERE status != 'disposed')`);
  return {
    put(sessionId, agent) {
      put.run(sessionId, JSON.stringify(agent), Date.now());
    },
    remove(sessionId) {
      remove.run(sessionId);
    },
    list() {
      const out: Array<{ sessionId: string; agent: StoredAgent }> = [];
      for (const row of list.all() as Array<{ session_id: string; agent: string }>) {
        const agent = readStoredAgent(row.agent);
        if (agent === null) {
          opts.onBadRow(row.session_id);
          remove.run(row.session_id);
          continue;
        }
        out.push({ sessionId: row.session_id, agent });
      }
      return out;
    },
    collectOrphans() {
      return orphans.run().changes;
    },
  };
}

function readStoredAgent(text: string): StoredAgent | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const a = value as Partial<StoredAgent>;
  if (!isAgentKind(a.kind) || typeof a.state !== 'string' || !AGENT_STATES.includes(a.state)) return null;
  if (typeof a.since !== 'number' || typeof a.turnCount !== 'number' || !Array.isArray(a.launchArgs)) return null;
  return a as StoredAgent;
}
