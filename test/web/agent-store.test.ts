// The page's record of agents (web/src/agents/): which changes raise a
// notification and which do not, the dashboard's attention order, and the
// STATE frame's agent. Plain code, no browser: the page feeds the store from
// polls and STATE frames in whatever order they arrive, and these are the
// orders that matter.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentInfo, AgentState, AgentTurn } from '../../src/protocol/api/index.js';
import { AgentStore, type RaisedAlert } from '../../web/src/agents/agent-store.js';
import { alertBody, alertsFor, firstLine, ALERT_BODY_MAX_CHARS } from '../../web/src/agents/agent-alerts.js';
import { byAttention } from '../../web/src/agents/attention-order.js';
import { agentInStateFrame } from '../../web/src/agents/agent-from-frame.js';

function agent(state: AgentState, since: number, more: Partial<AgentInfo> = {}): AgentInfo {
  return {
    kind: 'claude',
    state,
    since,
    agentSessionId: 'abc',
    cwd: '/home/u',
    hooksSeen: true,
    asking: null,
    backgroundTasks: 0,
    lastTurn: null,
    sleepAfterMs: null,
    launchedByTend: false,
    ...more,
  };
}

function turn(id: string, outcome: AgentTurn['outcome'], more: Partial<AgentTurn> = {}): AgentTurn {
  return { id, prompt: 'hi', startedAt: 1, endedAt: outcome === 'running' ? null : 2, outcome, answer: null, error: null, ...more };
}

/** A store with one session listed as `first`, and the alerts it raises from then on. */
function storeWith(first: AgentInfo | null): { store: AgentStore; alerts: RaisedAlert[] } {
  const store = new AgentStore();
  const alerts: RaisedAlert[] = [];
  store.onAlert((a) => alerts.push(a));
  store.fromList([{ id: 's1', name: 'web', agent: first }]);
  return { store, alerts };
}

