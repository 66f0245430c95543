// Recovery is exact: whenever the server dies, the next one's screen equals a
// reference terminal fed the program's bytes up to the offset it covers, and
// at the end every byte has been seen once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { killAndRestart, startTestServer, waitFor, repoRoot } from './harness.js';
import { diffAgainstReference } from './reference.js';

const writer = join(repoRoot, 'dist', 'test', 'fixtures', 'programs', 'varied-writer.js');
const SCROLLBACK_ROWS = 2000;
const KILLS = 20;

test('after SIGKILLs at 20 moments, mid-checkpoint included, every recovered screen equals the reference', { timeout: 600_000 }, async () => {
  // Checkpoints every few hundred ms, so kills land before, during and after them.
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '150', TEND_CHECKPOINT_MAX_MS: '400', TEND_SCROLLBACK_ROWS: String(SCROLLBACK_ROWS) });
  try {
    const out = join(t.home, 'stream.bin');
    const created = await t.cli(['new', '--json', '--name', 'w', '--size', '80x24', '--',
      'sh', '-c', `stty -opost -echo && exec "${process.execPath}" "${writer}" "${out}" 7 2500`]);
    assert.equal(created.code, 0, created.stderr);
    await t.holderPids();

    let lastOffset = 0;
    for (let k = 0; k < KILLS; k++) {
      // Kill at a moment set by progress, not by a clock: each time some more output has arrived.
      const target = lastOffset + 2000 + ((k * 7919) % 20000);
      await waitFor(`offset past ${target}`, async () => {
        const s = await t.api<{ offset: number; status: string }>('GET', '/v1/sessions/:w');
        return s.status === 200 && (s.body.offset >= target || s.body.status !== 'running');
      }, 60_000, 5);
      await killAndRestart(t);
      const { diffs, offset } = await diffAgainstReference(t, ':w', out, SCROLLBACK_ROWS);
      assert.deepEqual(diffs, [], `after kill ${k + 1} at offset ${offset}`);
      lastOffset = offset;
    }

    const done = await waitFor('the writer to finish', async () => {
      const s = await t.api<{ status: string; exitCode: number | null; offset: number }>('GET', '/v1/sessions/:w');
      return s.status === 200 && s.body.status === 'exited' ? s.body : null;
    }, 180_000);
    assert.equal(done.exitCode, 0);
    assert.equal(done.offset, statSync(out).size, 'every byte the program wrote was seen exactly once');
    const { diffs } = await diffAgainstReference(t, ':w', out, SCROLLBACK_ROWS);
    assert.deepEqual(diffs, []);
  } finally {
    await t.dispose();
  }
});
