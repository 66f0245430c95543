// Round trips through a real checkpoint path: the screen copied with the
// serialize addon into a fresh terminal, the index through JSON text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import serializeAddon from '@xterm/addon-serialize';
import type { Terminal } from '@xterm/headless';
import { CommandIndex } from './command-index.js';
import { MARK_C, command, feed, markD, newTerminal, osc, prompt } from '../../../test/support/shell-stream-fixture.js';

const { SerializeAddon } = serializeAddon;
const TEST_TIMEOUT_MS = 20_000;

function serializeScreen(terminal: Terminal, scrollback?: number): string {
  const addon = new SerializeAddon();
  terminal.loadAddon(addon);
  const data = scrollback === undefined ? addon.serialize() : addon.serialize({ scrollback });
  addon.dispose();
  return data;
}

/** Everything observable about an index, output text included. */
function observe(index: CommandIndex) {
  return index.list().map((c) => ({
    number: c.number,
    commandLine: c.commandLine,
    cwd: c.cwd,
    startedAt: c.startedAt,
    endedAt: c.endedAt,
    exitCode: c.exitCode,
    output: index.output(c.number),
  }));
}

// A session's worth of commands: short and long outputs, a wrapped row, a
// coloured one, output with no final newline, and one still running.
function sessionStream(): string {
  const many = Array.from({ length: 40 }, (_, i) => `row ${i}\r\n`).join('');
  return (
    prompt('/home/u') +
    command('echo hi', 'hi\r\n', 0) +
    prompt('/home/u') +
    command('seq 40', many, 0) +
    prompt('/home/u') +
    command('printf wide', 'w'.repeat(130) + '\r\n\x1b[31mred\x1b[0m tail', 1) +
    prompt('/srv') +
    command('cat log', 'one\r\ntwo\r\n', 0) +
    prompt('/srv') +
    'make\r\n' +
    MARK_C +
    'building\r\n'
  );
}

// Commands that start after the round trip get their times from two calls of
// the clock, one per index.
function untimed(list: ReturnType<typeof observe>) {
  return list.map(({ startedAt: _s, endedAt: _e, ...rest }) => rest);
}

async function roundTrip(source: Terminal, index: CommandIndex, opts: { scrollback?: number } = {}) {
  const json: unknown = JSON.parse(JSON.stringify(index.toJSON()));
  const copy = newTerminal(source.cols, source.rows, source.options.scrollback);
  await feed(copy, serializeScreen(source, opts.scrollback));
  const rowsDropped = source.buffer.normal.length - copy.buffer.normal.length;
  // The copy's line 0 is the source's line rowsDropped: its rows keep their numbers, as a screen's do after a restore.
  const rows = { terminal: copy, rowBase: rowsDropped, firstRow: rowsDropped, lineAt: (r: number) => copy.buffer.normal.getLine(r - rowsDropped) };
  const restored = CommandIndex.restore(rows, json);
  return { copy, restored, rowsDropped };
}

