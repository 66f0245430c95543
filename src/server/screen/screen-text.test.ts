// `tend screen --ansi` text, printed into a terminal, must give back the same
// rows: colours, OSC 8 links, and soft wraps (a wrapped line is one line that
// the terminal folds again, not two lines).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import { Screen } from './screen.js';
import { diffTerminals } from '../../../test/support/terminal-diff.js';

const LINK_OPEN = '\x1b]8;id=docs;https://example.com/a/very/long/path?q=1\x1b\\';
const LINK_CLOSE = '\x1b]8;;\x1b\\';
// A prompt, a coloured command line that wraps twice with a link across the wrap, a wide character
// that does not fit the last column (the row wraps one column early), and a plain line.
const INPUT = '$ ls\r\n' +
  `\x1b[1;32mgreen and bold ${LINK_OPEN}linked words that run past the margin${LINK_CLOSE}\x1b[0m and plain ones after\r\n` +
  'abcdefghijklmnopqrs\u4e16\u754c end\r\n' +
  'last line\r\n';

async function fed(cols: number, rows: number, bytes: string): Promise<InstanceType<typeof xtermHeadless.Terminal>> {
  const term = new xtermHeadless.Terminal({ cols, rows, scrollback: 100, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(bytes, resolve));
  return term;
}

async function textOf(cols: number, rows: number, options: { ansi?: boolean; joinWrapped?: boolean }): Promise<string> {
  const screen = new Screen({ cols, rows });
  try {
    screen.write(INPUT, { live: false });
    await screen.flush();
    return screen.text(options);
  } finally {
    screen.dispose();
  }
}

describe('screen text', { timeout: 30_000 }, () => {
  test('ANSI text printed at the same width gives the same rows: wraps, colours and the link', async () => {
    const text = await textOf(20, 12, { ansi: true });
    const original = await fed(20, 12, INPUT);
    const printed = await fed(20, 12, text.replaceAll('\n', '\r\n') + '\r\n');
    try {
      // The cursor and pen are where printing left them, not part of the text.
      const diffs = diffTerminals(original, printed).filter((d) => !d.startsWith('cursor:') && !d.startsWith('pen:'));
      assert.deepEqual(diffs, [], JSON.stringify(text));
    } finally {
      original.dispose();
      printed.dispose();
    }
  });

  test('a wrapped line is one line of ANSI text, with its link opened and closed once', async () => {
    const lines = (await textOf(20, 12, { ansi: true })).split('\n');
    assert.equal(lines.length, 4, JSON.stringify(lines));
    const linked = lines[1]!;
    assert.equal(linked.split(LINK_OPEN).length - 1, 1, 'opened once across the wraps');
    assert.equal(linked.split(LINK_CLOSE).length - 1, 1, 'closed once');
    const inside = linked.slice(linked.indexOf(LINK_OPEN) + LINK_OPEN.length, linked.indexOf(LINK_CLOSE));
    assert.equal(inside.replace(/\x1b\[[0-9;:]*m/g, ''), 'linked words that run past the margin');
    assert.ok(linked.endsWith(`\x1b[0m${LINK_CLOSE} and plain ones after`), 'colour and link end where the plain words begin');
    assert.equal(lines[2], 'abcdefghijklmnopqrs\u4e16\u754c end', 'the column a wide character skipped is no space');
  });

  test('ANSI text printed at another width folds the lines anew', async () => {
    const text = await textOf(20, 12, { ansi: true });
    const wide = await fed(40, 12, text.replaceAll('\n', '\r\n'));
    try {
      const row = (y: number) => wide.buffer.active.getLine(y)!;
      assert.equal(row(1).translateToString(true), 'green and bold linked words that run pas');
      assert.equal(row(2).translateToString(true), 't the margin and plain ones after');
      assert.equal(row(2).isWrapped, true);
      assert.equal(row(3).translateToString(true), 'abcdefghijklmnopqrs\u4e16\u754c end');
      assert.equal(row(3).isWrapped, false);
    } finally {
      wide.dispose();
    }
  });

  test('plain text keeps one line per row unless asked to join', async () => {
    assert.equal((await textOf(20, 12, {})).split('\n').length, 8);
    assert.deepEqual((await textOf(20, 12, { joinWrapped: true })).split('\n'), [
      '$ ls',
      'green and bold linked words that run past the margin and plain ones after',
      'abcdefghijklmnopqrs\u4e16\u754c end',
      'last line',
    ]);
  });
});
