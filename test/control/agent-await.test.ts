// `tend await` on a session with an agent: the prompt typed into the agent,
// the turn's answer handed back when the turn ends. A real server, holders
// and the CLI. The first tests drive the agent's side by hand: a session
// program that reads a line and replies to it, and the hook events an agent
// would send posted to the server, which pins what tend does with each
// (the turn tend typed kept through the agent's own prompt hook, an answer
// read off the screen when the hook gives none, the refusals). The tests at
// the end run the fake agent CLI (test/support/fake-agent) with tend's hooks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, withServer, type ControlServer } from './control-server.js';
import type { AgentEventReply, AwaitAgentDone, SessionInfo } from '../../src/protocol/api/index.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import { Store } from '../../src/server/store/index.js';
import { AGENT_TURN, openAwaitStore } from '../../src/server/awaits/index.js';

/** A program that answers each line it reads, as an agent answers a prompt. */
const LINE_AGENT = ['sh', '-c', 'while IFS= read -r line; do echo "reply: $line"; done'];
const CONVERSATION = '9b1f0c2e-0000-4000-8000-0000000000aa';
const base = { session_id: CONVERSATION, transcript_path: '/nonexistent/t.jsonl', cwd: '/', permission_mode: 'default' };

function report(s: ControlServer, id: string, event: string, payload: Record<string, unknown>) {
  return s.api<AgentEventReply>('POST', `/v1/sessions/${id}/agent/events?agent=claude&event=${event}`, { ...base, hook_event_name: event, ...payload });
}

/** A session whose program reads lines, with a Claude agent reported in it by its SessionStart. */
async function lineAgent(s: ControlServer, name: string): Promise<string> {
  const id = await s.newShell(LINE_AGENT, { name, prompt: /^/ });
  const started = await report(s, id, 'SessionStart', { source: 'startup' });
  assert.equal(started.body.agent.state, 'idle');
  return id;
}

async function agentOf(s: ControlServer, id: string) {
  const info = await s.api<SessionInfo>('GET', `/v1/sessions/${id}`);
  return info.body.agent!;
}