describe('CommandIndex checkpoint round trip', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a terminal restored from the serialized screen has the same rows at the same numbers', async () => {
    const source = newTerminal(80, 10, 1000);
    const index = new CommandIndex(source);
    await feed(source, sessionStream());
    const { copy, restored, rowsDropped } = await roundTrip(source, index);
    // The assumption the saved rows rest on, checked rather than trusted.
    assert.equal(rowsDropped, 0);
    assert.equal(copy.buffer.normal.baseY, source.buffer.normal.baseY);
    assert.equal(index.toJSON().baseY, copy.buffer.normal.baseY);
    const before = observe(index);
    assert.equal(before.length, 5);
    assert.deepEqual(before[1]!.output?.text.split('\n').length, 41);
    assert.deepEqual(before[2]!.output, { text: 'w'.repeat(130) + '\nred tail', complete: true });
    assert.deepEqual(before[4]!.output, { text: 'building\n', complete: false });
    assert.deepEqual(observe(restored), before);
    index.dispose();
    restored.dispose();
    source.dispose();
    copy.dispose();
  });

  test('the restored index goes on where the old one stopped: the running command ends, numbers continue', async () => {
    const source = newTerminal(80, 10, 1000);
    const index = new CommandIndex(source);
    await feed(source, sessionStream());
    const { copy, restored } = await roundTrip(source, index);
    const rest = 'done\r\n' + markD(2) + prompt('/srv') + command('ls', 'a b\r\n', 0) + prompt('/srv');
    await feed(source, rest);
    await feed(copy, rest);
    const after = observe(restored);
    assert.deepEqual(
      after.map((c) => [c.number, c.commandLine, c.exitCode]),
      [
        [1, 'echo hi', 0],
        [2, 'seq 40', 0],
        [3, 'printf wide', 1],
        [4, 'cat log', 0],
        [5, 'make', 2],
        [6, 'ls', 0],
      ],
    );
    assert.deepEqual(restored.output(5), { text: 'building\ndone\n', complete: true });
    assert.deepEqual(untimed(after), untimed(observe(index)));
    index.dispose();
    restored.dispose();
    source.dispose();
    copy.dispose();
  });

  test('commands whose rows were trimmed before the checkpoint stay null after it', async () => {
    const source = newTerminal(80, 10, 20);
    const index = new CommandIndex(source);
    await feed(source, sessionStream());
    const before = observe(index);
    assert.equal(before[0]!.output, null, 'echo hi scrolled out of a 20-row scrollback');
    assert.equal(before[1]!.output, null);
    assert.notEqual(before[3]!.output, null);
    const { restored } = await roundTrip(source, index);
    assert.deepEqual(observe(restored), before);
    index.dispose();
    restored.dispose();
    source.dispose();
  });

  test('rows keep their numbers when the restored buffer starts further down (the oldest rows left out)', async () => {
    const source = newTerminal(80, 10, 1000);
    const index = new CommandIndex(source);
    await feed(source, sessionStream());
    const { restored, rowsDropped } = await roundTrip(source, index, { scrollback: 8 });
    assert.equal(rowsDropped, source.buffer.normal.baseY - 8, 'all but 8 scrollback rows were left out');
    const before = observe(index);
    const after = observe(restored);
    for (const [i, command] of after.entries()) {
      // Commands that start inside the kept rows read the same; the others read null.
      if (command.output !== null) assert.deepEqual(command.output, before[i]!.output);
    }
    assert.equal(after[0]!.output, null);
    assert.deepEqual(after[3]!.output, before[3]!.output);
    assert.deepEqual(after[4]!.output, before[4]!.output);
    index.dispose();
    restored.dispose();
    source.dispose();
  });

  test('a restore while a full-screen program runs keeps outputs and places them when it exits', async () => {
    const source = newTerminal(80, 10, 1000);
    const index = new CommandIndex(source);
    await feed(source, prompt() + command('echo hi', 'hi\r\n', 0) + prompt() + 'vim\r\n' + MARK_C + '\x1b[?1049h\x1b[Hediting');
    const { copy, restored } = await roundTrip(source, index);
    assert.equal(copy.buffer.active.type, 'alternate');
    assert.deepEqual(restored.output(1), { text: 'hi\n', complete: true });
    const exit = '\x1b[?1049l' + markD(0) + prompt() + command('echo bye', 'bye\r\n', 0) + prompt();
    await feed(source, exit);
    await feed(copy, exit);
    assert.deepEqual(untimed(observe(restored)), untimed(observe(index)));
    assert.deepEqual(restored.output(3), { text: 'bye\n', complete: true });
    // A second checkpoint taken from the restored index keeps the places too.
    const again = CommandIndex.restore(copy, JSON.parse(JSON.stringify(restored.toJSON())));
    assert.deepEqual(observe(again), observe(restored));
    for (const x of [index, restored, again, source, copy]) x.dispose();
  });

  test('a shell at its continuation prompt is still there after the restore; the rest of its command then ends it', async () => {
    const source = newTerminal(80, 10, 1000);
    const index = new CommandIndex(source);
    await feed(source, prompt('/home/u') + 'echo "open\r\n' + osc('633;F') + '> ' + osc('633;G'));
    assert.equal(index.atContinuation, true);
    const { copy, restored } = await roundTrip(source, index);
    assert.deepEqual([restored.atPrompt, restored.atContinuation], [false, true]);
    await feed(copy, 'shut"\r\n' + MARK_C + 'open\r\nshut\r\n' + markD(0) + prompt('/home/u'));
    assert.deepEqual([restored.atPrompt, restored.atContinuation], [true, false]);
    assert.deepEqual(restored.output(1), { text: 'open\nshut\n', complete: true });
    index.dispose();
    restored.dispose();
    source.dispose();
    copy.dispose();
  });

  test('data that is not a saved index gives an empty index that numbers from 1', async () => {
    for (const junk of [null, 42, 'x', [], {}, { version: 2 }, { version: 1, bufferLength: -1 }]) {
      const terminal = newTerminal();
      const index = CommandIndex.restore(terminal, junk);
      assert.deepEqual(index.list(), []);
      await feed(terminal, prompt() + command('true', '', 0));
      assert.equal(index.last()?.number, 1);
      index.dispose();
      terminal.dispose();
    }
  });

  test('a saved index with bad entries keeps the good ones', async () => {
    const terminal = newTerminal();
    const good = { number: 2, commandLine: 'ok', cwd: '/', startedAt: 5, endedAt: 6, exitCode: 0, running: false, promptStart: null, outputStart: null, outputEnd: null };
    const json = {
      version: 1,
      bufferLength: 24,
      baseY: 0,
      cwd: '/',
      lastNumber: 3,
      commands: [
        { ...good, number: 'one' },
        good,
        { ...good, number: 2 }, // a repeated number
        { ...good, number: 9 }, // beyond lastNumber
        { ...good, number: 3, outputStart: { row: -4, offset: 0 }, startedAt: 'now' },
      ],
      pending: 'nonsense',
    };
    const index = CommandIndex.restore(terminal, json);
    assert.deepEqual(index.list().map((c) => c.number), [2]);
    await feed(terminal, prompt() + command('next', '', 0));
    assert.equal(index.last()?.number, 4);
    index.dispose();
    terminal.dispose();
  });
});
