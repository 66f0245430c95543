// The `run` and `await_result` tools of `tend mcp`, as an agent meets them:
// the MCP SDK's own client over stdio, a real tend server, holders and
// shells. A command's exit code, exact output and number; a failing one; a
// timeout that answers pending and is collected later; progress while it
// runs; quoted and Unicode input run as one command; a server killed
// between two calls; output cut to its tail with a note; the refusals an
// agent can act on.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connectMcp, endedCommand, type McpPeer } from './mcp-harness.js';
import { isAlive, waitFor } from '../server/harness.js';
import { startControlServer, type ControlServer } from '../control/control-server.js';
import type { CommandOutputReply, CommandRecord, ScreenTextReply, SessionInfo } from '../../src/protocol/api/index.js';

const MCP_TEST_TIMEOUT_MS = 120_000;
const AWAIT_ID = /^w[0-9a-f]{12}$/;

/**
 * A test server whose shells start with an empty HOME (no rc file of this
 * machine's user plays a part) and `tend mcp` on it, both ended with the test.
 */
async function mcpWithServer(t: TestContext, env: Record<string, string> = {}): Promise<{ server: ControlServer; mcp: McpPeer }> {
  const server = startControlServer(env);
  t.after(() => server.dispose());
  const mcp = await connectMcp(t, server);
  return { server, mcp };
}

/** Runs `command` through the run tool and checks it answered a result. */
async function run(mcp: McpPeer, args: Record<string, unknown>) {
  const answer = await mcp.call('run', args);
  assert.equal(answer.isError, false, answer.text);
  return answer.value;
}

