// The `prompt_agent` tool of `tend mcp` (and await_result on an agent's
// turn) through the MCP SDK's own client, against a real server with the
// fake agent CLI (test/support/fake-agent) started by `tend agent` with
// tend's hooks: the turn's answer, a failed turn, progress while a slow turn
// runs, a pending turn collected later, a long answer cut with a way to read
// more, and the refusals between run and prompt_agent.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectMcp, type McpPeer } from './mcp-harness.js';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, startControlServer, type ControlServer } from '../control/control-server.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

/** A control server whose sessions find the fake agents first on PATH, `tend mcp` on it, and a fake Claude idle in session :c. */
async function withFakeClaude(t: TestContext): Promise<{ server: ControlServer; mcp: McpPeer; id: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tend-mcp-agent-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = startControlServer(installFakeAgents(dir).env);
  t.after(() => server.dispose());
  const mcp = await connectMcp(t, server);
  const started = await server.cli(['agent', 'claude', '--name', 'c', '--sleep-after', '0', '--json']);
  assert.equal(started.code, 0, started.stderr);
  const id = (JSON.parse(started.stdout) as SessionInfo).id;
  await waitFor('the fake claude idle (its SessionStart hook)', async () => (await agentOf(server, id))?.state === 'idle', 60_000);
  return { server, mcp, id };
}

async function agentOf(server: ControlServer, id: string) {
  return (await server.api<SessionInfo>('GET', `/v1/sessions/${id}`)).body.agent;
}

describe('tend mcp: prompt_agent', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test("answers the agent's answer from its Stop hook; a failed turn answers its error", async (t) => {
    const { server, mcp, id } = await withFakeClaude(t);
    const answered = await mcp.call('prompt_agent', { session: ':c', prompt: 'echo the answer is 42' });
    assert.equal(answered.isError, false, answered.text);
    const agent = await agentOf(server, id);
    assert.deepEqual(
      {
        status: answered.value.status,
        session: answered.value.session,
        answer: answered.value.answer,
        outcome: answered.value.outcome,
        error: answered.value.error,
        answer_from: answered.value.answer_from,
        state: answered.value.state,
        agent_session_id: answered.value.agent_session_id,
        cut: answered.value.cut,
      },
      { status: 'done', session: id, answer: 'the answer is 42', outcome: 'answered', error: null, answer_from: 'hook', state: 'idle', agent_session_id: agent?.agentSessionId, cut: null },
    );
    assert.match(answered.value.await_id, /^w[0-9a-f]{12}$/);
    assert.ok(answered.value.duration_ms >= 250, `the fake answers after 300 ms; took ${answered.value.duration_ms}`);
    assert.equal(answered.value.exit_code, undefined, 'no command fields');

    const failed = await mcp.call('prompt_agent', { session: id, prompt: 'please fail now' });
    assert.equal(failed.isError, false, failed.text);
    assert.deepEqual([failed.value.status, failed.value.outcome, failed.value.error], ['done', 'failed', 'rate_limit: 429 Too Many Requests']);
  });

  test('progress while a slow turn runs; a turn that outlasts timeout_seconds answers pending and await_result collects it', async (t) => {
    const { mcp } = await withFakeClaude(t);
    const slow = await mcp.call('prompt_agent', { session: ':c', prompt: 'a slow question' }, { progress: true });
    assert.equal(slow.isError, false, slow.text);
    assert.deepEqual([slow.value.status, slow.value.answer], ['done', 'You said: a slow question']);
    assert.ok(slow.progress.length >= 1, `progress while it ran: ${JSON.stringify(slow.progress)}`);
    for (const message of slow.progress) assert.ok(message.includes(slow.value.await_id), `"${message}" names the await`);

    const pending = await mcp.call('prompt_agent', { session: ':c', prompt: 'another slow one', timeout_seconds: 1 });
    assert.equal(pending.isError, false, pending.text);
    assert.equal(pending.value.status, 'pending');
    assert.equal(pending.value.answer, undefined);
    assert.match(pending.value.note, new RegExp(`await_result with await_id "${pending.value.await_id}"`));
    assert.match(pending.value.note, /keys \["Escape"\] interrupts the agent's turn/);
    const collected = await mcp.call('await_result', { await_id: pending.value.await_id });
    assert.equal(collected.isError, false, collected.text);
    assert.deepEqual(
      [collected.value.status, collected.value.kind, collected.value.outcome, collected.value.answer],
      ['done', 'agent', 'answered', 'You said: another slow one'],
    );
  });

  test('a long answer is cut to its end, and await_result with a larger max_chars answers all of it', async (t) => {
    const { mcp } = await withFakeClaude(t);
    const lines = Array.from({ length: 200 }, (_, i) => `line number ${i + 1} of a long prompt`);
    const whole = `You said (200 lines):\n${lines.join('\n')}`;
    const cut = await mcp.call('prompt_agent', { session: ':c', prompt: lines.join('\n'), max_chars: 1000 });
    assert.equal(cut.isError, false, cut.text);
    assert.ok(cut.value.answer.length <= 1000);
    assert.ok(whole.endsWith(cut.value.answer), 'the end of the answer');
    assert.equal(cut.value.cut.kept, 'tail');
    assert.match(cut.value.cut.note, new RegExp(`await_result with await_id "${cut.value.await_id}" and a larger max_chars`));
    const all = await mcp.call('await_result', { await_id: cut.value.await_id, max_chars: 80_000 });
    assert.deepEqual([all.value.answer, all.value.cut], [whole, null]);
  });

  test('run refuses a session whose terminal the agent holds; prompt_agent refuses a session with no agent, saying how to start one', async (t) => {
    const { server, mcp, id } = await withFakeClaude(t);
    const refused = await mcp.call('run', { session: ':c', command: 'echo hi' });
    assert.equal(refused.isError, true);
    assert.deepEqual([refused.value.code, refused.value.session, refused.value.agent], ['session_has_agent', id, { kind: 'claude', state: 'idle' }]);
    assert.match(refused.value.hint, /prompt_agent/);

    const shell = await mcp.call('run', { command: 'echo a shell' });
    assert.equal(shell.isError, false, shell.text);
    const noAgent = await mcp.call('prompt_agent', { session: shell.value.session, prompt: 'hello' });
    assert.equal(noAgent.isError, true);
    assert.equal(noAgent.value.code, 'no_agent');
    assert.match(noAgent.value.hint, /new_session with agent/);
    const commands = (await server.api<unknown[]>('GET', `/v1/sessions/${shell.value.session}/commands`)).body;
    assert.equal(commands.length, 1, 'nothing was typed into the shell');
  });
});
