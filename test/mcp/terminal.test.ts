// The terminal tools of `tend mcp` (send, screen) through the SDK's own
// client, against a real server with real holders, shells and a python3 REPL.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, waitFor } from '../server/harness.js';
import { endedCommand, mcpWithServer, type McpPeer } from './mcp-harness.js';

/** The foreground process group of the terminal a process has (its /proc stat's tpgid). */
function foregroundGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command's closing parenthesis: state, ppid, pgrp, session, tty_nr, tpgid.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]);
}

const TEST_TIMEOUT_MS = 120_000;

/** A server whose shells read no rc file of this machine's user (an empty HOME). */
async function quietShells(t: TestContext) {
  const home = mkdtempSync(join(tmpdir(), 'tend-mcp-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  return mcpWithServer(t, { HOME: home, SHELL: '/bin/bash', XDG_CONFIG_HOME: join(home, '.config') });
}

/** The screen tool's text once `check` holds for it. */
async function screenWhen(mcp: McpPeer, session: string, what: string, check: (text: string) => boolean): Promise<string> {
  return waitFor(what, async () => {
    const { value, isError } = await mcp.call('screen', { session });
    return !isError && check(value.text) ? (value.text as string) : null;
  });
}

/** The rows of a screen's text that hold anything. */
const filledRows = (text: string): string[] => text.split('\n').filter((row) => row.trim() !== '');

/** A new shell session's first prompt, as its screen shows it (trailing blanks trimmed). */
async function firstPrompt(mcp: McpPeer, session: string): Promise<string> {
  const text = await screenWhen(mcp, session, 'the first prompt', (s) => filledRows(s).length > 0);
  return filledRows(text)[0]!;
}

describe('tend mcp: terminal tools', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a python3 REPL driven with send and screen: exact input, exact answers, nothing of tend on its screen', async (t) => {
    const { mcp } = await quietShells(t);
    const made = await mcp.call('new_session', { argv: ['python3', '-q'], cols: 60, rows: 12 });
    assert.equal(made.isError, false, made.text);
    const id = made.value.session.id as string;
    await screenWhen(mcp, id, 'the REPL\'s prompt', (text) => text.startsWith('>>>'));

    const sum = await mcp.call('send', { session: id, text: '6 * 7', enter: true, screen_after: true });
    assert.equal(sum.isError, false, sum.text);
    assert.equal(sum.value.bytes, '6 * 7'.length + 1);
    // Quiet is a guess; the REPL's answer is what the test waits for.
    const afterSum = sum.value.screen.text.includes('42') ? sum.value.screen.text : await screenWhen(mcp, id, 'the answer', (text) => filledRows(text).length >= 3);
    assert.deepEqual(filledRows(afterSum), ['>>> 6 * 7', '42', '>>>']);

    // Quotes, backslashes and Unicode reach the program as typed.
    await mcp.call('send', { session: id, text: `print(len("ünï ✓"), "it's", 'a\\\\b')`, enter: true });
    const printed = await screenWhen(mcp, id, 'the printed line', (text) => filledRows(text).length >= 5);
    assert.deepEqual(filledRows(printed), ['>>> 6 * 7', '42', `>>> print(len("ünï ✓"), "it's", 'a\\\\b')`, "5 it's a\\b", '>>>']);
    assert.doesNotMatch(printed, /\x1b|\]133;|tend/, 'no escape codes, marks or words of tend on the screen');

    const screen = await mcp.call('screen', { session: id });
    assert.deepEqual(screen.value.cursor, { x: 4, y: 4, visible: true }, 'the cursor after ">>> " on the fifth row');
    assert.deepEqual([screen.value.cols, screen.value.rows, screen.value.status, screen.value.exit_code, screen.value.agent], [60, 12, 'running', null, null]);
    assert.equal(screen.value.cut, null);
  });

  test('new_session with argv answers once the program has printed its first output, so a send right after reaches a program that is ready', async (t) => {
    const { mcp } = await quietShells(t);
    // Half a second of silence, then its prompt: a REPL starting.
    const made = await mcp.call('new_session', { argv: ['sh', '-c', 'sleep 0.5; printf "ready> "; exec cat'] });
    assert.equal(made.isError, false, made.text);
    assert.notEqual(made.value.session.last_output_at, null, 'the answer came after the program\'s first output');
    const echoed = await mcp.call('send', { session: made.value.session.id, text: 'hello', enter: true });
    assert.equal(echoed.isError, false, echoed.text);
    const text = await screenWhen(mcp, made.value.session.id, 'the line read back', (s) => filledRows(s).length >= 2);
    assert.deepEqual(filledRows(text), ['ready> hello', 'hello']);
  });

  test('send keys ["C-c"] stops a running command and the shell\'s prompt comes back', async (t) => {
    const { server, mcp } = await quietShells(t);
    const { session } = (await mcp.call('new_session', {})).value;
    const prompt = await firstPrompt(mcp, session.id);
    await mcp.call('send', { session: session.id, text: 'sleep 100', enter: true });
    await waitFor('sleep to run', async () => (await server.api('GET', `/v1/sessions/${session.id}/commands`)).body[0]?.running === true);
    // And to hold the terminal: the command's mark comes before bash hands the terminal to it, and a
    // Ctrl-C in between reaches bash, not sleep (a person would not type that fast; a loaded machine does).
    const shellPid = (await server.api<{ pid: number }>('GET', `/v1/sessions/${session.id}`)).body.pid;
    await waitFor('sleep in the foreground', () => foregroundGroupOf(shellPid) !== shellPid);
    const stopped = await mcp.call('send', { session: session.id, keys: ['C-c'], screen_after: true });
    assert.equal(stopped.isError, false, stopped.text);
    assert.equal(stopped.value.bytes, 1, 'C-c is one byte, not the text "C-c"');
    const command = await waitFor('the interrupted command', async () => {
      const c = (await server.api('GET', `/v1/sessions/${session.id}/commands`)).body[0];
      return c && !c.running ? c : null;
    });
    assert.equal(command.exitCode, 130, 'bash reports 128 + SIGINT');
    const text = await screenWhen(mcp, session.id, 'the prompt back', (s) => filledRows(s).at(-1) === prompt);
    assert.deepEqual(filledRows(text), [`${prompt} sleep 100`, '^C', prompt]);
  });

  test('an unknown key name is refused with the list of names, and the session receives nothing of the call', async (t) => {
    const { mcp } = await quietShells(t);
    const { session } = (await mcp.call('new_session', { argv: ['cat'] })).value;
    const refused = await mcp.call('send', { session: session.id, text: 'typed-anyway', keys: ['Up', 'Bogus'], enter: true });
    assert.equal(refused.isError, true);
    assert.equal(refused.value.code, 'unknown_key');
    assert.match(refused.value.message, /"Bogus" is not a key name; known keys: .*Enter.*Nothing was typed/);
    assert.match(refused.value.known_keys, /C-a\.\.C-z/);
    const nothing = await mcp.call('send', { session: session.id });
    assert.equal(nothing.value.code, 'nothing_to_send');
    // Writes reach the program in order: had the refused call typed anything, it would come before this.
    await mcp.call('send', { session: session.id, text: 'after', enter: true });
    const text = await screenWhen(mcp, session.id, 'cat to echo the line back', (s) => filledRows(s).length >= 2);
    assert.deepEqual(filledRows(text), ['after', 'after']);
  });

  test('sends made at once to one session take turns: each call\'s text, keys and Enter arrive together', async (t) => {
    const { mcp } = await quietShells(t);
    // The terminal's echo is off: with it on, the kernel may echo the start of one call's line in the middle
    // of cat printing back the line before, which mixes rows on the screen though the input took turns.
    // Without it, each row is one line exactly as cat read it. new_session answers on the program's first output.
    const { session } = (await mcp.call('new_session', { argv: ['sh', '-c', 'stty -echo; echo ready; exec cat'] })).value;
    const calls = [0, 1, 2, 3, 4, 5].map((i) => mcp.call('send', { session: session.id, text: `part${i}-`, keys: ['E', 'N', 'D'], enter: true }));
    for (const answer of await Promise.all(calls)) assert.equal(answer.isError, false, answer.text);
    const text = await screenWhen(mcp, session.id, 'every line', (s) => filledRows(s).length >= 7);
    const [first, ...rows] = filledRows(text);
    assert.equal(first, 'ready');
    assert.deepEqual(rows.filter((row) => !/^part\d-END$/.test(row)), [], 'no line mixes two calls');
    assert.deepEqual([...rows].sort(), ['part0-END', 'part1-END', 'part2-END', 'part3-END', 'part4-END', 'part5-END']);
  });

  test('the tend server killed between two calls: the next send and screen work on the same session (tend mcp starts a server)', async (t) => {
    const { server, mcp } = await quietShells(t);
    const { session } = (await mcp.call('new_session', { argv: ['cat'] })).value;
    await mcp.call('send', { session: session.id, text: 'before', enter: true });
    await screenWhen(mcp, session.id, 'the first line', (s) => filledRows(s).length >= 2);
    const pid = server.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await waitFor('the server gone', () => !isAlive(pid));
    const sent = await mcp.call('send', { session: session.id, text: 'after', enter: true, screen_after: true });
    assert.equal(sent.isError, false, sent.text);
    assert.equal(sent.value.session, session.id);
    const text = await screenWhen(mcp, session.id, 'the line sent after the restart', (s) => filledRows(s).length >= 4);
    assert.deepEqual(filledRows(text), ['before', 'before', 'after', 'after']);
    assert.notEqual(server.serverPid(), pid, 'another server answers');
  });

  test('the screen of a session whose program exited: its last screen, its exit code, and a note saying so; input to it is refused', async (t) => {
    const { mcp } = await quietShells(t);
    const { session } = (await mcp.call('new_session', { argv: ['sh', '-c', 'echo last words; exit 3'] })).value;
    await waitFor('the program to exit', async () => (await mcp.call('list_sessions')).value.sessions[0]?.status === 'exited');
    const screen = await mcp.call('screen', { session: session.id });
    assert.equal(screen.isError, false, screen.text);
    assert.deepEqual(filledRows(screen.value.text), ['last words']);
    assert.deepEqual([screen.value.status, screen.value.exit_code, screen.value.exit_signal], ['exited', 3, null]);
    assert.match(screen.value.note, /^this is the session's last screen: its program exited with code 3/);
    const typed = await mcp.call('send', { session: session.id, text: 'x' });
    assert.equal(typed.isError, true);
    assert.equal(typed.value.code, 'session_not_running');
    assert.match(typed.value.hint, /still readable/);
  });

  test('screen with scrollback shows rows above the screen, cut to its bottom rows at max_chars with a note', async (t) => {
    const { mcp } = await quietShells(t);
    const made = await mcp.call('new_session', { command: 'seq 1 3000', cols: 40, rows: 10 });
    assert.equal((await endedCommand(mcp, made)).status, 'done', made.text);
    const id = made.value.session.id as string;
    const some = await mcp.call('screen', { session: id, scrollback: 20 });
    assert.equal(some.value.scrollback.shown, 20);
    assert.ok(some.value.scrollback.available > 1000);
    const rows = some.value.text.split('\n');
    assert.equal(rows.length, 30, '20 rows of scrollback, then the 10 rows of the screen');
    const prompt = rows[29];
    assert.deepEqual(rows.slice(20, 29), ['2992', '2993', '2994', '2995', '2996', '2997', '2998', '2999', '3000']);
    assert.ok(prompt !== '' && !/^\d+$/.test(prompt), 'the prompt is on the last row');
    assert.equal(rows[0], '2972');

    const cut = await mcp.call('screen', { session: id, scrollback: 3000, max_chars: 1000 });
    assert.ok(cut.value.text.length <= 1000);
    assert.ok(cut.value.text.endsWith(`2999\n3000\n${prompt}`), 'the bottom rows are kept');
    assert.equal(cut.value.cut.kept, 'tail');
    assert.ok(cut.value.cut.omitted_lines > 2000);
    assert.match(cut.value.cut.note, /call screen again with max_chars up to 80000 or a smaller scrollback/);
  });

  test('send with screen_after in a shell returns the screen once the output is quiet', async (t) => {
    const { mcp } = await quietShells(t);
    const { session } = (await mcp.call('new_session', {})).value;
    const prompt = await firstPrompt(mcp, session.id);
    const sent = await mcp.call('send', { session: session.id, text: 'echo $((20 + 22))', enter: true, screen_after: true, wait_ms: 5000 });
    assert.equal(sent.isError, false, sent.text);
    assert.equal(sent.value.quiet, true);
    assert.ok(filledRows(sent.value.screen.text).includes(`${prompt} echo $((20 + 22))`), 'the screen is read after the input arrived');
    // Quiet is a guess (a loaded machine may pause the shell longer): what it printed is waited for.
    const after = filledRows(sent.value.screen.text).length >= 3 ? sent.value.screen.text : await screenWhen(mcp, session.id, 'the answer', (text) => filledRows(text).length >= 3);
    assert.deepEqual(filledRows(after), [`${prompt} echo $((20 + 22))`, '42', prompt]);
  });
});