describe('tend mcp: run and await_result', { timeout: MCP_TEST_TIMEOUT_MS }, () => {
  test('run without a session makes a shell session and answers the exit code, the exact output and the command number; the next run goes to the same shell', async (t) => {
    const { server, mcp } = await mcpWithServer(t);
    const first = await run(mcp, { command: 'cd /tmp && echo hello; echo world' });
    assert.equal(first.created_session, true);
    assert.match(first.await_id, AWAIT_ID);
    const session = (await server.api<SessionInfo>('GET', `/v1/sessions/${first.session}`)).body;
    assert.equal(session.id, first.session, 'the answer names the session it made');
    assert.equal(session.status, 'running');
    assert.deepEqual(
      { status: first.status, exit_code: first.exit_code, output: first.output, command_line: first.command_line, cut: first.cut },
      { status: 'done', exit_code: 0, output: 'hello\nworld\n', command_line: 'cd /tmp && echo hello; echo world', cut: null },
    );
    assert.equal(first.ran_as, undefined, 'a plain line is typed as it is');
    assert.equal(typeof first.command, 'number');
    assert.ok(first.duration_ms >= 0);

    const second = await run(mcp, { session: first.session, command: 'pwd' });
    assert.deepEqual(
      [second.created_session, second.session, second.command, second.exit_code, second.output, second.cwd],
      [false, first.session, first.command + 1, 0, '/tmp\n', '/tmp'],
      'the same shell: its directory kept, the next command number',
    );
    // The number is the session's own: the output route reads the same command by it.
    const stored = (await server.api<CommandOutputReply>('GET', `/v1/sessions/${first.session}/output?cmd=${second.command}`)).body;
    assert.deepEqual([stored.commandLine, stored.text], ['pwd', '/tmp\n']);
  });

  test('a failing command answers its exit code and what it printed, stderr included', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const failed = await run(mcp, { command: 'echo to-stdout; echo to-stderr >&2; false' });
    assert.deepEqual([failed.status, failed.exit_code, failed.output], ['done', 1, 'to-stdout\nto-stderr\n']);
    const missing = await run(mcp, { session: failed.session, command: 'ls /nonexistent-tend-mcp-dir' });
    assert.equal(missing.exit_code, 2);
    assert.match(missing.output, /^ls: .*nonexistent-tend-mcp-dir.*No such file or directory\n$/);
  });

  test('a run that outlasts timeout_seconds answers pending with its await id, cancelling nothing; await_result collects it', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const setup = await run(mcp, { command: 'true' });
    const started = Date.now();
    const pending = await run(mcp, { session: setup.session, command: 'sleep 5; echo late', timeout_seconds: 1 });
    assert.ok(Date.now() - started < 4500, 'it answered at its timeout, before the command ended');
    assert.equal(pending.status, 'pending');
    assert.match(pending.await_id, AWAIT_ID);
    assert.equal(pending.session, setup.session);
    assert.equal(pending.exit_code, undefined);
    assert.match(pending.note, new RegExp(`await_result with await_id "${pending.await_id}"`));
    assert.match(pending.note, /keys \["C-c"\] stops the command/);

    const collected = await mcp.call('await_result', { await_id: pending.await_id });
    assert.equal(collected.isError, false, collected.text);
    assert.deepEqual(
      [collected.value.status, collected.value.kind, collected.value.exit_code, collected.value.output, collected.value.command, collected.value.command_line],
      ['done', 'command', 0, 'late\n', setup.command + 1, 'sleep 5; echo late'],
    );
    // Collected again (kept for an hour), with a smaller bound: the same result.
    const again = await mcp.call('await_result', { await_id: pending.await_id, timeout_seconds: 0 });
    assert.deepEqual([again.value.status, again.value.output], ['done', 'late\n']);

    const unknown = await mcp.call('await_result', { await_id: 'w000000000000' });
    assert.equal(unknown.isError, true);
    assert.equal(unknown.value.code, 'no_await');
    assert.match(unknown.value.hint, /run and prompt_agent/);
  });

  test('progress notifications arrive while a command runs, each naming the await id', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const setup = await run(mcp, { command: 'true' });
    const answer = await mcp.call('run', { session: setup.session, command: 'sleep 4; echo finished' }, { progress: true });
    assert.equal(answer.isError, false, answer.text);
    assert.deepEqual([answer.value.status, answer.value.output], ['done', 'finished\n']);
    assert.ok(answer.progress.length >= 1, `progress while it ran: ${JSON.stringify(answer.progress)}`);
    for (const message of answer.progress) {
      assert.ok(message.includes(answer.value.await_id), `"${message}" names the await`);
      assert.match(message, /`sleep 4; echo finished`/);
    }
  });

  test('a line with nested quotes and Unicode runs as one command with its exact output; a line that does not parse fails as one command and leaves the shell at its prompt', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const line = 'echo "it\'s \\"ok\\" — ünïcødé ✓"';
    const quoted = await run(mcp, { command: line });
    assert.deepEqual([quoted.exit_code, quoted.output, quoted.command_line], [0, 'it\'s "ok" — ünïcødé ✓\n', line]);
    assert.match(quoted.ran_as, /^source /, 'staged: the shell sourced it from a script');

    const single = await run(mcp, { session: quoted.session, command: "printf '%s|%s\\n' 'a b' \"c\\$d\"" });
    assert.deepEqual([single.exit_code, single.output], [0, 'a b|c$d\n']);

    const unclosed = await run(mcp, { session: quoted.session, command: 'echo "never closed', timeout_seconds: 10 });
    assert.equal(unclosed.status, 'done', 'it ended as a command, not at a continuation prompt');
    assert.notEqual(unclosed.exit_code, 0);
    assert.match(unclosed.output, /unexpected EOF|matching/);

    const after = await run(mcp, { session: quoted.session, command: 'echo still here', timeout_seconds: 10 });
    assert.deepEqual([after.status, after.exit_code, after.output], ['done', 0, 'still here\n']);
  });

  test('the tend server killed between two calls: the next run works on the same session id', async (t) => {
    const { server, mcp } = await mcpWithServer(t);
    const before = await run(mcp, { command: 'echo before' });
    const pid = server.serverPid();
    assert.ok(pid !== null);
    process.kill(pid, 'SIGKILL');
    await waitFor('the server gone', () => !isAlive(pid));

    const after = await run(mcp, { session: before.session, command: 'echo after' });
    assert.deepEqual(
      [after.status, after.session, after.command, after.exit_code, after.output],
      ['done', before.session, before.command + 1, 0, 'after\n'],
    );
    const restarted = server.serverPid();
    assert.ok(restarted !== null && restarted !== pid, 'tend mcp started another server');
  });

  test('the tend server killed while a run waits: the same call answers the same command\'s result, typed once', async (t) => {
    const { server, mcp } = await mcpWithServer(t);
    const setup = await run(mcp, { command: 'true' });
    const answering = mcp.call('run', { session: setup.session, command: 'sleep 2; echo survived', timeout_seconds: 90 });
    await waitFor('the command running', async () => {
      const commands = (await server.api<CommandRecord[]>('GET', `/v1/sessions/${setup.session}/commands`)).body;
      return commands.some((c) => c.running && c.commandLine === 'sleep 2; echo survived');
    });
    const pid = server.serverPid();
    assert.ok(pid !== null);
    process.kill(pid, 'SIGKILL');
    const answer = await answering;
    assert.equal(answer.isError, false, answer.text);
    assert.deepEqual(
      [answer.value.status, answer.value.command, answer.value.exit_code, answer.value.output],
      ['done', setup.command + 1, 0, 'survived\n'],
    );
    const commands = (await server.api<CommandRecord[]>('GET', `/v1/sessions/${setup.session}/commands`)).body;
    assert.deepEqual(commands.map((c) => c.commandLine), ['true', 'sleep 2; echo survived'], 'typed once');
  });

  test('output over max_chars is cut to its last whole lines, and the note says how to read the rest with the output tool', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const long = await run(mcp, { command: 'seq 1 5000', max_chars: 1000 });
    assert.equal(long.exit_code, 0);
    const shown = long.output.split('\n').slice(0, -1);
    assert.ok(long.output.length <= 1000, `${long.output.length} characters`);
    assert.equal(shown[shown.length - 1], '5000');
    const firstShown = Number(shown[0]);
    assert.deepEqual(shown, Array.from({ length: 5000 - firstShown + 1 }, (_, i) => String(firstShown + i)), 'whole lines, the true tail');
    assert.deepEqual(
      [long.cut.kept, long.cut.total_lines, long.cut.first_line, long.cut.last_line, long.cut.omitted_lines],
      ['tail', 5000, firstShown, 5000, firstShown - 1],
    );
    assert.ok(long.cut.note.includes(`session "${long.session}", command ${long.command}, from_line 1, max_lines ${firstShown - 1}`), long.cut.note);

    const short = await run(mcp, { session: long.session, command: 'seq 1 3', max_chars: 1000 });
    assert.deepEqual([short.output, short.cut], ['1\n2\n3\n', null]);
  });

  test('a line of one long line is cut to its end, and the note says to read line 1 (never "max_lines 0")', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const long = await run(mcp, { command: "head -c 5000 /dev/zero | tr '\\0' y; echo", max_chars: 1000 });
    assert.equal(long.output, `${'y'.repeat(999)}\n`);
    assert.deepEqual([long.cut.first_line, long.cut.last_line, long.cut.omitted_lines], [1, 1, 1]);
    assert.ok(long.cut.note.includes(`command ${long.command}, from_line 1, max_lines 1`), long.cut.note);
    assert.match(long.cut.note, /fold -w 1000/, 'how to read the middle of a line too long for any answer');
  });

  test('a command whose output tend no longer holds answers output null with a note saying why and how to get it', async (t) => {
    const { mcp } = await mcpWithServer(t, { TEND_SCROLLBACK_ROWS: '200' });
    const gone = await run(mcp, { command: 'seq 1 3000' });
    assert.deepEqual([gone.status, gone.exit_code, gone.output, gone.cut], ['done', 0, null, null]);
    assert.match(gone.note, /scrolled out of the rows the session keeps/);
    assert.match(gone.note, /> out\.log 2>&1/, 'how to keep a long output whole');
    const made = await mcp.call('new_session', { command: 'seq 1 3000' });
    assert.equal(made.isError, false, made.text);
    const ended = await endedCommand(mcp, made);
    assert.deepEqual([ended.status, ended.output], ['done', null]);
    assert.match(ended.note, /scrolled out of the rows the session keeps/);
  });

  test('a long script: the answers name it by its first 500 characters, and commands, output and await_result show the agent\'s line, not the line that sourced it', async (t) => {
    const { mcp } = await mcpWithServer(t);
    const script = ['echo start', ...Array.from({ length: 300 }, (_, i) => `: filler ${i}`), 'sleep 1; echo end'].join('\n');
    const pending = await run(mcp, { command: script, timeout_seconds: 0.2 });
    assert.equal(pending.status, 'pending');
    assert.deepEqual([pending.command_line, pending.command_line_cut], [script.slice(0, 500), true]);
    const done = await mcp.call('await_result', { await_id: pending.await_id });
    assert.equal(done.isError, false, done.text);
    assert.deepEqual([done.value.output, done.value.command_line, done.value.command_line_cut], ['start\nend\n', script.slice(0, 500), true]);
    assert.match(done.value.ran_as, /^source '.*\.sh'$/);
    assert.ok(done.text.length < 2000, `the answer stays small: ${done.text.length} characters`);

    const quoted = await run(mcp, { session: pending.session, command: 'echo "it\'s"' });
    const listed = await mcp.call('commands', { session: pending.session });
    assert.deepEqual(
      listed.value.commands.map((c: any) => [c.number, c.command_line, c.command_line_cut ?? false, /^source '/.test(c.ran_as ?? '')]),
      [
        [done.value.command, script.slice(0, 500), true, true],
        [quoted.command, 'echo "it\'s"', false, true],
      ],
    );
    const output = await mcp.call('output', { session: pending.session, command: quoted.command });
    assert.deepEqual([output.value.command_line, output.value.text], ['echo "it\'s"', "it's\n"]);
    assert.match(output.value.ran_as, /^source '/);
  });

  test('a program that is no shell is refused with how to turn integration on; a session that ends while run waits names its exit code and the await', async (t) => {
    const { server, mcp } = await mcpWithServer(t);
    const setup = await run(mcp, { command: 'true' }); // starts the server
    const cat = await server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['cat'], name: 'cat' });
    assert.equal(cat.status, 201);
    const noMarks = await mcp.call('run', { session: ':cat', command: 'echo no' });
    assert.equal(noMarks.isError, true);
    assert.equal(noMarks.value.code, 'no_shell_integration');
    assert.match(noMarks.value.hint, /tend shell-integration bash/);
    assert.match(noMarks.value.hint, /send and screen/, 'what to use for a program that is no shell');

    const ended = await mcp.call('run', { session: setup.session, command: 'sleep 1; exit 5', timeout_seconds: 60 });
    assert.equal(ended.isError, true);
    assert.equal(ended.value.code, 'session_ended');
    assert.match(ended.value.message, /exited with code 5/);
    assert.match(ended.value.await_id, AWAIT_ID, 'the await is named as await_result takes it');
    assert.equal(ended.value.id, undefined);
    assert.match(ended.value.hint, /output stay readable/);
    const last = await mcp.call('output', { session: setup.session });
    assert.deepEqual([last.value.command_line, last.value.running, last.value.exit_code], ['sleep 1; exit 5', false, null]);
  });

  test('refusals an agent can act on: a busy shell names its command, an ended session its exit code, nothing typed', async (t) => {
    const { server, mcp } = await mcpWithServer(t);
    const busy = await run(mcp, { command: 'sleep 60', timeout_seconds: 0.5 });
    assert.equal(busy.status, 'pending');
    const refused = await mcp.call('run', { session: busy.session, command: 'echo no' });
    assert.equal(refused.isError, true);
    const commands = (await server.api<CommandRecord[]>('GET', `/v1/sessions/${busy.session}/commands`)).body;
    const sleeping = commands.find((c) => c.running);
    assert.equal(sleeping?.commandLine, 'sleep 60');
    assert.deepEqual([refused.value.code, refused.value.running], ['shell_busy', sleeping.number]);
    assert.match(refused.value.message, /sleep 60/);
    assert.match(refused.value.hint, /C-c/);
    const screen = (await server.api<ScreenTextReply>('GET', `/v1/sessions/${busy.session}/screen?format=text`)).body;
    assert.ok(!screen.text.includes('echo no'), 'nothing was typed');

    const ended = await server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh', '-c', 'exit 7'], name: 'gone' });
    assert.equal(ended.status, 201);
    await waitFor('the program exited', async () => (await server.api<SessionInfo>('GET', `/v1/sessions/${ended.body.id}`)).body.status === 'exited');
    const notRunning = await mcp.call('run', { session: ':gone', command: 'echo no' });
    assert.equal(notRunning.isError, true);
    assert.deepEqual([notRunning.value.code, notRunning.value.exit_code, notRunning.value.session], ['session_not_running', 7, ended.body.id]);
    assert.match(notRunning.value.message, /exit/);

    const unknown = await mcp.call('run', { session: ':nosuch', command: 'echo no' });
    assert.deepEqual([unknown.isError, unknown.value.code], [true, 'no_session']);

    // Arguments that cannot work are refused with one code, whatever the tool.
    const noDir = await mcp.call('run', { command: 'echo no', cwd: '/no/such/dir' });
    assert.deepEqual([noDir.isError, noDir.value.code], [true, 'bad_arguments']);
    assert.match(noDir.value.message, /the directory does not exist/);
    const cwdWithSession = await mcp.call('run', { session: busy.session, command: 'echo no', cwd: '/tmp' });
    assert.deepEqual([cwdWithSession.isError, cwdWithSession.value.code], [true, 'bad_arguments']);
  });
});
