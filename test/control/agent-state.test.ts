// An agent's state as its hooks report it to a real server: the transitions
// of a turn, a permission question, a failure, the agent's end; carried in
// the session's info and to a viewer (STATE { agent }); kept across a server
// SIGKILL; and every bad report refused without harm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { request } from 'node:http';
import { startTestServer, waitFor, killAndRestart, type TestServer } from '../server/harness.js';
import { decodeFrameFromServer, encodeFrameToServer, VIEWER_PROTOCOL_VERSION, type FrameFromServer } from '../../src/protocol/viewer-frames.js';
import type { AgentInfo, AgentEventReply, SessionInfo, SplitReply } from '../../src/protocol/api/index.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const T = { timeout: 120_000 };

/** POSTs bytes as they are (the API client sends JSON only) over the server's unix socket. */
function postBytes(t: TestServer, path: string, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: t.client.paths.serverSocket, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function shellSession(t: TestServer): Promise<string> {
  const started = await t.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  const made = await t.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh'], name: 'agent' });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body.id;
}

function report(t: TestServer, id: string, event: string, payload: unknown, agent = 'claude') {
  return t.api<AgentEventReply>('POST', `/v1/sessions/${id}/agent/events?agent=${agent}&event=${event}`, payload);
}

const base = { session_id: '7d2a3f9c-0000-4000-8000-000000000001', transcript_path: '/nonexistent/t.jsonl', cwd: '/tmp', permission_mode: 'default' };

test('a Claude turn: started, busy, needs-permission, busy again, idle with the answer; failed; ended', T, async () => {
  const t = startTestServer();
  try {
    const id = await shellSession(t);
    const before = await t.api<SessionInfo>('GET', `/v1/sessions/${id}`);
    assert.equal(before.body.agent, null, 'no agent until one reports');

    let r = await report(t, id, 'SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    assert.equal(r.status, 200);
    assert.equal(r.body.agent.state, 'idle');
    assert.equal(r.body.agent.agentSessionId, base.session_id);
    assert.equal(r.body.agent.launchedByTend, false);

    r = await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'list the files', prompt_id: 'p-1' });
    assert.equal(r.body.agent.state, 'busy');
    assert.equal(r.body.agent.lastTurn?.id, 'p-1');
    assert.equal(r.body.agent.lastTurn?.outcome, 'running');

    r = await report(t, id, 'PermissionRequest', { ...base, hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'ls -la' }, permission_suggestions: [] });
    assert.equal(r.body.agent.state, 'needs-permission');
    assert.equal(r.body.agent.asking, 'Bash: ls -la');

    // The question is not on the screen (this shell shows none): a tool event ends it.
    r = await report(t, id, 'PostToolUse', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls -la' } });
    const afterTool = await waitFor('busy after the tool ran', async () => {
      const s = await t.api<SessionInfo>('GET', `/v1/sessions/${id}`);
      return s.body.agent?.state === 'busy' ? s.body.agent : null;
    });
    assert.equal(afterTool.asking, null);

    r = await report(t, id, 'Stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Two files: a and b.', background_tasks: [] });
    assert.equal(r.body.agent.state, 'idle');
    assert.deepEqual(
      { outcome: r.body.agent.lastTurn?.outcome, answer: r.body.agent.lastTurn?.answer, prompt: r.body.agent.lastTurn?.prompt },
      { outcome: 'answered', answer: 'Two files: a and b.', prompt: 'list the files' },
    );

    await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'again' });
    r = await report(t, id, 'StopFailure', { ...base, hook_event_name: 'StopFailure', error: 'rate_limit', error_details: 'retry in 30 s', last_assistant_message: 'API Error: rate limited' });
    assert.equal(r.body.agent.state, 'idle');
    assert.equal(r.body.agent.lastTurn?.outcome, 'failed');
    assert.equal(r.body.agent.lastTurn?.error, 'rate_limit: retry in 30 s');

    // Background work the last Stop reports is counted (an agent with some is not put to sleep).
    await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'serve it' });
    r = await report(t, id, 'Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: 'Started the server.', background_tasks: [{ id: 'b1', type: 'bash', status: 'running', command: 'npm run dev' }] });
    assert.equal(r.body.agent.backgroundTasks, 1);

    r = await report(t, id, 'SessionEnd', { ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });
    assert.equal(r.body.agent.state, 'exited');

    // /clear starts a new conversation: the next SessionStart re-maps the id.
    r = await report(t, id, 'SessionStart', { ...base, session_id: 'second-conversation', hook_event_name: 'SessionStart', source: 'clear' });
    assert.equal(r.body.agent.agentSessionId, 'second-conversation');
    assert.equal(r.body.agent.state, 'idle');
  } finally {
    await t.dispose();
  }
});

