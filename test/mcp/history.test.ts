// The history tools of `tend mcp` (output, commands, search) through the MCP
// SDK's own client, against a real server with real bash sessions: commands
// are started with the await route as any client would, and what the tools
// answer is compared with what the commands truly printed.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, startControlServer, type ControlServer } from '../control/control-server.js';
import { connectMcp, type McpPeer } from './mcp-harness.js';

/** A control server (bash with an empty HOME and a known prompt) and `tend mcp` on it, both ended with the test. */
async function historyServer(t: TestContext, env: Record<string, string> = {}): Promise<{ s: ControlServer; mcp: McpPeer }> {
  const s = startControlServer(env);
  t.after(() => s.dispose());
  const mcp = await connectMcp(t, s);
  return { s, mcp };
}

/** Runs `input` at the session's prompt through the await route and waits for its end mark. */
async function runCommand(s: ControlServer, session: string, input: string): Promise<{ exitCode: number; number: number }> {
  const r = await s.longCall('POST', `/v1/sessions/${encodeURIComponent(session)}/await`, { input, timeoutMs: 120_000 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return { exitCode: r.body.exitCode, number: r.body.command.number };
}

/** The lines `seq from to` prints, each with its newline. */
function seqText(from: number, to: number): string {
  let s = '';
  for (let i = from; i <= to; i++) s += `${i}\n`;
  return s;
}

describe('tend mcp: output, commands, search', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('commands lists three runs oldest first; output reads the last and command N exactly; an unknown number gives the range', async (t) => {
    const { s, mcp } = await historyServer(t);
    await s.newShell(['bash'], { name: 'h' });
    await runCommand(s, ':h', 'echo one-$((0+1))');
    await runCommand(s, ':h', "cd / && printf 'a\\nb\\n' && false");
    await runCommand(s, ':h', 'echo three');

    const listed = await mcp.call('commands', { session: ':h' });
    assert.equal(listed.isError, false, listed.text);
    assert.deepEqual(
      listed.value.commands.map((c: any) => [c.number, c.command_line, c.exit_code, c.running]),
      [
        [1, 'echo one-$((0+1))', 0, false],
        [2, "cd / && printf 'a\\nb\\n' && false", 1, false],
        [3, 'echo three', 0, false],
      ],
    );
    for (const c of listed.value.commands) {
      assert.equal(new Date(c.started_at).toISOString(), c.started_at);
      assert.equal(Date.parse(c.ended_at) - Date.parse(c.started_at), c.duration_ms);
    }
    // Each command's cwd is where the shell was before it: the second one moved it.
    assert.deepEqual(listed.value.commands.map((c: any) => c.cwd), [process.cwd(), process.cwd(), '/']);
    assert.deepEqual([listed.value.total, listed.value.omitted, listed.value.note], [3, 0, null]);
    assert.deepEqual(JSON.parse(listed.text), listed.value, 'the text block is the same JSON');

    const newest = await mcp.call('commands', { session: ':h', last: 2 });
    assert.deepEqual(newest.value.commands.map((c: any) => c.number), [2, 3]);
    assert.equal(newest.value.omitted, 1);
    assert.match(newest.value.note, /the 2 newest of 3 commands are listed; 1 older ones \(numbers before 2\)/);

    const last = await mcp.call('output', { session: ':h' });
    assert.equal(last.isError, false, last.text);
    assert.deepEqual(last.value, { number: 3, command_line: 'echo three', exit_code: 0, running: false, total_lines: 1, text: 'three\n', cut: null });

    const second = await mcp.call('output', { session: ':h', command: 2 });
    assert.deepEqual([second.value.number, second.value.text, second.value.exit_code, second.value.total_lines], [2, 'a\nb\n', 1, 2]);
    const first = await mcp.call('output', { session: ':h', command: '1' });
    assert.equal(first.value.text, 'one-1\n');

    const unknown = await mcp.call('output', { session: ':h', command: 9 });
    assert.equal(unknown.isError, true);
    assert.equal(unknown.value.code, 'no_command');
    assert.equal(unknown.value.message, 'the session has no command 9; its commands are numbered 1–3');
    assert.deepEqual([unknown.value.first_command, unknown.value.last_command], [1, 3]);
    assert.match(unknown.value.hint, /commands tool lists them/);

    // A command that still runs: its output so far, and no end yet.
    const pending = await s.longCall('POST', '/v1/sessions/%3Ah/await', { input: 'echo begun-$((0+1)); read -r reply; echo got-$reply', timeoutMs: 0 });
    assert.equal(pending.status, 202);
    const running = await waitFor('the running command to print', async () => {
      const r = await mcp.call('output', { session: ':h' });
      return r.value.text === 'begun-1\n' ? r : null;
    });
    assert.deepEqual([running.value.number, running.value.running, running.value.exit_code], [4, true, null]);
    const whileRunning = await mcp.call('commands', { session: ':h', last: 1 });
    assert.deepEqual(
      whileRunning.value.commands.map((c: any) => [c.number, c.running, c.exit_code, c.ended_at]),
      [[4, true, null, null]],
    );
    await s.api('POST', '/v1/sessions/%3Ah/input', { text: 'yes\r' });
    const finished = await waitFor('the command to end', async () => {
      const r = await mcp.call('output', { session: ':h', command: 4 });
      return r.value.running ? null : r;
    });
    assert.deepEqual([finished.value.text, finished.value.exit_code], ['begun-1\nyes\ngot-yes\n', 0]);
  });

  test('a long output is cut at the limit with its tail and a note, and read exactly piece by piece with from_line and max_lines', async (t) => {
    const { s, mcp } = await historyServer(t, { TEND_SCROLLBACK_ROWS: '150000' });
    await s.newShell(['bash'], { name: 'long' });
    const total = 100_000;
    const truth = seqText(1, total);
    const { number } = await runCommand(s, ':long', `seq 1 ${total}`);

    const tail = await mcp.call('output', { session: ':long' });
    assert.equal(tail.isError, false, tail.text);
    const cut = tail.value.cut;
    assert.equal(tail.value.total_lines, total);
    assert.equal(cut.kept, 'tail');
    assert.ok(tail.value.text.length <= 20_000, `${tail.value.text.length} characters: within the default limit`);
    assert.equal(tail.value.text, seqText(cut.first_line, total), 'the last whole lines, exactly');
    assert.ok(tail.value.text.length + `${cut.first_line - 1}\n`.length > 20_000, 'as many lines as fit');
    assert.deepEqual([cut.last_line, cut.omitted_lines, cut.omitted_chars], [total, cut.first_line - 1, truth.length - tail.value.text.length]);
    assert.match(cut.note, new RegExp(`^lines ${cut.first_line}–${total} of ${total} are shown: .*output with command ${number} and from_line 1 reads lines 1–${cut.first_line - 1}`));
    assert.ok(tail.text.length < 25_000, 'the whole answer stays small');

    // A range: exactly those lines, and where to go on.
    const range = await mcp.call('output', { session: ':long', command: number, from_line: 50_000, max_lines: 1000 });
    assert.equal(range.value.text, seqText(50_000, 50_999));
    assert.deepEqual([range.value.cut.kept, range.value.cut.first_line, range.value.cut.last_line], ['head', 50_000, 50_999]);
    assert.match(range.value.cut.note, new RegExp(`output with command ${number}, from_line 51000 and max_lines 1000 reads on`));

    // The whole output, read piece by piece as the notes say, is the true output.
    let read = '';
    let from = 1;
    let pieces = 0;
    for (;;) {
      const piece = await mcp.call('output', { session: ':long', command: number, from_line: from, max_chars: 80_000 });
      assert.equal(piece.isError, false, piece.text);
      assert.ok(piece.value.text.length <= 80_000);
      read += piece.value.text;
      pieces++;
      if (piece.value.cut.last_line === total) {
        assert.match(piece.value.cut.note, new RegExp(`line ${total} is the last$`));
        break;
      }
      from = piece.value.cut.last_line + 1;
      assert.match(piece.value.cut.note, new RegExp(`from_line ${from} reads on$`));
    }
    assert.equal(read, truth);
    assert.equal(pieces, Math.ceil(truth.length / 80_000));

    const past = await mcp.call('output', { session: ':long', command: number, from_line: total + 1 });
    assert.equal(past.isError, true);
    assert.equal(past.value.code, 'bad_range');
  });

  test("output that scrolled out is said to be gone; a shell without integration gets how to enable it; an exited session's output stays readable", async (t) => {
    const { s, mcp } = await historyServer(t, { TEND_SCROLLBACK_ROWS: '200' });
    await s.newShell(['bash'], { name: 'small' });
    await runCommand(s, ':small', 'seq 1 3000');
    const gone = await mcp.call('output', { session: ':small' });
    assert.equal(gone.isError, true);
    assert.equal(gone.value.code, 'output_gone');
    assert.match(gone.value.hint, /search may still find lines of it/);

    const plain = await s.newShell(['bash', '--norc', '-i'], { name: 'plain' }); // not a plain shell invocation: tend leaves it as it is
    await s.api('POST', `/v1/sessions/${plain}/input`, { text: 'echo typed-by-hand\r' });
    await waitFor('the typed command ran', async () => /^typed-by-hand$/m.test(await s.screen(plain)));
    const noMarks = await mcp.call('output', { session: ':plain' });
    assert.equal(noMarks.isError, true);
    assert.equal(noMarks.value.code, 'no_commands');
    assert.match(noMarks.value.hint, /tend shell-integration bash/);
    const none = await mcp.call('commands', { session: ':plain' });
    assert.deepEqual([none.value.commands, none.value.total], [[], 0]);
    assert.match(none.value.note, /^no commands yet\. .*tend shell-integration bash/);

    const ended = await s.newShell(['bash'], { name: 'ended' });
    await runCommand(s, ':ended', 'echo bye-$((40+2))');
    await s.api('POST', `/v1/sessions/${ended}/input`, { text: 'exit 3\r' });
    await waitFor('the shell exited', async () => (await s.api('GET', `/v1/sessions/${ended}`)).body.status === 'exited');
    const after = await mcp.call('output', { session: ':ended', command: 1 });
    assert.equal(after.isError, false, after.text);
    assert.deepEqual([after.value.text, after.value.exit_code, after.value.running], ['bye-42\n', 0, false]);
    const listed = await mcp.call('commands', { session: ':ended' });
    assert.equal(listed.value.commands[0].command_line, 'echo bye-$((40+2))');
    // `exit 3` started as command 2 and the shell went with it: no end mark, yet nothing runs any more.
    assert.deepEqual(listed.value.commands.map((c: any) => [c.number, c.command_line, c.running, c.exit_code]), [
      [1, 'echo bye-$((40+2))', false, 0],
      [2, 'exit 3', false, null],
    ]);
    assert.match(listed.value.note, /^the session ended \(its program exited with code 3\) before its shell marked the end of command 2, so that command has no exit code/);
    const unended = await mcp.call('output', { session: ':ended' });
    assert.equal(unended.isError, false, unended.text);
    assert.deepEqual([unended.value.number, unended.value.running, unended.value.exit_code], [2, false, null]);
    assert.match(unended.value.note, /^the session ended \(its program exited with code 3\) before its shell marked the end of command 2/);
  });

  test('search finds lines across every session and in one, with regex and ignore_case, and a bounded answer keeps the newest hits', async (t) => {
    const { s, mcp } = await historyServer(t);
    const a = await s.newShell(['bash'], { name: 'a' });
    const b = await s.newShell(['bash'], { name: 'b' });
    // The output holds the word; the command line that printed it does not.
    await runCommand(s, ':a', 'echo needle-$((1+1))');
    await runCommand(s, ':b', 'echo needle-$((2+1))');

    const everywhere = await mcp.call('search', { pattern: 'needle-[0-9]', regex: true });
    assert.equal(everywhere.isError, false, everywhere.text);
    assert.deepEqual(
      everywhere.value.hits.map((h: any) => [h.session, h.name, h.line]),
      [
        [a, 'a', 'needle-2'],
        [b, 'b', 'needle-3'],
      ],
    );
    for (const h of everywhere.value.hits) assert.equal(typeof h.row, 'number');
    assert.deepEqual([everywhere.value.total, everywhere.value.omitted, everywhere.value.note, everywhere.value.skipped], [2, 0, null, []]);
    assert.deepEqual(everywhere.value.sessions, [
      { session: a, name: 'a', total: 1, shown: 1 },
      { session: b, name: 'b', total: 1, shown: 1 },
    ]);

    const inOne = await mcp.call('search', { pattern: 'needle-\\d', regex: true, session: ':b' });
    assert.deepEqual(inOne.value.hits.map((h: any) => [h.session, h.line]), [[b, 'needle-3']]);
    const anyCase = await mcp.call('search', { pattern: 'NEEDLE-2', ignore_case: true });
    assert.deepEqual(anyCase.value.hits.map((h: any) => h.line), ['needle-2']);
    const exactCase = await mcp.call('search', { pattern: 'NEEDLE-2' });
    assert.deepEqual([exactCase.value.hits, exactCase.value.total], [[], 0]);

    const unknown = await mcp.call('search', { pattern: 'x', session: ':nope' });
    assert.equal(unknown.isError, true);
    assert.equal(unknown.value.code, 'no_session');
    const badRegex = await mcp.call('search', { pattern: '(', regex: true });
    assert.equal(badRegex.value.code, 'bad_pattern');
    await runCommand(s, ':b', `echo ${'a'.repeat(32)}b`);
    const backtracks = await mcp.call('search', { pattern: '(a+)+$', regex: true });
    assert.equal(backtracks.isError, true);
    assert.equal(backtracks.value.code, 'pattern_too_slow');
    assert.match(backtracks.value.hint, /without nested repeats/);

    await runCommand(s, ':a', "seq -f 'hit-%g' 1 500");
    const bounded = await mcp.call('search', { pattern: '^hit-\\d+$', regex: true, max: 1000, max_chars: 1000 });
    assert.equal(bounded.isError, false, bounded.text);
    const lines = bounded.value.hits.map((h: any) => h.line);
    assert.ok(lines.length > 0 && lines.length < 500);
    assert.deepEqual(lines, Array.from({ length: lines.length }, (_, i) => `hit-${500 - lines.length + 1 + i}`), 'the newest hits, oldest first');
    assert.equal(bounded.value.total, 500);
    assert.equal(bounded.value.omitted, 500 - lines.length);
    assert.match(bounded.value.note, new RegExp(`^500 lines matched; the newest ${lines.length} are listed and ${500 - lines.length} older ones are not\\. To see others, narrow the search: search one session \\(session\\), or a stricter pattern`));
  });
});