describe('tend await on an agent, its hooks posted by hand', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('the prompt is typed and its turn, kept through the agent\'s own prompt hook, ends with the answer read off the screen', () =>
    withServer(async (s) => {
      const id = await lineAgent(s, 'a');
      const started = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'hello there', timeoutMs: 0 });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      assert.match(started.body.location, /^\/v1\/awaits\/w[0-9a-f]{12}$/);
      await waitFor('the prompt typed and answered by the program', async () => (await s.screen(id)).includes('reply: hello there'));
      const typed = await agentOf(s, id);
      assert.deepEqual([typed.state, typed.lastTurn?.prompt, typed.lastTurn?.outcome], ['busy', 'hello there', 'running'], 'the turn is known before any hook');

      // The agent's own hook for that prompt renames the turn; it does not end it.
      const prompted = await report(s, id, 'UserPromptSubmit', { prompt: 'hello there', prompt_id: 'p-7' });
      assert.deepEqual([prompted.body.agent.state, prompted.body.agent.lastTurn?.id, prompted.body.agent.lastTurn?.outcome], ['busy', 'p-7', 'running']);
      const stillPending = await s.api('GET', started.body.location);
      assert.equal(stillPending.status, 202);

      // A Stop with no last message: the answer is what the screen shows below the prompt.
      await report(s, id, 'Stop', { stop_hook_active: false, background_tasks: [] });
      const done = await s.longCall('GET', `${started.body.location}?waitMs=10000`);
      assert.equal(done.status, 200, JSON.stringify(done.body));
      const reply = done.body as AwaitAgentDone;
      assert.equal(reply.status, 'done');
      assert.equal(reply.session, id);
      assert.deepEqual(
        { answer: reply.agent.answer, answerFrom: reply.agent.answerFrom, outcome: reply.agent.outcome, turnId: reply.agent.turnId, state: reply.agent.state, conversation: reply.agent.agentSessionId },
        { answer: 'reply: hello there', answerFrom: 'screen', outcome: 'answered', turnId: 'p-7', state: 'idle', conversation: CONVERSATION },
      );
      assert.ok(reply.agent.durationMs >= 0);
    }));

  test("the CLI prints the hook's answer alone and exits 0; a failed turn prints its error and exits 3", () =>
    withServer(async (s) => {
      const id = await lineAgent(s, 'a');
      const answering = s.cli(['await', ':a', '--', 'what is six times seven']);
      await waitFor('the prompt typed', async () => (await s.screen(id)).includes('reply: what is six times seven'));
      await report(s, id, 'Stop', { stop_hook_active: false, last_assistant_message: 'Forty-two.\nThat is all.', background_tasks: [] });
      const answered = await answering;
      assert.deepEqual([answered.code, answered.stdout, answered.stderr], [0, 'Forty-two.\nThat is all.\n', '']);

      const failing = s.cli(['await', ':a', '--json', '--', 'try again']);
      await waitFor('the second prompt typed', async () => (await s.screen(id)).includes('reply: try again'));
      await report(s, id, 'StopFailure', { error: 'rate_limit', error_details: 'too many requests', last_assistant_message: 'API Error: rate limited' });
      const failed = await failing;
      assert.equal(failed.code, 3, failed.stderr);
      const reply = JSON.parse(failed.stdout) as AwaitAgentDone;
      assert.deepEqual([reply.agent.outcome, reply.agent.error], ['failed', 'rate_limit: too many requests']);

      const plain = s.cli(['await', ':a', '--', 'third']);
      await waitFor('the third prompt typed', async () => (await s.screen(id)).includes('reply: third'));
      await report(s, id, 'StopFailure', { error: 'server_error' });
      const plainFailed = await plain;
      assert.deepEqual([plainFailed.code, plainFailed.stdout], [3, '']);
      assert.match(plainFailed.stderr, /the agent's turn failed: server_error/);
    }));

  test('a second await, an agent in a turn of its own, or one asking permission: 409 agent_busy, nothing typed', () =>
    withServer(async (s) => {
      const id = await lineAgent(s, 'a');
      const first = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'first prompt', timeoutMs: 0 });
      assert.equal(first.status, 202);
      const second = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'second prompt', timeoutMs: 0 });
      assert.equal(second.status, 409);
      assert.equal(second.body.error.code, 'agent_busy');
      assert.equal(second.body.error.await, first.body.id);
      assert.match(second.body.error.message, new RegExp(`answering await ${first.body.id}.*tend await --resume ${first.body.id}`));
      const cli = await s.cli(['await', ':a', '--', 'third prompt']);
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /one await at a time/);
      await report(s, id, 'Stop', { stop_hook_active: false, last_assistant_message: 'done', background_tasks: [] });
      assert.equal((await s.longCall('GET', `${first.body.location}?waitMs=10000`)).status, 200);

      // A person's own prompt: the agent is busy with a turn no await started.
      await report(s, id, 'UserPromptSubmit', { prompt: 'typed by a person', prompt_id: 'p-own' });
      const duringOwn = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'not now', timeoutMs: 0 });
      assert.deepEqual([duringOwn.status, duringOwn.body.error.code], [409, 'agent_busy']);
      assert.match(duringOwn.body.error.message, /busy with a turn/);
      await report(s, id, 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, permission_suggestions: [] });
      const asking = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'not now either', timeoutMs: 0 });
      assert.deepEqual([asking.status, asking.body.error.code], [409, 'agent_busy']);
      assert.match(asking.body.error.message, /allow Bash: rm -rf build/);
      const screen = await s.screen(id);
      assert.ok(!/second prompt|third prompt|not now/.test(screen), `nothing typed for a refused await:\n${screen}`);
    }));

  test('an agent that ends mid-turn ends the await as interrupted (exit 4); after it exited, await is a shell await again', () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash'], { name: 'b' });
      await report(s, id, 'SessionStart', { source: 'startup' });
      // bash takes the "prompt" as a command line: the turn is typed as text and Enter all the same.
      const pending = s.cli(['await', ':b', '--', 'echo from-the-prompt']);
      await waitFor('the prompt ran', async () => /^from-the-prompt$/m.test(await s.screen(id)));
      await report(s, id, 'SessionEnd', { reason: 'other' });
      const interrupted = await pending;
      assert.equal(interrupted.code, 4, interrupted.stderr);
      assert.match(interrupted.stderr, /interrupted/);
      assert.equal((await agentOf(s, id)).state, 'exited');

      // Asked again with its id after the agent has gone, an agent await is answered, not typed into the shell.
      await report(s, id, 'SessionStart', { source: 'startup' });
      const awaitId = 'w0123456789ab';
      const first = await s.longCall('POST', `/v1/sessions/${id}/await`, { id: awaitId, input: 'echo retried-once', timeoutMs: 0 });
      assert.equal(first.status, 202);
      await waitFor('the second prompt ran', async () => /^retried-once$/m.test(await s.screen(id)));
      await report(s, id, 'SessionEnd', { reason: 'other' });
      const again = await s.longCall('POST', `/v1/sessions/${id}/await`, { id: awaitId, input: 'echo retried-once', timeoutMs: 10_000 });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual([again.body.id, again.body.agent.outcome], [awaitId, 'interrupted']);
      assert.equal((await s.screen(id)).split('\n').filter((row) => row === 'retried-once').length, 1, 'typed once');

      const shell = await s.cli(['await', ':b', '--json', '--', 'echo shell-again']);
      assert.equal(shell.code, 0, shell.stderr);
      const reply = JSON.parse(shell.stdout);
      assert.deepEqual([reply.exitCode, reply.output, reply.agent], [0, 'shell-again\n', undefined]);
    }));
});

