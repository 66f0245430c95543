// Two `tend attach` of one vim in terminals of different sizes across a
// server SIGKILL, and the size handed over when the latest viewer leaves
// (found using tend inside tmux): the typing viewer's terminal streams the
// session, the other is shown its window of it; both come back after the
// crash as they were; when the typing one detaches, the one left takes the
// size and turns from views back to the stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, newSession, serverFor, serverScreen, waitForSessionText } from './attach-harness.js';
import { sizeOf, waitForWindow } from './window-check.js';

test('viewers of two sizes ride through a server SIGKILL, and the one left takes the size when the typing one detaches', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const file = join(server.home, 'numbered.txt');
  writeFileSync(file, Array.from({ length: 80 }, (_, i) => `line ${String(i + 1).padStart(2, '0')}`).join('\n') + '\n');
  const id = await newSession(server, { argv: ['vim', '-u', 'NONE', '-N', '-n', file], cols: 100, rows: 30 });
  await waitForSessionText(server, id, /^line 01$/m);

  const big = await AttachedTerminal.start(scope, server, [id], { cols: 100, rows: 30 });
  await big.waitForServerScreen(server, id);
  const small = await AttachedTerminal.start(scope, server, [id], { cols: 80, rows: 24, waitForPaint: false });
  // The smaller one types: the session takes its size, the larger is shown it padded.
  small.type('40G');
  await waitFor(async () => (await sizeOf(server, id)).join('x') === '80x24', { what: 'the session to take the typing viewer\'s size' });
  await waitForSessionText(server, id, /^line 40$/m);
  await small.waitForServerScreen(server, id);
  await waitForWindow(big, server, id, { cols: 100, rows: 30 }, () => [0, 0]);

  // The server dies; the attaches start another and come back as they were: whichever reconnects
  // first does not resize the session under the other.
  const before = await serverScreen(server, id);
  const pid = server.serverPid()!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => { const now = server.serverPid(); return now !== null && now !== pid; }, { what: 'an attach to start a server', timeoutMs: 60_000 });
  await small.waitForServerScreen(server, id);
  await waitForWindow(big, server, id, { cols: 100, rows: 30 }, () => [0, 0]);
  assert.deepEqual(await sizeOf(server, id), [80, 24], 'the size survives the crash');
  small.type('5j');
  // Judged by the line under the cursor, not its row: at the window's last row vim scrolls instead.
  assert.equal(before.text.split('\n')[before.cursor.y], 'line 40');
  await waitFor(async () => { const now = await serverScreen(server, id); return now.text.split('\n')[now.cursor.y] === 'line 45'; }, { what: 'the keys typed after the crash to move vim' });
  await small.waitForServerScreen(server, id);
  await waitForWindow(big, server, id, { cols: 100, rows: 30 }, () => [0, 0]);

  // The typing viewer leaves: the one left takes the size and is streamed the session again.
  small.type('\x1cd');
  await small.waitForExit();
  await waitFor(async () => (await sizeOf(server, id)).join('x') === '100x30', { what: 'the viewer left to take the size' });
  await big.waitForServerScreen(server, id);
  big.type('\x1cd');
  await big.waitForExit();
});