test('a late permission notification after the question was answered does not flip the state; Gemini and Codex events map the same', T, async () => {
  const t = startTestServer();
  try {
    const id = await shellSession(t);
    await report(t, id, 'SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    // Claude's permission_prompt comes ~6 s after the question; by then it may be answered (no question on this screen).
    const late = await report(t, id, 'Notification', { ...base, hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'Claude needs your permission to use Bash' });
    assert.equal(late.body.agent.state, 'busy', 'believed only with the question on screen');
    await report(t, id, 'Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: 'ok' });
    const s = await t.api<SessionInfo>('GET', `/v1/sessions/${id}`);
    assert.equal(s.body.agent?.state, 'idle');

    const gid = (await t.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh'] })).body.id;
    const g = { session_id: 'g-1', transcript_path: '/nonexistent', cwd: '/tmp', timestamp: '2026-12-06T00:00:00Z' };
    let r = await report(t, gid, 'SessionStart', { ...g, hook_event_name: 'SessionStart', source: 'startup' }, 'gemini');
    assert.equal(r.body.agent.kind, 'gemini');
    r = await report(t, gid, 'BeforeAgent', { ...g, hook_event_name: 'BeforeAgent', prompt: 'hello' }, 'gemini');
    assert.equal(r.body.agent.state, 'busy');
    r = await report(t, gid, 'AfterAgent', { ...g, hook_event_name: 'AfterAgent', prompt: 'hello', prompt_response: 'Hi there.', stop_hook_active: false }, 'gemini');
    assert.equal(r.body.agent.state, 'idle');
    assert.equal(r.body.agent.lastTurn?.answer, 'Hi there.');

    const cid = (await t.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh'] })).body.id;
    const c = { session_id: 'c-1', transcript_path: null, cwd: '/tmp', model: 'gpt-5', permission_mode: 'default' };
    await report(t, cid, 'UserPromptSubmit', { ...c, hook_event_name: 'UserPromptSubmit', prompt: 'fix it', turn_id: 'turn-9' }, 'codex');
    r = await report(t, cid, 'Stop', { ...c, hook_event_name: 'Stop', turn_id: 'turn-9', stop_hook_active: false, last_assistant_message: 'Fixed.' }, 'codex');
    assert.deepEqual([r.body.agent.kind, r.body.agent.lastTurn?.id, r.body.agent.lastTurn?.answer], ['codex', 'turn-9', 'Fixed.']);
  } finally {
    await t.dispose();
  }
});

test('a tool event of a parallel tool does not end needs-permission while the question is on screen; once it is gone, the next one does', T, async () => {
  const t = startTestServer();
  try {
    const id = await shellSession(t);
    await report(t, id, 'SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'two tools' });
    const sent = await t.cli(['send', id, '--enter', "printf 'Bash command\\n  rm -rf build\\nDo you want to proceed?\\n> 1. Yes\\n  2. No\\n'"]);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor('the question on screen', async () => (await t.cli(['screen', id])).stdout.includes('Do you want to proceed?\n'));
    await report(t, id, 'PermissionRequest', { ...base, hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
    await report(t, id, 'PreToolUse', { ...base, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/tmp/x' } });
    // The screen check is asynchronous; a screen read asked after it is answered after it (one queue).
    const agent = async () => (await t.api<SessionInfo>('GET', `/v1/sessions/${id}`)).body.agent!;
    assert.equal((await t.api('GET', `/v1/sessions/${id}/screen`)).status, 200);
    assert.equal((await agent()).state, 'needs-permission', 'the question still shows');
    assert.equal((await agent()).asking, 'Bash: rm -rf build');

    await t.cli(['send', id, '--enter', 'clear']);
    await waitFor('the question gone from the screen', async () => !(await t.cli(['screen', id])).stdout.includes('Do you want to proceed?'));
    await report(t, id, 'PostToolUse', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });
    await waitFor('busy once the question is gone', async () => (await agent()).state === 'busy');
  } finally {
    await t.dispose();
  }
});

test('a viewer gets the agent in STATE frames: on subscribe and on every change', T, async () => {
  const t = startTestServer();
  try {
    const id = await shellSession(t);
    await report(t, id, 'SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    const ws = new WebSocket(`ws+unix://${t.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const frames: FrameFromServer[] = [];
    ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
    try {
      ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }));
      ws.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: id, cols: 80, rows: 24 }));
      const agentStates = () => frames.flatMap((f) => (f.type === 'state' && 'agent' in f.state ? [f.state.agent as AgentInfo] : []));
      await waitFor('the agent with the snapshot', () => agentStates().some((a) => a.state === 'idle'));
      await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
      await waitFor('busy told to the viewer', () => agentStates().some((a) => a.state === 'busy'));
      await report(t, id, 'Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: 'hello' });
      const last = await waitFor('idle with the answer', () => agentStates().find((a) => a.state === 'idle' && a.lastTurn?.answer === 'hello'));
      assert.equal(last.kind, 'claude');
    } finally {
      ws.terminate();
    }
  } finally {
    await t.dispose();
  }
});

test('the agent and its last turn outlive a server SIGKILL', T, async () => {
  const t = startTestServer();
  try {
    const id = await shellSession(t);
    await report(t, id, 'SessionStart', { ...base, hook_event_name: 'SessionStart', source: 'startup' });
    await report(t, id, 'UserPromptSubmit', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'remember me' });
    await report(t, id, 'Stop', { ...base, hook_event_name: 'Stop', last_assistant_message: 'I will.' });
    await killAndRestart(t);
    const s = await t.api<SessionInfo>('GET', `/v1/sessions/${id}`);
    assert.equal(s.status, 200);
    assert.equal(s.body.agent?.agentSessionId, base.session_id);
    assert.equal(s.body.agent?.state, 'idle');
    assert.equal(s.body.agent?.lastTurn?.answer, 'I will.');
  } finally {
    await t.dispose();
  }
});

test('bad reports are refused and change nothing: unknown agent, bad event name, not JSON, too large, no such session; an unknown event is accepted and unused', T, async () => {
  const t = startTestServer();
  try {
    const id = await shellSession(t);
    const path = (q: string) => `/v1/sessions/${id}/agent/events?${q}`;
    let r = await t.api<any>('POST', path('agent=cursor&event=Stop'), { ...base });
    assert.deepEqual([r.status, r.body.error.code], [400, 'bad_request']);
    assert.match(r.body.error.message, /claude, codex, gemini/);
    r = await t.api<any>('POST', path('agent=claude&event=Stop%20now'), { ...base });
    assert.deepEqual([r.status, r.body.error.code], [400, 'bad_request']);

    const raw = (body: Buffer | string, q = 'agent=claude&event=Stop') => postBytes(t, path(q), typeof body === 'string' ? Buffer.from(body) : body);
    let b = await raw('this is not json {');
    assert.deepEqual([b.status, JSON.parse(b.body).error.code], [400, 'bad_json']);
    b = await raw('[1,2]');
    assert.deepEqual([b.status, JSON.parse(b.body).error.code], [400, 'bad_json']);
    b = await raw(Buffer.alloc(10 * 1024 * 1024, 0x61));
    assert.deepEqual([b.status, JSON.parse(b.body).error.code], [413, 'too_large']);

    const s = await t.api<SessionInfo>('GET', `/v1/sessions/${id}`);
    assert.equal(s.body.agent, null, 'no bad report made an agent');

    r = await t.api<any>('POST', path('agent=claude&event=PreCompact'), { ...base, hook_event_name: 'PreCompact' });
    assert.equal(r.status, 200);
    assert.equal(r.body.used, false);
    assert.equal(r.body.agent.kind, 'claude');

    r = await t.api<any>('POST', `/v1/sessions/gone1234/agent/events?agent=claude&event=Stop`, { ...base });
    assert.deepEqual([r.status, r.body.error.code], [404, 'no_session']);

    // A payload the client cut at its limit still counts as the event.
    r = await t.api<any>('POST', path('agent=claude&event=UserPromptSubmit&truncated=1'));
    assert.equal(r.status, 200);
    assert.equal(r.body.agent.state, 'busy');
  } finally {
    await t.dispose();
  }
});

test('a split can start an agent beside its neighbour, as POST /v1/sessions can; a program that is no shell cannot hold one', T, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tend-agent-split-'));
  const agents = installFakeAgents(dir);
  const t = startTestServer({ CLAUDE_CONFIG_DIR: join(dir, 'claude-home') });
  try {
    const id = await shellSession(t);
    const env = { ...(t.env as Record<string, string>), ...agents.env, CLAUDE_CONFIG_DIR: join(dir, 'claude-home') };
    const split = await t.api<SplitReply>('POST', `/v1/sessions/${id}/split`, { argv: ['bash'], env, agent: { kind: 'claude' } });
    assert.equal(split.status, 201, JSON.stringify(split.body));
    const agent = await waitFor('the agent beside it idle', async () => {
      const s = await t.api<SessionInfo>('GET', `/v1/sessions/${split.body.session.id}`);
      return s.body.agent?.state === 'idle' ? s.body.agent : null;
    }, 60_000);
    assert.equal(agent.launchedByTend, true);
    assert.equal(agent.hooksSeen, true);
    const files = join(t.home, 'agents', split.body.session.id);
    assert.ok(existsSync(join(files, 'claude-settings.json')), "tend's hooks for the run");
    assert.equal((await t.api('DELETE', `/v1/sessions/${split.body.session.id}`)).status, 200);
    assert.ok(!existsSync(files), "a killed session's agent files go with it");

    const refused = await t.api<any>('POST', '/v1/sessions', { argv: ['cat'], agent: { kind: 'claude' } });
    assert.deepEqual([refused.status, refused.body.error.code], [400, 'bad_request']);
    assert.match(refused.body.error.message, /must start a shell/);
  } finally {
    await t.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
