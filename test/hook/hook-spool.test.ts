// An agent's hook event sent while no server answers is kept in the hook
// spool (beside the server's socket) by the real hook client, and the next
// server replays it, in the order the events happened, before it answers
// anyone: a Stop lost to a restart would leave the turn "running" and a
// `tend await` waiting for the agent's next turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { isAlive } from '../server/harness.js';
import { hookClient, hookEnv, runHook, type HookRun } from './hook-run.js';
import { startHookServer, type HookServer } from './hook-server.js';
import { withServer } from '../control/control-server.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import type { AwaitAgentDone, SessionInfo } from '../../src/protocol/api/index.js';

const TEST_TIMEOUT_MS = 120_000;
/** Loose on purpose (a loaded machine): a hook that waited on the missing server would take its 30 s guard. */
const QUICK_EXIT_MS = 5_000;
/** The hook client's bounds (SPOOL_MAX_FILES, SPOOL_MAX_BYTES in holder/hook-client.c). */
const SPOOL_MAX_FILES = 1000;
const SPOOL_MAX_BYTES = 64 * 1024 * 1024;
const SPOOL_NAME = /^\d{20}-\d+-[A-Za-z0-9]+-(claude|codex|gemini)-[A-Za-z0-9_]+(\.truncated)?\.json$/;

function assertQuietSuccess(run: HookRun, what: string): void {
  assert.equal(run.signal, null, `${what}: killed by ${run.signal}`);
  assert.equal(run.code, 0, `${what}: exit ${run.code}`);
  assert.equal(run.stdout, '', `${what}: printed on stdout`);
  assert.equal(run.stderr, '', `${what}: printed on stderr`);
  assert.ok(run.ms < QUICK_EXIT_MS, `${what}: took ${run.ms} ms`);
}

/** The spool's event files, in name order (temporary dot-files left out). */
function spooled(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith('.')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** A Claude payload of `event` for one conversation, with the fields the real one has. */
function claudePayload(conversation: string, cwd: string, event: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ session_id: conversation, transcript_path: join(cwd, 't.jsonl'), cwd, hook_event_name: event, ...fields });
}

async function hook(h: HookServer, event: string, payload: string, socket = h.socket): Promise<HookRun> {
  const run = await runHook([hookClient, 'claude', event], hookEnv(h.session, socket), payload);
  assertQuietSuccess(run, event);
  return run;
}

/** Starts a conversation with its first prompt, live: the agent is busy. */
async function busyAgent(h: HookServer, conversation: string, prompt: string): Promise<void> {
  await hook(h, 'SessionStart', claudePayload(conversation, h.server.home, 'SessionStart', { source: 'startup' }));
  await hook(h, 'UserPromptSubmit', claudePayload(conversation, h.server.home, 'UserPromptSubmit', { prompt }));
  await waitFor(async () => (await h.agent())?.state === 'busy', { what: 'the agent to be busy with its prompt' });
}

async function stopServer(h: HookServer): Promise<void> {
  const stopped = await h.server.cli(['server', 'stop']);
  assert.equal(stopped.code, 0, stopped.stderr);
}

async function killServer(h: HookServer): Promise<void> {
  const pid = h.server.serverPid();
  assert.ok(pid !== null, 'the server runs');
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isAlive(pid), { what: 'the killed server to be gone' });
}

async function startServer(h: HookServer): Promise<void> {
  const started = await h.server.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
}

function serverLog(h: HookServer): string {
  return readFileSync(h.server.client.paths.serverLog, 'utf8');
}

test('a Stop sent while the server is stopped is spooled and replayed by the next server before it answers: the turn is answered, the spool empty', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const spool = h.server.client.paths.hookSpoolDir;
  try {
    const conversation = randomUUID();
    await busyAgent(h, conversation, 'what is kept?');
    await stopServer(h);
    await hook(h, 'Stop', claudePayload(conversation, h.server.home, 'Stop', { stop_hook_active: false, last_assistant_message: 'kept' }));
    const files = spooled(spool);
    assert.equal(files.length, 1, `one spool file: ${files.join(', ')}`);
    assert.match(files[0]!, SPOOL_NAME);
    assert.ok(files[0]!.endsWith(`-${h.session}-claude-Stop.json`), files[0]);
    await startServer(h);
    // No wait: the server replays before its socket answers.
    const agent = await h.agent();
    assert.equal(agent?.state, 'idle');
    assert.equal(agent?.lastTurn?.outcome, 'answered');
    assert.equal(agent?.lastTurn?.prompt, 'what is kept?');
    assert.equal(agent?.lastTurn?.answer, 'kept');
    assert.deepEqual(spooled(spool), [], 'the replayed event is removed');
    assert.match(serverLog(h), /hook spool: replayed 1 agent hook events/);
  } finally {
    await h.server.dispose();
  }
});

