// A TEND_HOME that cannot be written (a read-only disk, lost permissions)
// stops checkpoints with one clear warning; the server keeps serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, waitFor } from './harness.js';
import { OTHER_USER } from '../support/as-another-user.js';

interface Info { id: string; status: string }

// Root writes through permission bits, so as root the test runs tend as an
// unprivileged user whose TEND_HOME is then taken away from it.
const asUser = process.getuid?.() === 0 ? OTHER_USER : undefined;

function makeReadOnly(dir: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) makeReadOnly(p);
    else {
      if (asUser) chownSync(p, 0, 0);
      chmodSync(p, 0o444);
    }
  }
  if (asUser) chownSync(dir, 0, 0);
  chmodSync(dir, 0o555);
}

test('with TEND_HOME read-only the server still serves its sessions and warns once', { timeout: 120_000 }, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '100' }, { asUser });
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'ro', '--', 'sh'])).stdout) as Info;
    await t.holderPids();
    await t.cli(['send', ':ro', '--enter', 'echo', 'one-$((1*1))']);
    await waitFor('output', async () => (await t.cli(['screen', ':ro'])).stdout.includes('one-1'));
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    makeReadOnly(t.home);

    const ls = await t.cli(['ls', '--json']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.equal((JSON.parse(ls.stdout) as Info[])[0]!.id, s.id);
    for (let i = 0; i < 3; i++) {
      await t.cli(['send', ':ro', '--enter', 'echo', `more-$((${i}+10))`]);
      await waitFor('output', async () => (await t.cli(['screen', ':ro'])).stdout.includes(`more-${i + 10}`));
    }
    // The output above asked for checkpoints; they failed and were switched off, once, with a reason.
    const health = await waitFor('checkpoints switched off', async () => {
      const h = JSON.parse((await t.cli(['server', 'status', '--json'])).stdout);
      return h.checkpoints?.state === 'disabled' ? h : null;
    });
    assert.equal(health.storeReadOnly, true);
    assert.equal(health.checkpoints.code, 'EACCES');
    assert.ok(health.checkpoints.reason.length > 0);
    const created = await t.cli(['new', '--', 'sh']);
    assert.notEqual(created.code, 0);
    assert.match(created.stderr, /read-only/);
  } finally {
    chmodSync(t.home, 0o755);
    await t.dispose();
  }
});
