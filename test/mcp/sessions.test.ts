// The session tools of `tend mcp` (list_sessions, new_session, kill_session,
// rename_session) through the SDK's own client, against a real server with
// real holders and shells.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, waitFor } from '../server/harness.js';
import { endedCommand, mcpWithServer } from './mcp-harness.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';

const TEST_TIMEOUT_MS = 120_000;

/** A server whose shells read no rc file of this machine's user (an empty HOME). */
async function quietShells(t: TestContext, env: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'tend-mcp-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  return mcpWithServer(t, { HOME: home, SHELL: '/bin/bash', XDG_CONFIG_HOME: join(home, '.config'), ...env });
}

describe('tend mcp: session tools', { timeout: TEST_TIMEOUT_MS }, () => {
  test('list_sessions shows every session compactly: id, name, index, status, command, cwd, size, agent, last output', async (t) => {
    const { server, mcp } = await quietShells(t);
    assert.deepEqual((await mcp.call('list_sessions')).value, { sessions: [] });
    const a = (await server.api('POST', '/v1/sessions', { argv: ['sh', '-c', 'echo hi; exec sleep 600'], name: 'sleeper', cols: 100, rows: 30, cwd: '/' })).body;
    const b = (await server.api('POST', '/v1/sessions', { argv: ['sh', '-c', 'exit 4'] })).body;
    await waitFor('the second session to exit', async () => (await server.api('GET', `/v1/sessions/${b.id}`)).body.status === 'exited');
    await waitFor('the first session\'s output', async () => (await server.api('GET', `/v1/sessions/${a.id}`)).body.lastOutputAt !== null);
    const listed = await mcp.call('list_sessions');
    assert.equal(listed.isError, false);
    assert.deepEqual(JSON.parse(listed.text), listed.value, 'the text block is the same JSON as the structured result');
    const [first, second] = listed.value.sessions;
    assert.deepEqual(
      { ...first, last_output_at: typeof first.last_output_at },
      {
        id: a.id, name: 'sleeper', index: 1, status: 'running', exit_code: null, exit_signal: null, command: ['sh', '-c', 'echo hi; exec sleep 600'],
        cwd: '/', title: '', cols: 100, rows: 30, agent: null, last_output_at: 'string',
      },
    );
    assert.ok(!Number.isNaN(Date.parse(first.last_output_at)), 'an ISO time');
    assert.equal(second.index, 2);
    assert.equal(second.status, 'exited');
    assert.equal(second.exit_code, 4);
    assert.match(second.note, /exited with code 4; its screen \(screen\), commands and output stay readable/);
  });

  test('list_sessions keeps to max_chars: the first sessions that fit, how many were left out, and how to see them', async (t) => {
    const { server, mcp } = await quietShells(t);
    await mcp.call('list_sessions'); // starts the server
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await server.api('POST', '/v1/sessions', { argv: ['sleep', '600'], name: `s${i}` })).body.id);
    const whole = await mcp.call('list_sessions');
    assert.deepEqual(whole.value.sessions.map((s: { id: string }) => s.id), ids);
    assert.deepEqual([whole.value.omitted, whole.value.note], [undefined, undefined]);
    const bounded = await mcp.call('list_sessions', { max_chars: 1000 });
    assert.equal(bounded.isError, false, bounded.text);
    const shown = bounded.value.sessions.map((s: { id: string }) => s.id);
    assert.ok(shown.length > 0 && shown.length < 6, `${shown.length} sessions shown`);
    assert.deepEqual(shown, ids.slice(0, shown.length), 'the first ones, in list order');
    assert.ok(JSON.stringify(bounded.value.sessions).length <= 1000 + shown.length);
    assert.equal(bounded.value.omitted, 6 - shown.length);
    assert.match(bounded.value.note, new RegExp(`^the first ${shown.length} of 6 sessions are listed; ${6 - shown.length} more \\(index ${shown.length + 1} on\\)`));
  });

  test('new_session with a command: the shell runs it as command 1, its output comes back and stays readable, the shell stays', async (t) => {
    const { server, mcp } = await quietShells(t);
    const started = await mcp.call('new_session', { command: `printf '%s|%s\\n' "a b" 'ünï ✓'; echo sum=$((6*7))`, name: 'made', cols: 90, rows: 20 });
    assert.equal(started.isError, false, started.text);
    const { session } = started.value;
    const command = await endedCommand(mcp, started);
    assert.equal(session.name, 'made');
    assert.equal(session.index, 1);
    assert.equal(session.status, 'running');
    assert.deepEqual([session.cols, session.rows], [90, 20]);
    assert.deepEqual(session.command, ['/bin/bash']);
    assert.equal(command.status, 'done');
    assert.equal(command.number, 1);
    assert.equal(command.exit_code, 0);
    assert.equal(command.output, 'a b|ünï ✓\nsum=42\n');
    assert.equal(command.cut, null);
    assert.match(command.await_id, /^w[0-9a-f]{12}$/);
    // Afterwards, by its number, through the API every tool reads.
    const output = await server.api('GET', `/v1/sessions/${session.id}/output?cmd=1`);
    assert.equal(output.body.text, 'a b|ünï ✓\nsum=42\n');
    assert.equal((await server.api('GET', `/v1/sessions/${session.id}`)).body.status, 'running', 'the shell outlives its command');
  });

  test("new_session's shell gets tend mcp's environment, without the calling agent's marks (CLAUDECODE makes a claude started there refuse to run)", async (t) => {
    const { mcp } = await quietShells(t, { CLAUDECODE: '1', MCP_CALLER_VAR: 'kept' });
    const started = await mcp.call('new_session', { command: 'echo "${CLAUDECODE-unset} $MCP_CALLER_VAR $MCP_GIVEN_VAR"', env: { MCP_GIVEN_VAR: 'given' } });
    assert.equal(started.isError, false, started.text);
    assert.equal((await endedCommand(mcp, started)).output, 'unset kept given\n');
  });

  test('new_session with a command that outlasts the short wait answers pending, and its await collects the result', async (t) => {
    const { server, mcp } = await quietShells(t);
    const started = await mcp.call('new_session', { command: 'sleep 4; echo late' });
    assert.equal(started.isError, false, started.text);
    const { session, command } = started.value;
    assert.equal(command.status, 'pending');
    assert.equal(command.output, null);
    const done = await waitFor('the await to settle', async () => {
      const r = await server.api('GET', `/v1/awaits/${command.await_id}?waitMs=2000`);
      return r.status === 200 ? r.body : null;
    });
    assert.equal(done.exitCode, 0);
    assert.equal(done.output, 'late\n');
    assert.equal(done.session, session.id);
  });

  test('new_session with a command waits for a shell slow to show its first prompt (rc files that take seconds) and runs it there', async (t) => {
    const { server, mcp } = await quietShells(t);
    // Longer than the server waits for a new shell's first marks in one request.
    writeFileSync(join(server.env.HOME!, '.bashrc'), 'sleep 6\n');
    const started = await mcp.call('new_session', { command: 'echo slow-ok' });
    assert.equal(started.isError, false, started.text);
    const command = await endedCommand(mcp, started);
    assert.equal(command.status, 'done', JSON.stringify(command));
    assert.equal(command.output, 'slow-ok\n');
  });

  test('new_session with argv runs the program directly; a combination that cannot work is refused before any session starts', async (t) => {
    const { mcp } = await quietShells(t);
    const refused = await mcp.call('new_session', { command: 'ls', argv: ['ls'] });
    assert.equal(refused.isError, true);
    assert.equal(refused.value.code, 'bad_arguments');
    const badDir = await mcp.call('new_session', { cwd: '/no/such/dir' });
    assert.equal(badDir.isError, true);
    assert.match(badDir.value.message, /the directory does not exist/);
    const noMarks = await mcp.call('new_session', { command: 'ls', shell_integration: false });
    assert.equal(noMarks.isError, true);
    assert.match(noMarks.value.message, /need tend's shell integration/);
    assert.deepEqual((await mcp.call('list_sessions')).value.sessions, [], 'no session was started for a refused call');

    const direct = await mcp.call('new_session', { argv: ['cat'], cwd: '/tmp', env: { MCP_TEST_VAR: 'x' } });
    assert.equal(direct.isError, false, direct.text);
    assert.deepEqual(direct.value.session.command, ['cat']);
    assert.equal(direct.value.session.cwd, '/tmp');
    assert.equal(direct.value.command, null);
  });

  test('new_session with agent starts it in the shell with tend\'s hooks; list_sessions shows its kind and state', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-mcp-agent-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const { mcp } = await mcpWithServer(t, { ...installFakeAgents(dir).env, HOME: dir, SHELL: '/bin/bash' });
    const started = await mcp.call('new_session', { agent: 'claude', name: 'helper' });
    assert.equal(started.isError, false, started.text);
    assert.deepEqual(started.value.session.agent, { kind: 'claude', state: 'starting' });
    assert.equal(started.value.command, null);
    assert.equal(started.value.warning, undefined, 'claude takes tend\'s hooks for the run: nothing to warn about');
    const idle = await waitFor('the fake claude idle (its SessionStart hook)', async () => {
      const helper = (await mcp.call('list_sessions')).value.sessions.find((s: { name: string }) => s.name === 'helper');
      return helper?.agent?.state === 'idle' ? helper : null;
    }, 60_000);
    assert.deepEqual(idle.agent, { kind: 'claude', state: 'idle' });
    const both = await mcp.call('new_session', { agent: 'claude', command: 'ls' });
    assert.equal(both.value.code, 'bad_arguments');
    // Gemini reads hooks only from its own settings, which this HOME lacks: the agent is told what to run.
    const unhooked = await mcp.call('new_session', { agent: 'gemini' });
    assert.equal(unhooked.isError, false, unhooked.text);
    assert.match(unhooked.value.warning, /tend's hooks are not in .*: run `tend hooks install gemini`/);
  });

  test('rename_session names a session (a leading ":" dropped) and null removes the name; a name in use is refused', async (t) => {
    const { mcp } = await quietShells(t);
    const one = (await mcp.call('new_session', { argv: ['cat'] })).value.session;
    await mcp.call('new_session', { argv: ['cat'], name: 'taken' });
    const renamed = await mcp.call('rename_session', { session: one.id, name: ':web' });
    assert.equal(renamed.isError, false, renamed.text);
    assert.equal(renamed.value.session.name, 'web');
    assert.equal(renamed.value.session.index, 1);
    assert.equal((await mcp.call('list_sessions')).value.sessions[0].name, 'web');
    const clash = await mcp.call('rename_session', { session: ':web', name: 'taken' });
    assert.equal(clash.isError, true);
    assert.equal(clash.value.code, 'conflict');
    const bad = await mcp.call('rename_session', { session: ':web', name: 'no spaces' });
    assert.equal(bad.isError, true);
    assert.match(bad.value.message, /cannot be a session's name/);
    const cleared = await mcp.call('rename_session', { session: ':web', name: null });
    assert.equal(cleared.value.session.name, null);
  });

  test('kill_session ends the program and forgets the session; an unknown session is an error with candidates and a hint', async (t) => {
    const { server, mcp } = await quietShells(t);
    const made = (await mcp.call('new_session', { argv: ['sleep', '600'], name: 'doomed' })).value.session;
    const pid = (await server.api('GET', `/v1/sessions/${made.id}`)).body.pid as number;
    const typo = await mcp.call('kill_session', { session: ':domed' });
    assert.equal(typo.isError, true);
    assert.equal(typo.value.code, 'no_session');
    assert.deepEqual(typo.value.candidates, [':doomed']);
    assert.match(typo.value.message, /did you mean :doomed\?/);
    assert.match(typo.value.hint, /list_sessions/);
    assert.ok(isAlive(pid), 'a misspelt target ends nothing');
    const killed = await mcp.call('kill_session', { session: ':doomed' });
    assert.equal(killed.isError, false, killed.text);
    assert.deepEqual(killed.value.killed, { id: made.id, name: 'doomed', command: ['sleep', '600'], cwd: made.cwd });
    await waitFor('the program to end', () => !isAlive(pid));
    assert.deepEqual((await mcp.call('list_sessions')).value.sessions, []);
    assert.equal((await mcp.call('kill_session', { session: made.id })).value.code, 'no_session');
  });
});
