// When a holder is gone the session is cold: its last screen stays, marked as
// restored, and revive starts a new shell below it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor, isAlive } from './harness.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

/** A session these tests started: its program and holder have pids. */
type Info = SessionInfo & { pid: number; holderPid: number };

test('a holder killed under a running server makes its session cold; revive starts a new shell there', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'c', '--', 'sh'])).stdout) as Info;
    await t.holderPids();
    await t.cli(['send', ':c', '--enter', 'echo', 'before-$((1+1))']);
    await waitFor('output', async () => (await t.cli(['screen', ':c'])).stdout.includes('before-2'));
    process.kill(s.holderPid, 'SIGKILL');
    await waitFor('cold', async () => JSON.parse((await t.cli(['ls', '--json'])).stdout)[0].status === 'cold');
    const screen = (await t.cli(['screen', ':c'])).stdout;
    assert.match(screen, /before-2/);
    assert.match(screen, /session restored/);
    // The banner fits an 80-column session: it ends with its closing rule on the row it starts on.
    assert.match(screen, /^── session restored: its process is gone · `tend revive` starts a shell here ──$/m);
    const send = await t.cli(['send', ':c', 'x']);
    assert.equal(send.code, 1);
    assert.match(send.stderr, /cold/);
    const revived = await t.cli(['revive', ':c', '--json']);
    assert.equal(revived.code, 0, revived.stderr);
    const after = JSON.parse(revived.stdout) as Info;
    assert.equal(after.status, 'running');
    await t.holderPids();
    await t.cli(['send', ':c', '--enter', 'echo', 'after-$((2+2))']);
    await waitFor('new shell output', async () => (await t.cli(['screen', ':c', '--scrollback', '100'])).stdout.includes('after-4'));
    const full = (await t.cli(['screen', ':c', '--scrollback', '100'])).stdout;
    assert.ok(full.indexOf('before-2') < full.indexOf('session restored'), 'old screen above the separator');
    assert.ok(isAlive(after.holderPid));
  } finally {
    await t.dispose();
  }
});

test('a session whose holder died while no server ran comes back cold with its checkpointed screen', { timeout: 120_000 }, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '100' });
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'c2', '--', 'sh'])).stdout) as Info;
    await t.holderPids();
    await t.cli(['send', ':c2', '--enter', 'echo', 'kept-$((3*3))']);
    await waitFor('output', async () => (await t.cli(['screen', ':c2'])).stdout.includes('kept-9'));
    assert.equal((await t.cli(['server', 'stop'])).code, 0); // writes a final checkpoint
    process.kill(s.holderPid, 'SIGKILL');
    await waitFor('holder gone', () => !isAlive(s.holderPid));
    const ls = JSON.parse((await t.cli(['ls', '--json'])).stdout) as Info[];
    assert.equal(ls[0]!.status, 'cold');
    const screen = (await t.cli(['screen', ':c2'])).stdout;
    assert.match(screen, /kept-9/);
    assert.match(screen, /session restored/);
  } finally {
    await t.dispose();
  }
});
