// The native hook client (holder/build/tend-hook KIND EVENT), run as agents
// run it: a fresh process with the hook's JSON payload on stdin. Whatever
// happens (no server, a stopped one, bad input) it exits 0 and prints
// nothing, since an agent reads a hook's stdout as JSON, shows its stderr,
// blocks its turn on exit 2 and waits while it runs; and an event it can
// send reaches the server of the session it runs in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { hookClient, hookEnv, runHook, sessionStartPayload, type HookRun } from './hook-run.js';
import { startHookServer } from './hook-server.js';

const TEST_TIMEOUT_MS = 90_000;
/** Loose on purpose (CI is noisy): a hook that waited on a missing server or a stopped one would take its full 30 s guard. */
const QUICK_EXIT_MS = 5_000;
const TEN_MB = 10 * 1024 * 1024;

function assertQuietSuccess(run: HookRun, what: string): void {
  assert.equal(run.signal, null, `${what}: killed by ${run.signal}`);
  assert.equal(run.code, 0, `${what}: exit ${run.code}`);
  assert.equal(run.stdout, '', `${what}: printed on stdout`);
  assert.equal(run.stderr, '', `${what}: printed on stderr`);
  assert.equal(run.writeError, null, `${what}: writing the payload met ${run.writeError}`);
}

test('with no server (a socket that is not there, or no TEND_SOCKET) the client exits 0 at once and prints nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = makeTempDir('tend-hook-');
  try {
    const payload = sessionStartPayload(randomUUID(), dir);
    const missing = await runHook([hookClient, 'claude', 'SessionStart'], hookEnv('abc1234', join(dir, 'no-server.sock')), payload);
    assertQuietSuccess(missing, 'a missing socket');
    assert.ok(missing.ms < QUICK_EXIT_MS, `a missing socket took ${missing.ms} ms`);
    // Kept beside the socket for the next server (hook-spool.test.ts follows it there).
    assert.equal(readdirSync(join(dir, 'hook-spool')).length, 1, 'the undelivered event is spooled');
    const unset = await runHook([hookClient, 'claude', 'SessionStart'], hookEnv('abc1234', undefined), payload);
    assertQuietSuccess(unset, 'no TEND_SOCKET');
    assert.ok(unset.ms < QUICK_EXIT_MS, `no TEND_SOCKET took ${unset.ms} ms`);
    const outside = await runHook([hookClient, 'claude', 'SessionStart'], hookEnv(undefined, undefined), payload);
    assertQuietSuccess(outside, 'outside tend (neither variable)');
    assert.deepEqual(readdirSync(dir), ['hook-spool'], 'no server named: nothing written anywhere else');
  } finally {
    removeTempDir(dir);
  }
});

test('a SessionStart from a program in a tend session reaches its server: the session shows a claude agent with the payload\'s conversation id', { timeout: TEST_TIMEOUT_MS }, async () => {
  const conversation = randomUUID();
  const dir = makeTempDir('tend-hook-');
  // The hook runs inside the session, with the TEND_SESSION and TEND_SOCKET the server gave it, as an agent's hook would;
  // once a line is typed, so that the server has finished creating the session (an agent's first hook comes later still).
  const script = `read go; printf '%s' "$HOOK_PAYLOAD" | "$HOOK_CLIENT" claude SessionStart > "$HOOK_OUT" 2>&1; echo "hook exit $?"; exec sleep 600`;
  const out = join(dir, 'hook-output');
  const h = await startHookServer(['sh', '-c', script], { HOOK_PAYLOAD: sessionStartPayload(conversation, dir), HOOK_CLIENT: hookClient, HOOK_OUT: out });
  try {
    const sent = await h.server.cli(['send', h.session, '--enter', 'go']);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor(async () => (await h.server.cli(['screen', h.session])).stdout.includes('hook exit 0'), { what: 'the hook to exit 0 in the session' });
    const agent = await waitFor(() => h.agent(), { what: 'the session to show an agent' });
    assert.equal(agent.kind, 'claude');
    assert.equal(agent.agentSessionId, conversation);
    assert.equal(agent.cwd, dir);
    assert.equal(agent.hooksSeen, true);
    assert.equal(readFileSync(out, 'utf8'), '', 'the hook printed nothing');
  } finally {
    await h.server.dispose();
    removeTempDir(dir);
  }
});

test('one agent\'s events, run one after the other, reach the server in order: a prompt, then the Stop with its answer', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  try {
    const env = hookEnv(h.session, h.socket);
    const conversation = randomUUID();
    const common = { session_id: conversation, transcript_path: join(h.server.home, 't.jsonl'), cwd: h.server.home };
    const events: Array<[string, object]> = [
      ['SessionStart', { ...common, hook_event_name: 'SessionStart', source: 'startup' }],
      ['UserPromptSubmit', { ...common, hook_event_name: 'UserPromptSubmit', prompt: 'say hi' }],
      ['Stop', { ...common, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'hi there' }],
    ];
    for (const [event, payload] of events) assertQuietSuccess(await runHook([hookClient, 'claude', event], env, JSON.stringify(payload)), event);
    const agent = await waitFor(async () => {
      const a = await h.agent();
      return a?.lastTurn?.outcome === 'answered' ? a : null;
    }, { what: 'the turn to be answered' });
    assert.equal(agent.state, 'idle');
    assert.equal(agent.lastTurn?.prompt, 'say hi');
    assert.equal(agent.lastTurn?.answer, 'hi there');
  } finally {
    await h.server.dispose();
  }
});

