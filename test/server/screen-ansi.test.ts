// `tend screen --ansi` printed into a terminal of the session's width gives
// back the session's rows: a soft-wrapped line stays one line (the terminal
// wraps it again, and a copy of it is one line), and an OSC 8 link stays a link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import { diffTerminals } from '../support/terminal-diff.js';
import { startTestServer, waitFor } from './harness.js';

const COLS = 30;
const ROWS = 10;
const LINK_OPEN = '\x1b]8;id=ref;https://example.com/build/1234/log\x1b\\';
const LINK_CLOSE = '\x1b]8;;\x1b\\';
const OUTPUT = `first\r\n\x1b[33mwarning:\x1b[0m see ${LINK_OPEN}the full build log${LINK_CLOSE} for the 3 tests that failed\r\nlast\r\n`;

/** OUTPUT for printf's %b (backslash escapes; the text has no quote or %). */
function printfEscaped(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\x1b', '\\033').replaceAll('\r', '\\r').replaceAll('\n', '\\n');
}

async function fed(bytes: string): Promise<InstanceType<typeof xtermHeadless.Terminal>> {
  const term = new xtermHeadless.Terminal({ cols: COLS, rows: ROWS, scrollback: 100, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(bytes, resolve));
  return term;
}

test('tend screen --ansi keeps a wrapped line one line and a link a link: printed again, it gives the same rows', { timeout: 60_000 }, async () => {
  const t = startTestServer();
  try {
    const created = await t.cli(['new', '--name', 'log', '--size', `${COLS}x${ROWS}`, '--',
      'sh', '-c', `stty -opost; printf '%b' '${printfEscaped(OUTPUT)}'; exec sleep 100000`]);
    assert.equal(created.code, 0, created.stderr);
    await t.holderPids();
    await waitFor('the output', async () => (await t.cli(['screen', ':log'])).stdout.includes('last'));

    const ansi = await t.cli(['screen', ':log', '--ansi']);
    assert.equal(ansi.code, 0, ansi.stderr);
    const lines = ansi.stdout.split('\n');
    assert.equal(lines[1]!.replace(/\x1b\[[0-9;:]*m|\x1b\]8;[^\x1b]*\x1b\\/g, ''), 'warning: see the full build log for the 3 tests that failed', 'the wrapped line is one line');
    assert.ok(lines[1]!.includes(`${LINK_OPEN}the full build log`), 'the link opens before its text');
    assert.ok(lines[1]!.includes(LINK_CLOSE), 'and closes after it');

    const reference = await fed(OUTPUT);
    const printed = await fed(ansi.stdout.replaceAll('\n', '\r\n'));
    try {
      // Where printing leaves the cursor and pen is not part of the text.
      const diffs = diffTerminals(reference, printed).filter((d) => !d.startsWith('cursor:') && !d.startsWith('pen:'));
      assert.deepEqual(diffs, []);
    } finally {
      reference.dispose();
      printed.dispose();
    }
  } finally {
    await t.dispose();
  }
});
