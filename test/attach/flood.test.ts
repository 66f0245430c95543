// tend attach through a flood far faster than the server parses: the viewer
// falls behind, gets fresh snapshots (cut where the screen has parsed, which
// lags the output log by the parse queue) and reaches the end still attached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, newSession, serverFor } from './attach-harness.js';

test('tend attach stays attached through a 24 MB flood and shows its end', { timeout: ATTACH_TEST_TIMEOUT_MS * 2 }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const dir = scope.tempDir('tend-flood-');
  const file = join(dir, 'flood.bin');
  let block = '';
  for (let i = 0; i < 2000; i++) block += `\x1b[3${i % 8}mline ${i} of a long flood of coloured log text ${'x'.repeat(i % 40)}\x1b[0m\r\n`;
  const copies = Math.ceil((24 * 1024 * 1024) / Buffer.byteLength(block));
  writeFileSync(file, block.repeat(copies));
  const fifo = join(dir, 'go');
  execFileSync('mkfifo', [fifo]);
  const id = await newSession(server, {
    argv: ['sh', '-c', 'stty -opost; read go < "$0"; cat "$1"; printf "\\r\\nflood-done\\r\\n"; exec cat', fifo, file],
  });
  const attached = await AttachedTerminal.start(scope, server, [id]);
  writeFileSync(fifo, 'go\n');
  await attached.waitForOutput('the end of the flood', /flood-done/, 180_000);
  assert.equal(attached.exit, null, 'still attached');
  assert.doesNotMatch(attached.output, /closed this viewer/);
  await waitFor(() => attached.settled && attached.screen.includes('flood-done'), { what: 'the outer screen to show the end', timeoutMs: 60_000 });
});
