// Two `tend attach` of one full-screen program in terminals of different
// sizes (issue 22, defect 3): the second opening does not take the size, the
// smaller one is shown the session cropped around the cursor (never rows
// wider than itself wrapped over each other), the larger one the session
// padded with dots, and whoever types last sets the size (tmux's "latest").
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, newSession, serverFor, serverScreen, waitForSessionText } from './attach-harness.js';
import { sizeOf, waitForWindow } from './window-check.js';
import { startTestServer } from '../server/harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

describe('tend attach: viewers of different sizes', () => {
  test('two attaches of one vim at 100x30 and 80x24: neither is garbled, the smaller shows the crop, the latest to type sets the size', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const file = join(server.home, 'wide.txt');
    // Lines wider than both terminals: streamed to an 80-column terminal they would wrap over each other.
    writeFileSync(file, Array.from({ length: 60 }, (_, i) => `line ${String(i + 1).padStart(2, '0')} ${'abcdefghij'.repeat(12)}`).join('\n') + '\n');
    const id = await newSession(server, { name: 'vim', argv: ['vim', '-u', 'NONE', '-N', '-n', '-c', 'set nowrap', file], cols: 100, rows: 30 });
    await waitForSessionText(server, id, /^line 01 /);

    const big = await AttachedTerminal.start(scope, server, [':vim'], { cols: 100, rows: 30 });
    await big.waitForServerScreen(server, id);
    const small = await AttachedTerminal.start(scope, server, [':vim'], { cols: 80, rows: 24, waitForPaint: false });
    // Opening beside another writable viewer does not take the size.
    await waitForWindow(small, server, id, { cols: 80, rows: 24 }, () => [0, 0]);
    assert.deepEqual(await sizeOf(server, id), [100, 30]);

    // The larger one types: the cursor goes to line 25, row 24 of 30; the smaller one's window follows it down.
    big.type('25G');
    await waitFor(async () => (await serverScreen(server, id)).cursor.y === 24, { what: 'vim on line 25' });
    await big.waitForServerScreen(server, id);
    await waitForWindow(small, server, id, { cols: 80, rows: 24 }, () => [0, 6]);
    // Rightwards past the smaller terminal's edge: its window moves right to keep the cursor in view.
    big.type('90|');
    await waitFor(async () => (await serverScreen(server, id)).cursor.x === 89, { what: 'vim at column 90' });
    await waitForWindow(small, server, id, { cols: 80, rows: 24 }, () => [20, 6]);

    // The smaller one types: the session takes its size, and the larger one is shown it padded.
    small.type('gg');
    await waitFor(async () => (await sizeOf(server, id)).join('x') === '80x24', { what: 'the session to take the typing viewer\'s size' });
    await small.waitForServerScreen(server, id);
    await waitForWindow(big, server, id, { cols: 100, rows: 30 }, () => [0, 0]);

    small.type('\x1cd');
    big.type('\x1cd');
    await small.waitForExit();
    await big.waitForExit();
  });

  test('a read-only attach of another size is shown its window and follows its own terminal', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: ['bash', '--norc', '--noprofile', '-i'], cols: 100, rows: 30 });
    await waitForSessionText(server, id, /\$/);
    // Rows of 99 characters: streamed to a 60-column terminal each would wrap onto the next.
    await server.api('POST', `/v1/sessions/${id}/input`, { text: "printf 'L%098d\\n' 0 1 2 3 4\r" });
    await waitForSessionText(server, id, /^L0{97}4$/m);
    const watcher = await AttachedTerminal.start(scope, server, [id, '--read-only'], { cols: 60, rows: 20, waitForPaint: false });
    await waitForWindow(watcher, server, id, { cols: 60, rows: 20 }, () => [0, 0]);
    assert.deepEqual(await sizeOf(server, id), [100, 30], 'read-only never sizes the session');
    watcher.resize(120, 32);
    await waitForWindow(watcher, server, id, { cols: 120, rows: 32 }, () => [0, 0]);
    assert.deepEqual(await sizeOf(server, id), [100, 30]);
    watcher.type('\x1cd');
    await watcher.waitForExit();
  });

  test('TEND_WINDOW_SIZE=smallest: the session takes the smaller terminal, the larger is shown it padded; a wrong value says what is allowed', T, async (t) => {
    const scope = useTestScope(t);
    const refused = startTestServer({ TEND_WINDOW_SIZE: 'biggest' });
    scope.defer(() => refused.dispose());
    const start = await refused.cli(['server', 'start']);
    assert.notEqual(start.code, 0);
    assert.match(start.stderr, /TEND_WINDOW_SIZE must be one of latest, smallest, largest, manual/);

    const server = await serverFor(scope, { TEND_WINDOW_SIZE: 'smallest' });
    const id = await newSession(server, { argv: ['bash', '--norc', '--noprofile', '-i'], cols: 100, rows: 30 });
    await waitForSessionText(server, id, /\$/);
    const big = await AttachedTerminal.start(scope, server, [id], { cols: 100, rows: 30 });
    await big.waitForServerScreen(server, id);
    const small = await AttachedTerminal.start(scope, server, [id], { cols: 70, rows: 20, waitForPaint: false });
    await waitFor(async () => (await sizeOf(server, id)).join('x') === '70x20', { what: 'the session to take the smallest size' });
    await small.waitForServerScreen(server, id);
    big.type('echo typed-in-the-larger\r');
    await waitForSessionText(server, id, /^typed-in-the-larger$/m);
    assert.deepEqual(await sizeOf(server, id), [70, 20], 'typing changes nothing under smallest');
    await waitForWindow(big, server, id, { cols: 100, rows: 30 }, () => [0, 0]);
    small.type('\x1cd');
    await small.waitForExit();
    // The smaller one gone: the larger is the smallest left.
    await waitFor(async () => (await sizeOf(server, id)).join('x') === '100x30', { what: 'the session to grow back' });
    await big.waitForServerScreen(server, id);
    big.type('\x1cd');
    await big.waitForExit();
  });
});