test('events spooled while the server is dead (SIGKILL) replay in the order they happened', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const spool = h.server.client.paths.hookSpoolDir;
  try {
    const conversation = randomUUID();
    await busyAgent(h, conversation, 'first');
    await killServer(h);
    const sent: Array<[string, Record<string, unknown>]> = [
      ['Stop', { stop_hook_active: false, last_assistant_message: 'answer one' }],
      ['UserPromptSubmit', { prompt: 'second' }],
      ['PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' }],
      ['Stop', { stop_hook_active: false, last_assistant_message: 'answer two' }],
    ];
    for (const [event, fields] of sent) await hook(h, event, claudePayload(conversation, h.server.home, event, fields));
    const files = spooled(spool);
    assert.deepEqual(files.map((f) => f.replace(/\.json$/, '').split('-').pop()), sent.map(([e]) => e), `names sort in the order sent: ${files.join(', ')}`);
    await startServer(h);
    const agent = await h.agent();
    // Out of order (a Stop before its prompt) the agent would be left busy, or answered with the wrong turn.
    assert.equal(agent?.state, 'idle');
    assert.equal(agent?.lastTurn?.prompt, 'second');
    assert.equal(agent?.lastTurn?.answer, 'answer two');
    assert.deepEqual(spooled(spool), []);
  } finally {
    await h.server.dispose();
  }
});

test('a payload past the cap is spooled as a truncated event (an empty file) and replayed as one: it counts, its fields are not read', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const spool = h.server.client.paths.hookSpoolDir;
  try {
    const conversation = randomUUID();
    await busyAgent(h, conversation, 'a big answer');
    await stopServer(h);
    const big = claudePayload(conversation, h.server.home, 'Stop', { stop_hook_active: false, last_assistant_message: 'x'.repeat(2 * 1024 * 1024) });
    await hook(h, 'Stop', big);
    const files = spooled(spool);
    assert.equal(files.length, 1);
    assert.ok(files[0]!.endsWith(`-${h.session}-claude-Stop.truncated.json`), files[0]);
    assert.equal(statSync(join(spool, files[0]!)).size, 0, 'no body kept');
    await startServer(h);
    const agent = await h.agent();
    assert.equal(agent?.state, 'idle', 'the Stop counted');
    assert.equal(agent?.lastTurn?.outcome, 'answered');
    assert.notEqual(agent?.lastTurn?.answer, 'x'.repeat(2 * 1024 * 1024));
    assert.deepEqual(spooled(spool), []);
  } finally {
    await h.server.dispose();
  }
});

test('an event spooled while a server runs (a hook that raced its start) is replayed without a restart', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const spool = h.server.client.paths.hookSpoolDir;
  try {
    const conversation = randomUUID();
    await busyAgent(h, conversation, 'raced');
    // A socket beside the server's that nobody listens on: the client spools where the server watches.
    const refused = join(h.server.client.paths.runtimeDir, 'not-listening.sock');
    await hook(h, 'Stop', claudePayload(conversation, h.server.home, 'Stop', { stop_hook_active: false, last_assistant_message: 'late but kept' }), refused);
    const agent = await waitFor(async () => {
      const a = await h.agent();
      return a?.lastTurn?.answer === 'late but kept' ? a : null;
    }, { what: 'the spooled Stop to be replayed by the running server' });
    assert.equal(agent.state, 'idle');
    await waitFor(() => spooled(spool).length === 0, { what: 'the spool to be emptied' });
  } finally {
    await h.server.dispose();
  }
});

test('a spool at its cap (files or bytes) drops the event, and the client still exits 0 silent; below it the event is kept', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const spool = h.server.client.paths.hookSpoolDir;
  try {
    await stopServer(h);
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    const payload = claudePayload(randomUUID(), h.server.home, 'UserPromptSubmit', { prompt: 'p' });
    // Events of a session that does not exist: the next server drops them (and this test does not start one).
    const planted = Array.from({ length: SPOOL_MAX_FILES }, (_, i) => `${String(i + 1).padStart(20, '0')}-1-gone-claude-Notification.json`);
    for (const name of planted) writeFileSync(join(spool, name), '{}');
    await hook(h, 'UserPromptSubmit', payload);
    assert.deepEqual(spooled(spool), planted, 'a full spool (files) takes no more');
    // One file short of the cap: the event is kept.
    unlinkSync(join(spool, planted[0]!));
    await hook(h, 'UserPromptSubmit', payload);
    const kept = spooled(spool).filter((n) => n.includes(`-${h.session}-`));
    assert.equal(kept.length, 1, 'with room, the event is kept');
    // Bytes: a sparse file of the whole byte cap leaves no room for one more payload.
    for (const name of spooled(spool)) unlinkSync(join(spool, name));
    const big = openSync(join(spool, `${'1'.padStart(20, '0')}-1-gone-claude-Notification.json`), 'w');
    ftruncateSync(big, SPOOL_MAX_BYTES);
    closeSync(big);
    await hook(h, 'UserPromptSubmit', payload);
    assert.equal(spooled(spool).length, 1, 'a full spool (bytes) takes no more');
    assert.equal(spooled(spool).filter((n) => n.includes(`-${h.session}-`)).length, 0);
  } finally {
    await h.server.dispose();
  }
});

