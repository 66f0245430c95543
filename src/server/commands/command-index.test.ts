import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CommandIndex, type IndexedCommand } from './command-index.js';
import { MAX_COMMAND_LINE_CHARS } from './shell-marks.js';
import { MARK_A, MARK_B, MARK_C, command, cwdMark, feed, markD, newTerminal, osc, prompt } from '../../../test/support/shell-stream-fixture.js';

const TEST_TIMEOUT_MS = 20_000;

function setup(cols = 80, rows = 24, scrollback = 1000) {
  const terminal = newTerminal(cols, rows, scrollback);
  const index = new CommandIndex(terminal);
  return {
    terminal,
    index,
    dispose() {
      index.dispose();
      terminal.dispose();
    },
  };
}

function summary(c: IndexedCommand) {
  return { number: c.number, commandLine: c.commandLine, exitCode: c.exitCode, cwd: c.cwd, running: c.endedAt === null };
}

describe('CommandIndex', { timeout: TEST_TIMEOUT_MS }, () => {
  test('records three commands with their lines, exit codes, outputs and cwd', async () => {
    const t = setup();
    await feed(
      t.terminal,
      prompt('/home/user') +
        command('echo hi', 'hi\r\n', 0) +
        prompt('/home/user') +
        command('false', '', 1) +
        prompt('/home/user') +
        command("printf ''", '', 0) +
        prompt('/home/user'),
    );
    assert.deepEqual(t.index.list().map(summary), [
      { number: 1, commandLine: 'echo hi', exitCode: 0, cwd: '/home/user', running: false },
      { number: 2, commandLine: 'false', exitCode: 1, cwd: '/home/user', running: false },
      { number: 3, commandLine: "printf ''", exitCode: 0, cwd: '/home/user', running: false },
    ]);
    assert.deepEqual(t.index.output(1), { text: 'hi\n', complete: true });
    assert.deepEqual(t.index.output(2), { text: '', complete: true });
    assert.deepEqual(t.index.output(3), { text: '', complete: true });
    assert.equal(t.index.last()?.number, 3);
    assert.equal(t.index.get(2)?.commandLine, 'false');
    assert.equal(t.index.get(4), undefined);
    assert.equal(t.index.output(4), null);
    t.dispose();
  });

  test('takes the cwd reported before each command, percent-decoded', async () => {
    const t = setup();
    await feed(t.terminal, prompt('/tmp/a b/é') + command('cd /srv', '', 0) + prompt('/srv') + command('ls', 'x\r\n', 0));
    assert.equal(t.index.get(1)?.cwd, '/tmp/a b/é');
    assert.equal(t.index.get(2)?.cwd, '/srv');
    assert.equal(t.index.currentCwd, '/srv');
    t.dispose();
  });

  test('reads the command line off the screen when the shell sent no 633;E', async () => {
    const t = setup();
    await feed(t.terminal, prompt() + command('ls  -la /tmp', 'total 0\r\n', 0, { sendLine: false }));
    assert.equal(t.index.get(1)?.commandLine, 'ls  -la /tmp');
    t.dispose();
  });

  test('uses the 633;E line exactly, unescaping ; \\ and control characters', async () => {
    const t = setup();
    const line = 'echo "a;b" \\ \t x\ny';
    await feed(t.terminal, prompt() + command(line, '', 0));
    assert.equal(t.index.get(1)?.commandLine, line);
    t.dispose();
  });

  test('joins rows the terminal wrapped and keeps output that ends without a newline', async () => {
    const t = setup(10, 5);
    const long = 'abcdefghijklmnopqrstuvwxy'; // 25 cells on 10 columns: three rows
    await feed(t.terminal, prompt() + command('cat f', `${long}\r\nend`, 0) + prompt());
    assert.deepEqual(t.index.output(1), { text: `${long}\nend`, complete: true });
    t.dispose();
  });

  test('gives a running command its output up to the cursor, marked incomplete', async () => {
    const t = setup();
    const started: number[] = [];
    const finished: Array<[number, number | null]> = [];
    t.index.onCommandStarted((c) => started.push(c.number));
    t.index.onCommandFinished((c) => finished.push([c.number, c.exitCode]));
    assert.equal(t.index.atPrompt, false, 'no prompt yet');
    await feed(t.terminal, prompt());
    assert.equal(t.index.atPrompt, true, 'after B the shell waits for a line');
    await feed(t.terminal, 'make\r\n' + MARK_C + 'step 1\r\nstep 2');
    assert.equal(t.index.atPrompt, false, 'after C the command runs');
    assert.deepEqual(started, [1]);
    assert.deepEqual(finished, []);
    assert.deepEqual(t.index.output(1), { text: 'step 1\nstep 2', complete: false });
    assert.equal(t.index.current()?.number, 1);
    await feed(t.terminal, '\r\n' + markD(2) + prompt());
    assert.deepEqual(finished, [[1, 2]]);
    assert.deepEqual(t.index.output(1), { text: 'step 1\nstep 2\n', complete: true });
    assert.equal(t.index.current(), undefined);
    t.dispose();
  });

  test('keeps outputs right after a resize rewraps their rows', async () => {
    const t = setup(20, 5);
    const long = 'x'.repeat(15) + 'y'.repeat(15);
    await feed(t.terminal, prompt() + command('gen', `${long}\r\nok`, 0) + prompt());
    t.terminal.resize(12, 5);
    assert.deepEqual(t.index.output(1), { text: `${long}\nok`, complete: true });
    t.terminal.resize(40, 5);
    assert.deepEqual(t.index.output(1), { text: `${long}\nok`, complete: true });
    t.dispose();
  });

  test('gives null, not later rows, once a command output scrolled out of the buffer', async () => {
    const t = setup(40, 5, 10);
    await feed(t.terminal, prompt() + command('echo old', 'old\r\n', 0) + prompt());
    assert.deepEqual(t.index.output(1), { text: 'old\n', complete: true });
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}\r\n`).join('');
    await feed(t.terminal, command('seq', lines, 0) + prompt() + command('echo new', 'new\r\n', 0) + prompt());
    assert.equal(t.index.output(1), null, 'the first command has left the buffer');
    assert.equal(t.index.output(2), null, 'the start of the long output has left the buffer');
    assert.deepEqual(t.index.output(3), { text: 'new\n', complete: true });
    assert.equal(t.index.get(1)?.commandLine, 'echo old', 'the record outlives its rows');
    t.dispose();
  });

  test('gives null after a terminal reset (RIS) instead of reading the new rows', async () => {
    const t = setup();
    await feed(t.terminal, prompt() + command('echo hi', 'hi\r\n', 0) + prompt());
    await feed(t.terminal, '\x1bc' + 'fresh text\r\n'.repeat(5));
    assert.equal(t.index.output(1), null);
    assert.equal(t.index.get(1)?.exitCode, 0);
    t.dispose();
  });

  test('ignores a D with no C before it (empty Enter, Ctrl-C at the prompt)', async () => {
    const t = setup();
    await feed(t.terminal, prompt() + '\r\n' + markD(130) + prompt() + command('true', '', 0));
    assert.deepEqual(t.index.list().map((c) => [c.commandLine, c.exitCode]), [['true', 0]]);
    t.dispose();
  });

  test('records a C with no B before it, with an empty command line', async () => {
    const t = setup();
    await feed(t.terminal, MARK_C + 'out\r\n' + markD(0));
    assert.deepEqual(t.index.list().map(summary), [{ number: 1, commandLine: '', exitCode: 0, cwd: null, running: false }]);
    assert.deepEqual(t.index.output(1), { text: 'out\n', complete: true });
    t.dispose();
  });

  test('takes the second of two A marks as the prompt start', async () => {
    const t = setup();
    await feed(t.terminal, MARK_A + 'stale prompt\r\n' + MARK_A + '$ ' + MARK_B + command('ls', '', 0));
    const first = t.index.get(1)!;
    assert.equal(first.promptStart?.marker?.line, 1);
    assert.equal(first.commandLine, 'ls');
    t.dispose();
  });

  test('ignores B, E and C while a command runs, and the D after them ends it once', async () => {
    const t = setup();
    await feed(t.terminal, prompt() + command('outer', 'a\r\n' + MARK_B + osc('633;E;inner') + MARK_C + 'b\r\n', 7) + markD(9));
    assert.deepEqual(t.index.list().map((c) => [c.commandLine, c.exitCode]), [['outer', 7]]);
    assert.deepEqual(t.index.output(1), { text: 'a\nb\n', complete: true });
    t.dispose();
  });

  test('ends a command whose D was lost when the next prompt starts, with no exit code', async () => {
    const t = setup();
    const finished: IndexedCommand[] = [];
    t.index.onCommandFinished((c) => finished.push(c));
    await feed(t.terminal, prompt() + 'sleep 9\r\n' + MARK_C + 'partial\r\n' + prompt());
    assert.equal(finished.length, 1);
    assert.equal(finished[0]!.exitCode, null);
    assert.deepEqual(t.index.output(1), { text: 'partial\n', complete: true });
    t.dispose();
  });

  test('reads an absurd or missing exit code as null and keeps going', async () => {
    const t = setup();
    const codes = ['99999999999999999999', 'abc', '', '-1', '4294967296', '1e3', ' 2'];
    let stream = '';
    for (const code of codes) stream += prompt() + 'x\r\n' + MARK_C + osc(`133;D;${code}`);
    stream += prompt() + 'y\r\n' + MARK_C + osc('133;D');
    await feed(t.terminal, stream);
    assert.deepEqual(
      t.index.list().map((c) => c.exitCode),
      [null, null, null, -1, null, null, null, null],
    );
    t.dispose();
  });

  test('survives malformed marks: unknown letters, empty payloads, bad cwd URLs, huge payloads', async () => {
    const t = setup();
    const garbage = [
      osc('133'),
      osc('133;'),
      osc('133;Z'),
      osc('133;;;;'),
      osc('633'),
      osc('633;E'),
      osc('633;P;Cwd='),
      osc('633;Q;whatever'),
      osc('7;file://host/bad%zzpath'),
      osc('7;file://host/%C3'),
      osc('7;http://example.com/'),
      osc('7;'),
      osc('7;file://host/' + 'a'.repeat(100_000)),
      '\x1b]133;A', // unterminated: the next ESC aborts it
      '\x1b]133;D;0\x1b\\',
    ];
    await feed(t.terminal, garbage.join('') + prompt('/ok') + command('echo fine', 'fine\r\n', 0) + prompt());
    assert.deepEqual(t.index.list().map(summary), [{ number: 1, commandLine: 'echo fine', exitCode: 0, cwd: '/ok', running: false }]);
    assert.deepEqual(t.index.output(1), { text: 'fine\n', complete: true });
    t.dispose();
  });

  test('bounds a huge command line', async () => {
    const t = setup();
    const huge = 'y'.repeat(1_000_000);
    await feed(t.terminal, prompt() + 'yes\r\n' + osc(`633;E;${huge}`) + MARK_C + markD(0));
    assert.equal(t.index.get(1)?.commandLine.length, MAX_COMMAND_LINE_CHARS);
    t.dispose();
  });

  test('ignores marks drawn on the alternate screen but honours a D there', async () => {
    const t = setup();
    await feed(t.terminal, prompt() + 'vim\r\n' + MARK_C + '\x1b[?1049h' + MARK_A + MARK_B + MARK_C + 'screen' + markD(3));
    assert.deepEqual(t.index.list().map((c) => [c.commandLine, c.exitCode]), [['vim', 3]]);
    assert.equal(t.index.output(1), null, 'the end was on the alternate screen, so there is no end place');
    await feed(t.terminal, '\x1b[?1049l' + prompt() + command('ls', 'f\r\n', 0));
    assert.deepEqual(t.index.output(2), { text: 'f\n', complete: true });
    t.dispose();
  });

  test('passes OSC 7 and marks it could not read to handlers registered before it', async () => {
    const terminal = newTerminal();
    const seen: string[] = [];
    const earlier7 = terminal.parser.registerOscHandler(7, (d) => (seen.push(`7:${d}`), true));
    const earlier133 = terminal.parser.registerOscHandler(133, (d) => (seen.push(`133:${d}`), true));
    const index = new CommandIndex(terminal);
    await feed(terminal, cwdMark('/x') + osc('133;A') + osc('133;Q'));
    assert.deepEqual(seen, ['7:file://host/x', '133:Q']);
    assert.equal(index.currentCwd, '/x');
    index.dispose();
    await feed(terminal, osc('133;A'));
    assert.deepEqual(seen, ['7:file://host/x', '133:Q', '133:A'], 'after dispose the index no longer takes marks');
    earlier7.dispose();
    earlier133.dispose();
    terminal.dispose();
  });

  test('numbers commands on after the oldest are forgotten', async () => {
    const t = setup(80, 24, 100);
    const { MAX_COMMANDS_KEPT } = await import('./command-index.js');
    const total = MAX_COMMANDS_KEPT + 5;
    let stream = '';
    for (let i = 0; i < total; i++) stream += MARK_A + MARK_B + command(`c${i}`, '', 0);
    await feed(t.terminal, stream);
    const list = t.index.list();
    assert.equal(list.length, MAX_COMMANDS_KEPT);
    assert.equal(list[0]!.number, 6);
    assert.equal(t.index.get(5), undefined);
    assert.equal(t.index.get(total)?.commandLine, `c${total - 1}`);
    t.dispose();
  });
  test('a continuation prompt (633;F … 633;G) after B: not at the prompt until the command starts, is given up (D, A), or a new prompt comes', async () => {
    const t = setup();
    const continuation = (text = '> ') => osc('633;F') + text + osc('633;G');
    await feed(t.terminal, prompt() + 'echo "unclosed\r\n' + continuation());
    assert.deepEqual([t.index.atPrompt, t.index.atContinuation], [false, true]);
    // The rest of the line: one command, from the first line's prompt.
    await feed(t.terminal, 'tail"\r\n' + osc('633;E;echo "unclosed\\x0atail"') + MARK_C + 'unclosed\r\ntail\r\n' + markD(0) + prompt());
    assert.deepEqual([t.index.atPrompt, t.index.atContinuation], [true, false]);
    assert.deepEqual(t.index.list().map(summary), [{ number: 1, commandLine: 'echo "unclosed\ntail"', exitCode: 0, cwd: '/home/user', running: false }]);
    // C-c at the continuation prompt: bash reports D (no command runs), then a new prompt.
    await feed(t.terminal, 'for i in 1; do\r\n' + continuation());
    assert.equal(t.index.atContinuation, true);
    await feed(t.terminal, '^C\r\n' + markD(130));
    assert.equal(t.index.atContinuation, false);
    await feed(t.terminal, prompt());
    assert.deepEqual([t.index.atPrompt, t.index.atContinuation], [true, false]);
    assert.equal(t.index.list().length, 1, 'a command given up is not recorded');
    // An F with no prompt before it, or while a command runs, is not the shell's continuation.
    await feed(t.terminal, command('cat', '', 0).replace(markD(0), '') + continuation());
    assert.deepEqual([t.index.atContinuation, t.index.current()?.number], [false, 2]);
    t.dispose();
  });
});
