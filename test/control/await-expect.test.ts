// POST …/await with `expect`: a caller that says what its input is for is
// never surprised by the session. A command line is not typed into an
// agent's input box, and a prompt is not run by a shell whose agent exited;
// each is refused with nothing typed. A retry of an existing await id is
// answered whatever the session has become since.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, withServer, type ControlServer } from './control-server.js';
import type { AgentEventReply } from '../../src/protocol/api/index.js';

/** A program that echoes each line it reads, as an agent's input box would show a prompt. */
const LINE_AGENT = ['sh', '-c', 'while IFS= read -r line; do echo "read: $line"; done'];
const base = { session_id: '9b1f0c2e-0000-4000-8000-0000000000bb', transcript_path: '/nonexistent/t.jsonl', cwd: '/', permission_mode: 'default' };

function report(s: ControlServer, id: string, event: string, payload: Record<string, unknown> = {}) {
  return s.api<AgentEventReply>('POST', `/v1/sessions/${id}/agent/events?agent=claude&event=${event}`, { ...base, hook_event_name: event, ...payload });
}

describe('await with expect', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('expect shell on a session whose agent runs is refused (session_has_agent) and types nothing; expect agent there is a prompt', () =>
    withServer(async (s) => {
      const id = await s.newShell(LINE_AGENT, { name: 'agent', prompt: /^/ });
      await report(s, id, 'SessionStart', { source: 'startup' });
      const refused = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'echo typed-as-command', expect: 'shell', timeoutMs: 0 });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'session_has_agent');
      const prompted = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'a prompt', expect: 'agent', timeoutMs: 0 });
      assert.equal(prompted.status, 202, JSON.stringify(prompted.body));
      await waitFor('the prompt typed', async () => (await s.screen(id)).includes('read: a prompt'));
      assert.ok(!(await s.screen(id)).includes('typed-as-command'), 'the refused line was never typed');
    }));

  test('expect agent on a shell with no agent is refused (no_agent) and types nothing; expect shell there runs the command', () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash'], { name: 'sh' });
      const bad = await s.api('POST', `/v1/sessions/${id}/await`, { input: 'echo x', expect: 'sometimes' });
      assert.equal(bad.status, 400);
      const refused = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'echo typed-as-prompt', expect: 'agent', timeoutMs: 0 });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, 'no_agent');
      assert.ok(!(await s.screen(id)).includes('typed-as-prompt'), 'the refused prompt was never typed');
      const ran = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'echo ran-as-command', expect: 'shell', timeoutMs: 30_000 });
      assert.equal(ran.status, 200, JSON.stringify(ran.body));
      assert.deepEqual([ran.body.exitCode, ran.body.output], [0, 'ran-as-command\n']);
    }));
});