describe('agent alerts', () => {
  test('the first list raises nothing, even for an agent that already asks for permission or has answered', () => {
    const { alerts } = storeWith(agent('needs-permission', 10, { asking: 'Bash: ls', lastTurn: turn('t1', 'answered', { answer: 'done' }) }));
    assert.deepEqual(alerts, []);
  });

  test('busy → needs-permission → idle with an answer raises one permission alert and one answer, each once', () => {
    const { store, alerts } = storeWith(agent('idle', 10));
    const busy = agent('busy', 20, { lastTurn: turn('t1', 'running') });
    const asking = agent('needs-permission', 30, { asking: 'Bash: ls', lastTurn: turn('t1', 'running') });
    const done = agent('idle', 40, { lastTurn: turn('t1', 'answered', { answer: 'done\nand more' }) });
    store.fromFrame('s1', busy);
    store.fromFrame('s1', asking);
    // The poll that follows says the same: no second alert.
    store.fromList([{ id: 's1', name: 'web', agent: asking }]);
    store.fromFrame('s1', done);
    store.fromList([{ id: 's1', name: 'web', agent: done }]);
    assert.deepEqual(
      alerts.map((a) => [a.label, a.alert.kind, alertBody(a.alert)]),
      [
        ['web', 'permission', 'needs permission: Bash: ls'],
        ['web', 'answered', 'done'],
      ],
    );
  });

  test('a whole turn between two polls still raises its answer', () => {
    const { store, alerts } = storeWith(agent('idle', 10, { lastTurn: turn('t1', 'answered', { answer: 'old' }) }));
    store.fromList([{ id: 's1', name: 'web', agent: agent('idle', 50, { lastTurn: turn('t2', 'answered', { answer: 'new answer' }) }) }]);
    assert.deepEqual(alerts.map((a) => alertBody(a.alert)), ['new answer']);
  });

  test('a failed turn says its error; an interrupted one raises nothing', () => {
    const { store, alerts } = storeWith(agent('busy', 10, { lastTurn: turn('t1', 'running') }));
    store.fromFrame('s1', agent('idle', 20, { lastTurn: turn('t1', 'failed', { error: 'rate_limit: slow down' }) }));
    store.fromFrame('s1', agent('busy', 30, { lastTurn: turn('t2', 'running') }));
    store.fromFrame('s1', agent('idle', 40, { lastTurn: turn('t2', 'interrupted') }));
    assert.deepEqual(alerts.map((a) => alertBody(a.alert)), ['failed: rate_limit: slow down']);
  });

  test('a poll older than a STATE frame neither undoes it nor raises its alert again', () => {
    const { store, alerts } = storeWith(agent('busy', 10, { lastTurn: turn('t1', 'running') }));
    const asking = agent('needs-permission', 30, { asking: 'Bash' });
    store.fromFrame('s1', asking);
    // Asked before the frame, answered after it: busy, from before the question.
    store.fromList([{ id: 's1', name: 'web', agent: agent('busy', 10, { lastTurn: turn('t1', 'running') }) }]);
    assert.equal(store.agentOf('s1')?.state, 'needs-permission');
    store.fromList([{ id: 's1', name: 'web', agent: asking }]);
    assert.equal(alerts.length, 1);
  });

  test('asking again after the first question was answered is a new alert', () => {
    const { store, alerts } = storeWith(agent('busy', 10));
    store.fromFrame('s1', agent('needs-permission', 20, { asking: 'Bash: ls' }));
    // Both transitions between two looks: only `since` tells the second question from the first.
    store.fromList([{ id: 's1', name: 'web', agent: agent('needs-permission', 40, { asking: 'Bash: rm' }) }]);
    assert.deepEqual(alerts.map((a) => alertBody(a.alert)), ['needs permission: Bash: ls', 'needs permission: Bash: rm']);
  });

  test('a session that appears after the first list is news: it raises its alerts', () => {
    const { store, alerts } = storeWith(null);
    store.fromList([
      { id: 's1', name: 'web', agent: null },
      { id: 's2', name: null, agent: agent('needs-permission', 5, { asking: 'Edit' }) },
    ]);
    assert.deepEqual(alerts.map((a) => [a.sessionId, a.label, alertBody(a.alert)]), [['s2', 's2', 'needs permission: Edit']]);
  });

  test('a session gone from the list is forgotten, and the same state twice keeps the same map (no redraw)', () => {
    const { store } = storeWith(agent('idle', 10));
    const before = store.state.agents;
    store.fromList([{ id: 's1', name: 'web', agent: agent('idle', 10) }]);
    assert.equal(store.state.agents, before);
    store.fromList([]);
    assert.equal(store.agentOf('s1'), null);
    assert.equal(store.state.labels.size, 0);
  });

  test('alertsFor with nothing known before raises what the agent shows now', () => {
    assert.deepEqual(alertsFor(null, agent('needs-permission', 1, { asking: null })), [{ kind: 'permission', asking: null }]);
    assert.deepEqual(alertsFor(agent('idle', 1), null), []);
  });

  test('a body is the first line with text, cut to its limit', () => {
    assert.equal(firstLine('\n\n  first  \nsecond'), 'first');
    assert.equal(firstLine('   \n '), null);
    const long = firstLine('x'.repeat(1000));
    assert.equal(long?.length, ALERT_BODY_MAX_CHARS);
    assert.ok(long?.endsWith('…'));
  });
});

describe('attention order', () => {
  test('needs-permission first, then busy, then the rest, each group in its first order', () => {
    const items = [
      { id: 'a', agent: agent('idle', 1) },
      { id: 'b', agent: agent('busy', 1) },
      { id: 'c', agent: null },
      { id: 'd', agent: agent('needs-permission', 1) },
      { id: 'e', agent: agent('busy', 1) },
      { id: 'f', agent: agent('sleeping', 1) },
      { id: 'g', agent: agent('needs-permission', 1) },
    ];
    assert.deepEqual(
      byAttention(items, (i) => i.agent).map((i) => i.id),
      ['d', 'g', 'b', 'e', 'a', 'c', 'f'],
    );
  });
});

describe('STATE frame', () => {
  test('carries an agent, its end (null), or says nothing about it', () => {
    const a = agent('busy', 3);
    assert.deepEqual(agentInStateFrame({ agent: a }), a);
    assert.equal(agentInStateFrame({ agent: null }), null);
    assert.equal(agentInStateFrame({ degraded: true }), undefined);
    assert.equal(agentInStateFrame({ agent: { kind: 'vim', state: 'busy', since: 1 } }), undefined);
    assert.equal(agentInStateFrame({ agent: { kind: 'claude', state: 'dreaming', since: 1 } }), undefined);
  });
});
