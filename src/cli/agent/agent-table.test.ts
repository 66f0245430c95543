import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentTable, turnText } from './agent-table.js';
import type { AgentInfo } from '../../protocol/api/index.js';

const NOW = 1_800_000_000_000;

function agent(over: Partial<AgentInfo>): AgentInfo {
  return {
    kind: 'claude', state: 'idle', since: NOW - 5000, agentSessionId: 'abc', cwd: '/w', hooksSeen: true, asking: null,
    backgroundTasks: 0, lastTurn: null, sleepAfterMs: null, launchedByTend: true, ...over,
  };
}

test('a turn is its outcome, when, and what it said, on one line and shortened', () => {
  assert.equal(turnText(null, NOW), '-');
  const base = { id: 't1', prompt: 'fix it', startedAt: NOW - 65_000, endedAt: NOW - 3000, error: null };
  assert.equal(turnText({ ...base, outcome: 'answered', answer: 'Done:\n3 files' }, NOW), 'answered 3s ago: Done: 3 files');
  assert.equal(turnText({ ...base, outcome: 'failed', answer: null, error: 'rate_limit' }, NOW), 'failed 3s ago: rate_limit');
  assert.equal(turnText({ ...base, endedAt: null, outcome: 'running', answer: null }, NOW), 'running 1m ago: fix it');
  assert.equal(turnText({ ...base, outcome: 'interrupted', answer: null }, NOW), 'interrupted 3s ago');
  const long = turnText({ ...base, outcome: 'answered', answer: 'x'.repeat(200) }, NOW);
  assert.ok(long.endsWith('…') && long.length < 80, long);
});

test('the table names each session, what a waiting agent asks, and each warning below', () => {
  const out = agentTable([
    { id: 'a1', name: 'fix', agent: agent({ state: 'needs-permission', asking: 'Bash: rm -rf build' }) },
    { id: 'b2', name: null, agent: agent({ kind: 'codex', state: 'starting', agentSessionId: null, warning: 'no hook of Codex has reached tend' }) },
  ], { now: NOW });
  assert.deepEqual(out.split('\n'), [
    'SESSION  AGENT   STATE                                  SINCE   CONVERSATION  LAST TURN',
    ':fix     claude  needs-permission (Bash: rm -rf build)  5s ago  abc           -',
    'b2       codex   starting                               5s ago  -             -',
    'b2: warning: no hook of Codex has reached tend',
    '',
  ]);
  const coloured = agentTable([{ id: 'a1', name: 'fix', agent: agent({ state: 'needs-permission', asking: 'Bash' }) }, { id: 'c3', name: null, agent: agent({}) }], { now: NOW, colour: true });
  assert.match(coloured, /^:fix {5}claude {2}\x1b\[1;33mneeds-permission \(Bash\)\x1b\[0m {2}5s ago/m, 'padded by the text alone');
  assert.match(coloured, /^c3 {7}claude {2}idle {21}5s ago/m, 'an idle agent is not marked');
});