/** The fake agent's answer delay in the restart test: long enough for a restart under load to finish before its Stop hook. */
const RESTART_ANSWER_DELAY_MS = 15_000;

/** A control server whose sessions find the fake agents first on PATH. */
async function withFakeAgents(fn: (s: ControlServer) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tend-agent-await-'));
  try {
    const fakes = installFakeAgents(dir);
    await withServer(fn, { ...fakes.env, ...env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `tend agent claude` in a new session :name; returns its id once the agent's hooks say it is idle. */
async function startClaude(s: ControlServer, name: string): Promise<string> {
  const started = await s.cli(['agent', 'claude', '--name', name, '--sleep-after', '0', '--json']);
  assert.equal(started.code, 0, started.stderr);
  const id = (JSON.parse(started.stdout) as SessionInfo).id;
  await waitFor(`the fake claude in :${name} idle (its SessionStart hook)`, async () => (await agentOf(s, id)).state === 'idle', 60_000);
  return id;
}

describe('tend await on the fake agent CLI, with tend\'s hooks', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test("an answer: the Stop hook's text alone on stdout, exit 0; --json has the turn", () =>
    withFakeAgents(async (s) => {
      const id = await startClaude(s, 'c');
      const answered = await s.cli(['await', ':c', '--', 'echo the answer is 42']);
      assert.deepEqual([answered.code, answered.stdout, answered.stderr], [0, 'the answer is 42\n', '']);

      const json = await s.cli(['await', ':c', '--json', '--', 'how are you']);
      assert.equal(json.code, 0, json.stderr);
      const reply = JSON.parse(json.stdout) as AwaitAgentDone;
      const agent = await agentOf(s, id);
      assert.deepEqual(
        { answer: reply.agent.answer, answerFrom: reply.agent.answerFrom, outcome: reply.agent.outcome, state: reply.agent.state, conversation: reply.agent.agentSessionId },
        { answer: 'You said: how are you', answerFrom: 'hook', outcome: 'answered', state: 'idle', conversation: agent.agentSessionId },
      );
      assert.equal(reply.agent.turnId, agent.lastTurn?.id);
      assert.ok(reply.agent.durationMs >= 250, `the fake answers after 300 ms; took ${reply.agent.durationMs}`);
    }));

  test('a failed turn exits 3 with the error; a multi-line prompt goes as one paste', () =>
    withFakeAgents(async (s) => {
      await startClaude(s, 'c');
      const failed = await s.cli(['await', ':c', '--', 'please fail now']);
      assert.equal(failed.code, 3, failed.stderr);
      assert.equal(failed.stdout, '');
      assert.match(failed.stderr, /the agent's turn failed: rate_limit: 429 Too Many Requests/);

      const multi = await s.cli(['await', ':c', '--', 'first line\nsecond line\nthird line']);
      assert.equal(multi.code, 0, multi.stderr);
      assert.equal(multi.stdout, 'You said (3 lines):\nfirst line\nsecond line\nthird line\n');
    }));

  test('an interrupted turn (Esc during a slow answer) exits 4; a timeout answers 202 and the turn is collected later', () =>
    withFakeAgents(async (s) => {
      const id = await startClaude(s, 'c');
      const slow = s.cli(['await', ':c', '--', 'a slow question']);
      await waitFor('the slow turn running', async () => (await agentOf(s, id)).lastTurn?.prompt === 'a slow question');
      const esc = await s.cli(['send', ':c', '--keys', 'Escape']);
      assert.equal(esc.code, 0, esc.stderr);
      const interrupted = await slow;
      assert.equal(interrupted.code, 4, interrupted.stderr);
      assert.match(interrupted.stderr, /interrupted/);
      assert.equal((await agentOf(s, id)).lastTurn?.outcome, 'interrupted');

      const timedOut = await s.cli(['await', ':c', '--timeout', '0.5', '--', 'another slow one']);
      assert.equal(timedOut.code, 124, timedOut.stderr);
      const awaitId = timedOut.stdout.trim();
      const pending = await s.api('GET', `/v1/awaits/${awaitId}`);
      assert.deepEqual([pending.status, (pending.body as { location: string }).location], [202, `/v1/awaits/${awaitId}`]);
      const collected = await s.cli(['await', '--resume', awaitId, '--json']);
      assert.equal(collected.code, 0, collected.stderr);
      const reply = JSON.parse(collected.stdout) as AwaitAgentDone;
      assert.deepEqual([reply.id, reply.agent.outcome, reply.agent.answer], [awaitId, 'answered', 'You said: another slow one']);
    }));

  test('an await right after tend agent claude waits for the agent to start, then types the prompt', () =>
    withFakeAgents(async (s) => {
      const started = await s.cli(['agent', 'claude', '--name', 'c', '--sleep-after', '0', '--json']);
      assert.equal(started.code, 0, started.stderr);
      const id = (JSON.parse(started.stdout) as SessionInfo).id;
      // Over the API at once: the CLI's own start would give the agent time to start first.
      const answering = s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'echo first thing', timeoutMs: 60_000 });
      assert.equal((await agentOf(s, id)).state, 'starting');
      const answered = await answering;
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.deepEqual([answered.body.agent.outcome, answered.body.agent.answer], ['answered', 'first thing']);
    }));

  test("Gemini CLI's answer from AfterAgent, Codex's from its Stop, each with tend's hooks installed in the agent's own settings", () =>
    withFakeAgents(async (s) => {
      for (const kind of ['gemini', 'codex'] as const) {
        const installed = await s.cli(['hooks', 'install', kind]);
        assert.equal(installed.code, 0, installed.stderr);
        const started = await s.cli(['agent', kind, '--name', kind, '--sleep-after', '0', '--json']);
        assert.equal(started.code, 0, started.stderr);
        const id = (JSON.parse(started.stdout) as SessionInfo).id;
        await waitFor(`the fake ${kind} idle (its SessionStart hook)`, async () => (await agentOf(s, id)).state === 'idle', 60_000);
        const answered = await s.cli(['await', `:${kind}`, '--json', '--', `echo hello from ${kind}`]);
        assert.equal(answered.code, 0, answered.stderr);
        const reply = JSON.parse(answered.stdout) as AwaitAgentDone;
        assert.deepEqual([kind, reply.agent.outcome, reply.agent.answer, reply.agent.answerFrom], [kind, 'answered', `hello from ${kind}`, 'hook']);
      }
    }, { FAKE_CODEX_TRUST_HOOKS: '1' }));

  test('an await on a sleeping agent wakes it, and the prompt, typed once, is answered by the resumed conversation', () =>
    withFakeAgents(async (s) => {
      const id = await startClaude(s, 'c');
      assert.equal((await s.cli(['await', ':c', '--', 'echo before sleep'])).code, 0, 'a first turn: an agent with none is not put to sleep');
      const conversation = (await agentOf(s, id)).agentSessionId;
      const slept = await s.cli(['agent', 'sleep', ':c']);
      assert.equal(slept.code, 0, slept.stderr);
      await waitFor('the agent asleep', async () => (await agentOf(s, id)).state === 'sleeping', 60_000);

      const woken = await s.cli(['await', ':c', '--json', '--', 'echo woken-up-now'], { timeoutMs: 90_000 });
      assert.equal(woken.code, 0, woken.stderr);
      const reply = JSON.parse(woken.stdout) as AwaitAgentDone;
      assert.deepEqual(
        [reply.agent.outcome, reply.agent.answer, reply.agent.state, reply.agent.agentSessionId],
        ['answered', 'woken-up-now', 'idle', conversation],
      );
      const screen = await s.screen(id);
      assert.equal(screen.split('\n').filter((row) => row.includes('echo woken-up-now')).length, 1, `the prompt was typed once:\n${screen}`);
    }));

  test('an agent await saved by a server that died before typing its prompt is typed, once, by the next one', () =>
    withFakeAgents(async (s) => {
      const id = await startClaude(s, 'c');
      const stopped = await s.cli(['server', 'stop']);
      assert.equal(stopped.code, 0, stopped.stderr);
      // What a server killed just before typing leaves: the await in the store, nothing with the holder.
      const awaitId = 'w00000000cafe';
      const store = Store.open({ dir: s.home });
      try {
        openAwaitStore(store.database, { readOnly: false }).insert({
          id: awaitId, sessionId: id, typedLine: 'echo typed by the next server', afterNumber: AGENT_TURN, createdAt: Date.now(), typedAt: null, outcome: null, settledAt: null,
        });
      } finally {
        store.dispose();
      }

      const collected = await s.cli(['await', '--resume', awaitId, '--json'], { timeoutMs: 90_000 });
      assert.equal(collected.code, 0, collected.stderr);
      const reply = JSON.parse(collected.stdout) as AwaitAgentDone;
      assert.deepEqual([reply.agent.outcome, reply.agent.answer], ['answered', 'typed by the next server']);
      const screen = await s.screen(id);
      assert.equal(screen.split('\n').filter((row) => row.includes('echo typed by the next server')).length, 1, `typed once:\n${screen}`);
    }));

  test('an await on a sleeping agent that cannot be woken fails with agent_wake_failed, its prompt typed nowhere', () =>
    withFakeAgents(async (s) => {
      const id = await startClaude(s, 'c');
      assert.equal((await s.cli(['await', ':c', '--', 'echo before sleep'])).code, 0);
      assert.equal((await s.cli(['agent', 'sleep', ':c'])).code, 0);
      await waitFor('the agent asleep', async () => (await agentOf(s, id)).state === 'sleeping', 60_000);
      // Its conversation gone, the resume fails ("No conversation found"), as a real one's does.
      rmSync(join(s.shellHome, '.claude', 'projects'), { recursive: true, force: true });

      const failed = await s.cli(['await', ':c', '--json', '--', 'echo never-typed'], { timeoutMs: 90_000 });
      assert.equal(failed.code, 1, failed.stdout);
      assert.equal(JSON.parse(failed.stderr).error.code, 'agent_wake_failed');
      assert.ok(!(await s.screen(id)).includes('never-typed'), 'the prompt reached neither the agent nor the shell');
    }));

  test('a server restart while the agent answers: the CLI rides through to the answer, and the result outlives another restart', () =>
    withFakeAgents(async (s) => {
      const id = await startClaude(s, 'c');
      const waiting = s.cli(['await', ':c', '--json', '--', 'a question over a restart'], { timeoutMs: 90_000 });
      await waitFor('the turn running', async () => (await agentOf(s, id)).lastTurn?.prompt === 'a question over a restart');
      const oldPid = s.serverPid();
      const restarted = await s.cli(['server', 'restart']);
      assert.equal(restarted.code, 0, restarted.stderr);
      assert.notEqual(s.serverPid(), oldPid);
      assert.equal((await agentOf(s, id)).state, 'busy', 'the turn still runs when the next server has taken the await up');

      const done = await waiting;
      assert.equal(done.code, 0, done.stderr);
      const reply = JSON.parse(done.stdout) as AwaitAgentDone;
      assert.deepEqual([reply.agent.outcome, reply.agent.answer, reply.agent.answerFrom], ['answered', 'You said: a question over a restart', 'hook']);
      const screen = await s.screen(id);
      assert.equal(screen.split('\n').filter((row) => row.includes('a question over a restart') && !row.includes('You said')).length, 1, `the prompt was typed once:\n${screen}`);

      assert.equal((await s.cli(['server', 'restart'])).code, 0);
      const kept = await s.api('GET', reply.location);
      assert.equal(kept.status, 200, JSON.stringify(kept.body));
      assert.deepEqual((kept.body as AwaitAgentDone).agent, reply.agent);
    }, { FAKE_AGENT_DELAY_MS: String(RESTART_ANSWER_DELAY_MS) }));
});