test('a corrupt spool file is logged, removed, and does not stop the others; an answered 4xx (a gone session) is not spooled', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const spool = h.server.client.paths.hookSpoolDir;
  try {
    const conversation = randomUUID();
    await busyAgent(h, conversation, 'with garbage around');
    // The server answers 404 for a session it does not have: the event was heard, and is not kept.
    const gone = await runHook([hookClient, 'claude', 'Stop'], hookEnv('fffffff', h.socket), claudePayload(conversation, h.server.home, 'Stop', { last_assistant_message: 'x' }));
    assertQuietSuccess(gone, 'a gone session');
    assert.deepEqual(spooled(spool), [], 'a 4xx answer is not spooled');
    await stopServer(h);
    mkdirSync(spool, { recursive: true, mode: 0o700 });
    const notJson = `${'1'.padStart(20, '0')}-1-${h.session}-claude-UserPromptSubmit.json`;
    writeFileSync(join(spool, notJson), '{"prompt": "cut sh');
    writeFileSync(join(spool, 'leftover.json'), '{}');
    await hook(h, 'Stop', claudePayload(conversation, h.server.home, 'Stop', { stop_hook_active: false, last_assistant_message: 'still here' }));
    assert.equal(spooled(spool).length, 3);
    await startServer(h);
    const agent = await h.agent();
    assert.equal(agent?.lastTurn?.answer, 'still here', 'the good event after a corrupt one is applied');
    assert.equal(agent?.lastTurn?.prompt, 'with garbage around', 'the corrupt prompt was not applied');
    assert.deepEqual(spooled(spool), []);
    const log = serverLog(h);
    assert.match(log, new RegExp(`hook spool: ${notJson} removed unread: its payload is not valid JSON`));
    assert.match(log, /hook spool: leftover\.json removed unread: its name is not/);
  } finally {
    await h.server.dispose();
  }
});

/** The fake's answer delay: ample time, on a loaded machine, to kill the server before the turn's Stop hook runs. */
const ANSWER_DELAY_MS = 8_000;

test('tend await on the fake claude: its turn ends while the server is dead, and the await, resumed, gets the answer the spooled Stop carried', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = makeTempDir('tend-spool-agent-');
  try {
    await withServer(async (s) => {
      const started = await s.cli(['agent', 'claude', '--name', 'c', '--sleep-after', '0', '--json']);
      assert.equal(started.code, 0, started.stderr);
      const id = (JSON.parse(started.stdout) as SessionInfo).id;
      const agentOf = async () => (await s.api<SessionInfo>('GET', `/v1/sessions/${id}`)).body.agent;
      await waitFor(async () => (await agentOf())?.state === 'idle', { what: 'the fake claude idle (its SessionStart hook)', timeoutMs: 60_000 });
      // The await gives up waiting at once and is collected later; the answer comes while no server runs.
      const pending = await s.cli(['await', ':c', '--timeout', '0.1', '--', 'echo kept through the spool']);
      assert.equal(pending.code, 124, pending.stderr);
      const awaitId = pending.stdout.trim();
      await waitFor(async () => (await agentOf())?.lastTurn?.prompt === 'echo kept through the spool', { what: 'the turn running' });
      const pid = s.serverPid();
      assert.ok(pid !== null);
      process.kill(pid, 'SIGKILL');
      await waitFor(() => !isAlive(pid), { what: 'the server gone' });
      // The fake's Stop hook runs tend's hook client, which finds no server.
      const stop = await waitFor(() => spooled(s.client.paths.hookSpoolDir).find((n) => n.endsWith(`-${id}-claude-Stop.json`)), { what: 'the Stop hook spooled', timeoutMs: ANSWER_DELAY_MS + 30_000 });
      assert.match(readFileSync(join(s.client.paths.hookSpoolDir, stop), 'utf8'), /"last_assistant_message":"kept through the spool"/);
      // --resume starts the next server, which replays the Stop; the await is answered from it.
      const collected = await s.cli(['await', '--resume', awaitId, '--json'], { timeoutMs: 60_000 });
      assert.equal(collected.code, 0, collected.stderr);
      const reply = JSON.parse(collected.stdout) as AwaitAgentDone;
      assert.deepEqual([reply.agent.outcome, reply.agent.answer, reply.agent.answerFrom], ['answered', 'kept through the spool', 'hook']);
      assert.deepEqual(spooled(s.client.paths.hookSpoolDir), []);
    }, { ...installFakeAgents(dir).env, FAKE_AGENT_DELAY_MS: String(ANSWER_DELAY_MS) });
  } finally {
    removeTempDir(dir);
  }
});
