// `tend hook EVENT [--agent KIND]`, the Node form of the hook client for hook
// entries people write themselves: the same contract as the native client
// (silent, exit 0 whatever happens, never starts a server), the agent kind
// from --agent or from the agent's own variable in the hook's environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/wait-for.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { TendClient } from '../../src/cli/client.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';
import { hookEnv, runHook, sessionStartPayload, tendBin, type HookRun } from './hook-run.js';
import { startHookServer } from './hook-server.js';

const TEST_TIMEOUT_MS = 90_000;
/** Loose on purpose (CI is noisy; a Node start is ~100 ms): a hook that waited on a missing or stopped server would take its 30 s guard. */
const QUICK_EXIT_MS = 10_000;
const tend = (...args: string[]) => [process.execPath, tendBin, 'hook', ...args];

function assertQuietSuccess(run: HookRun, what: string): void {
  assert.equal(run.signal, null, `${what}: killed by ${run.signal}`);
  assert.equal(run.code, 0, `${what}: exit ${run.code}; stderr: ${run.stderr}`);
  assert.equal(run.stdout, '', `${what}: printed on stdout`);
  assert.equal(run.stderr, '', `${what}: printed on stderr`);
}

test('tend hook with no server, outside tend or with a wrong command line exits 0, prints nothing and starts no server', { timeout: TEST_TIMEOUT_MS }, async () => {
  const home = makeTempDir('tend-hook-');
  const runtime = makeTempDir('tend-hook-rt-');
  try {
    // The CLI's own server of this TEND_HOME would be started by any other verb: tend hook must not.
    const env = (session: string | undefined, socket: string | undefined) => ({ ...hookEnv(session, socket), TEND_HOME: home, TEND_RUNTIME_DIR: runtime, TEND_PORT: '0' });
    const payload = sessionStartPayload(randomUUID(), home);
    const serverSocket = new TendClient(env(undefined, undefined)).paths.serverSocket;
    const cases: Array<[string, string[], NodeJS.ProcessEnv]> = [
      ['a socket that is not there', ['SessionStart'], env('abc1234', join(runtime, 'no-server.sock'))],
      ['no TEND_SOCKET', ['SessionStart'], env('abc1234', undefined)],
      ['outside tend', ['SessionStart'], env(undefined, undefined)],
      ['no EVENT', [], env('abc1234', serverSocket)],
      ['a malformed EVENT', ['Stop;rm'], env('abc1234', serverSocket)],
      ['a kind that is no agent', ['Stop', '--agent', 'vim'], env('abc1234', serverSocket)],
      ['an unknown option', ['Stop', '--bogus'], env('abc1234', serverSocket)],
      ['an extra word', ['Stop', 'more'], env('abc1234', serverSocket)],
    ];
    for (const [what, args, caseEnv] of cases) {
      const run = await runHook(tend(...args), caseEnv, payload);
      assertQuietSuccess(run, what);
      assert.ok(run.ms < QUICK_EXIT_MS, `${what} took ${run.ms} ms`);
    }
    // A stdin nobody closes (a hook run by hand at a terminal) is given up on: the process ends.
    const open = await runHook(tend('SessionStart'), env('abc1234', serverSocket), payload, { keepStdinOpen: true });
    assertQuietSuccess(open, 'a stdin left open');
    assert.ok(open.ms < QUICK_EXIT_MS, `a stdin left open took ${open.ms} ms`);
    assert.equal(existsSync(serverSocket), false, 'no server was started');

    const help = await runHook(tend('--help'), env(undefined, undefined), '');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^tend hook EVENT \[--agent claude\|codex\|gemini\]/);
  } finally {
    removeTempDir(home);
    removeTempDir(runtime);
  }
});

test('tend hook reports a real event to the session\'s server, the agent kind from --agent or the agent\'s own variable', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  try {
    const conversation = randomUUID();
    const claudeEnv = { ...hookEnv(h.session, h.socket), CLAUDE_CODE_SESSION_ID: conversation };
    assertQuietSuccess(await runHook(tend('SessionStart'), claudeEnv, sessionStartPayload(conversation, h.server.home)), 'SessionStart');
    const agent = await waitFor(() => h.agent(), { what: 'the session to show an agent' });
    assert.equal(agent.kind, 'claude');
    assert.equal(agent.agentSessionId, conversation);

    // Two more sessions: one whose hook says --agent codex, one whose environment is Gemini's.
    const others: Record<string, string> = {};
    for (const kind of ['codex', 'gemini']) {
      const created = await h.server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh', '-c', 'exec sleep 600'], cwd: h.server.home });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      others[kind] = created.body.id;
    }
    await h.server.holderPids();
    const codexId = randomUUID();
    assertQuietSuccess(await runHook(tend('SessionStart', '--agent', 'codex'), hookEnv(others.codex, h.socket), sessionStartPayload(codexId, h.server.home)), 'codex SessionStart');
    const geminiId = randomUUID();
    assertQuietSuccess(await runHook(tend('SessionStart'), { ...hookEnv(others.gemini, h.socket), GEMINI_SESSION_ID: geminiId }, sessionStartPayload(geminiId, h.server.home)), 'gemini SessionStart');
    for (const [kind, id] of [['codex', codexId], ['gemini', geminiId]] as const) {
      const seen = await waitFor(async () => (await h.server.api<SessionInfo>('GET', `/v1/sessions/${others[kind]}`)).body.agent, { what: `the ${kind} session to show an agent` });
      assert.equal(seen.kind, kind);
      assert.equal(seen.agentSessionId, id);
    }
  } finally {
    await h.server.dispose();
  }
});

test('tend hook does not wait on a stopped server (SIGSTOP): it exits 0 within its own bound', { timeout: TEST_TIMEOUT_MS }, async () => {
  const h = await startHookServer();
  const pid = h.server.serverPid();
  assert.ok(pid !== null, 'the server runs');
  process.kill(pid, 'SIGSTOP');
  try {
    const run = await runHook(tend('UserPromptSubmit'), hookEnv(h.session, h.socket), JSON.stringify({ session_id: randomUUID(), hook_event_name: 'UserPromptSubmit', prompt: 'hello' }));
    assertQuietSuccess(run, 'a stopped server');
    assert.ok(run.ms < QUICK_EXIT_MS, `tend hook waited ${run.ms} ms on a stopped server`);
  } finally {
    process.kill(pid, 'SIGCONT');
    await h.server.dispose();
  }
});