test('bad input (not JSON, a session that does not exist, unknown or malformed event names, a wrong kind) exits 0 and prints nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  try {
    const env = hookEnv(h.session, h.socket);
    const payload = sessionStartPayload(randomUUID(), h.server.home);
    const cases: Array<[string, string[], NodeJS.ProcessEnv, string | Buffer]> = [
      ['a payload that is not JSON', ['claude', 'Stop'], env, 'this is {not json'],
      ['a JSON array', ['claude', 'Stop'], env, '[1, 2, 3]'],
      ['an empty payload', ['claude', 'Stop'], env, ''],
      ['a session that does not exist', ['claude', 'SessionStart'], hookEnv('fffffff', h.socket), payload],
      ['a session id that is no id', ['claude', 'SessionStart'], hookEnv('../../v1/sessions', h.socket), payload],
      ['an event tend does not use', ['codex', 'PreCompact'], env, '{}'],
      ['a malformed event name', ['claude', 'Stop;rm'], env, '{}'],
      ['a kind that is no agent', ['vim', 'Stop'], env, '{}'],
      ['no arguments', [], env, '{}'],
      ['an extra argument', ['claude', 'Stop', 'more'], env, '{}'],
    ];
    for (const [what, args, caseEnv, input] of cases) assertQuietSuccess(await runHook([hookClient, ...args], caseEnv, input), what);
    // The server took all of that in its stride: the next good event is read whole.
    const conversation = randomUUID();
    assertQuietSuccess(await runHook([hookClient, 'claude', 'SessionStart'], env, sessionStartPayload(conversation, h.server.home)), 'a good event after');
    await waitFor(async () => (await h.agent())?.agentSessionId === conversation, { what: 'the good event\'s conversation id' });
  } finally {
    await h.server.dispose();
  }
});

test('a 10 MB payload is read to its end (the agent meets no closed pipe) and reported as a truncated event: it counts, its body is not read', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  try {
    const env = hookEnv(h.session, h.socket);
    assert.equal(await h.agent(), null, 'no agent before the event');
    // A real payload with one huge field: had the body been read, its session_id would show.
    const fields = JSON.parse(sessionStartPayload(randomUUID(), h.server.home)) as Record<string, unknown>;
    const big = Buffer.from(JSON.stringify({ ...fields, session_title: 'x'.repeat(TEN_MB) }));
    const run = await runHook([hookClient, 'claude', 'SessionStart'], env, big);
    assertQuietSuccess(run, 'a 10 MB payload');
    const agent = await waitFor(() => h.agent(), { what: 'the truncated event to reach the server' });
    assert.equal(agent.kind, 'claude');
    assert.equal(agent.agentSessionId, null, 'a truncated payload is not read');
  } finally {
    await h.server.dispose();
  }
});

test('a stdin the agent never closes is not waited on past the client\'s deadline: the event is reported, as truncated', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  try {
    const run = await runHook([hookClient, 'claude', 'SessionStart'], hookEnv(h.session, h.socket), sessionStartPayload(randomUUID(), h.server.home), { keepStdinOpen: true });
    assertQuietSuccess(run, 'a stdin left open');
    assert.ok(run.ms < QUICK_EXIT_MS, `the hook waited ${run.ms} ms on an open stdin`);
    const agent = await waitFor(() => h.agent(), { what: 'the event to reach the server' });
    assert.equal(agent.agentSessionId, null, 'a payload whose end never came is not read');
  } finally {
    await h.server.dispose();
  }
});

test('a stopped server (SIGSTOP) does not hold the hook: it exits 0 within its own bound, and does not spool what the server may still apply', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const pid = h.server.serverPid();
  assert.ok(pid !== null, 'the server runs');
  process.kill(pid, 'SIGSTOP');
  try {
    const env = hookEnv(h.session, h.socket);
    const run = await runHook([hookClient, 'claude', 'UserPromptSubmit'], env, JSON.stringify({ session_id: randomUUID(), hook_event_name: 'UserPromptSubmit', prompt: 'hello' }));
    assertQuietSuccess(run, 'a stopped server');
    assert.ok(run.ms < QUICK_EXIT_MS, `the hook waited ${run.ms} ms on a stopped server`);
    // Written but not answered in time: the server has it in its socket, so a spooled copy would apply it twice.
    const spool = h.server.client.paths.hookSpoolDir;
    assert.deepEqual(readdirSync(spool).filter((n) => !n.startsWith('.')), [], 'nothing spooled');
    process.kill(pid, 'SIGCONT');
    const agent = await waitFor(async () => {
      const a = await h.agent();
      return a?.lastTurn?.prompt === 'hello' ? a : null;
    }, { what: 'the stopped server, continued, to apply the event it was sent' });
    assert.equal(agent.state, 'busy');
  } finally {
    process.kill(pid, 'SIGCONT');
    await h.server.dispose();
  }
});
