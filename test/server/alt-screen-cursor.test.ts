// A program on the alternate screen when `tend attach` joins: when it leaves,
// the cursor must go back where the program saved it on the normal screen, in
// the attach's outer terminal as in the session's own (xterm) screen. tmux as
// the outer terminal keeps 1049's saved cursor apart from DECSC's, so a
// snapshot that only set DECSC left tmux's cursor on the alternate screen's spot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor } from './harness.js';
import { launcherCommand } from '../attach/attach-harness.js';
import { useTestScope } from '../support/test-scope.js';
import { TmuxOuter } from '../attach/tmux-outer.js';

const COLS = 80;
const ROWS = 24;
// Normal-screen output, the cursor saved at row 7, column 12 with a bold blue pen, then the alternate screen.
const ENTER = 'line\r\n'.repeat(30) + '$ vim notes\x1b[7;12H\x1b[1;44m\x1b[?1049h\x1b[0m\x1b[2;3Hpane text\x1b[20;1H';
const LEAVE = '\x1b[?1049lX';

function printfEscaped(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\x1b', '\\033').replaceAll('\r', '\\r').replaceAll('\n', '\\n');
}

test('leaving the alternate screen puts the cursor where the program saved it, in a tend attach inside tmux as in the session', { timeout: 120_000 }, async (tt) => {
  const scope = useTestScope(tt);
  const t = startTestServer();
  scope.defer(() => t.dispose());
  const program = `stty -opost -echo; printf '%b' '${printfEscaped(ENTER)}'; read go; printf '%b' '${printfEscaped(LEAVE)}'; exec sleep 100000`;
  assert.equal((await t.cli(['new', '--name', 'alt', '--size', `${COLS}x${ROWS}`, '--', 'sh', '-c', program])).code, 0);
  await t.holderPids();
  await waitFor('the program on its alternate screen', async () => (await t.cli(['screen', ':alt'])).stdout.includes('pane text'));

  // The pane is the whole window, COLS x ROWS, as the session.
  const outer = TmuxOuter.start(scope, { cols: COLS, rows: ROWS, command: `${launcherCommand} attach :alt`, env: t.env });
  const pane = () => outer.tmux(['capture-pane', '-p', '-t', '0']).stdout;
  await waitFor('the attach to paint the alternate screen', () => pane().includes('pane text'));

  assert.equal((await t.cli(['send', ':alt', '--enter', 'go'])).code, 0);
  const session = await waitFor('the program to leave its alternate screen', async () => {
    const s = JSON.parse((await t.cli(['screen', ':alt', '--json'])).stdout) as { text: string; cursor: { x: number; y: number; visible: boolean } };
    return s.text.includes('X') ? s : null;
  });
  assert.deepEqual({ x: session.cursor.x, y: session.cursor.y }, { x: 12, y: 6 }, "the session's own screen: back at the saved cursor, one column on");
  await waitFor('the attach to show it', () => pane().includes('X'));
  const [x, y] = outer.tmux(['display', '-p', '-t', '0', '#{cursor_x} #{cursor_y}']).stdout.trim().split(' ').map(Number);
  assert.deepEqual({ x, y }, { x: session.cursor.x, y: session.cursor.y }, `tmux pane:\n${pane()}`);
  assert.equal(pane().split('\n')[6], `${'line'.padEnd(11)}X`, 'X was printed at the saved cursor');
});
