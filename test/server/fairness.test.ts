// Fair parsing: twenty sessions flooding output do not starve a shell in
// another session — it still echoes typed input and `tend await` still
// returns its command's result. Correctness is asserted, not time (the bench
// times it: server-loop).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, waitFor } from './harness.js';

const FLOODS = 20;

test('with 20 sessions flooding, a shell in another session echoes and await returns', { timeout: 300_000 }, async () => {
  const t = startTestServer();
  try {
    // A screenful of coloured full-screen redraws, repeated forever by each flood.
    const frame = join(t.home, 'frame.bin');
    let redraw = '';
    for (let i = 0; i < 200; i++) {
      redraw += '\x1b[H';
      for (let row = 0; row < 24; row++) redraw += `\x1b[3${(row + i) % 8}m${`frame ${i} row ${row} `.padEnd(79, '#')}\r\n`;
    }
    writeFileSync(frame, redraw);
    const floods: string[] = [];
    for (let i = 0; i < FLOODS; i++) {
      const r = await t.cli(['new', '--json', '--', 'sh', '-c', 'while :; do cat "$0"; done', frame]);
      assert.equal(r.code, 0, r.stderr);
      floods.push((JSON.parse(r.stdout) as { id: string }).id);
    }
    // Every flood is running and parsing.
    await waitFor('every flood to be flowing', async () => {
      const list = await t.api<Array<{ id: string; offset: number }>>('GET', '/v1/sessions');
      return list.status === 200 && floods.every((id) => (list.body.find((s) => s.id === id)?.offset ?? 0) > 1_000_000);
    }, 120_000);

    const shell = await t.cli(['new', '--json', '--name', 'quiet', '--', 'bash']);
    assert.equal(shell.code, 0, shell.stderr);
    // The shell's start is not what is measured: on a machine this loaded bash can take longer to draw
    // its first prompt than await waits for a new shell's first integration marks (4 s).
    await waitFor('the quiet shell to show its prompt', async () => {
      const s = await t.api<{ text: string }>('GET', '/v1/sessions/:quiet/screen');
      return s.status === 200 && /[$#] *$/m.test(s.body.text);
    }, 120_000);
    const done = await t.cli(['await', ':quiet', '--json', '--timeout', '120', '--', 'echo fair-$((6*7))'], { timeoutMs: 150_000 });
    assert.equal(done.code, 0, done.stderr);
    const result = JSON.parse(done.stdout) as { exitCode: number; output: string };
    assert.equal(result.exitCode, 0);
    assert.equal(result.output, 'fair-42\n');

    // Typed input echoes while the floods go on.
    const sent = await t.cli(['send', ':quiet', 'echo typed-while-flooding']);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor('the typed text to echo', async () => {
      const s = await t.api<{ text: string }>('GET', '/v1/sessions/:quiet/screen');
      return s.status === 200 && s.body.text.includes('echo typed-while-flooding');
    }, 120_000);
    const list = await t.api<Array<{ id: string; status: string; offset: number }>>('GET', '/v1/sessions');
    assert.ok(floods.every((id) => list.body.find((s) => s.id === id)?.status === 'running'), 'the floods run on');
  } finally {
    await t.dispose();
  }
});
