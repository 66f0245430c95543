// The less common ways a server meets its sessions again: a holder leased to
// another controller, a damaged checkpoint, and a full-screen program.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HolderConnection } from '../../src/holder-client/index.js';
import { startTestServer, waitFor, repoRoot, isAlive } from './harness.js';
import { serverScreen } from './reference.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

/** A session these tests started: its program and holder have pids. */
type Info = SessionInfo & { pid: number; holderPid: number };
const tui = join(repoRoot, 'dist', 'test', 'fixtures', 'programs', 'tui.js');

test('a holder another controller holds is left alone (DENIED) and its record kept', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  let other: HolderConnection | null = null;
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'd', '--', 'sh'])).stdout) as Info;
    await t.holderPids();
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    const socket = join(t.env.TEND_RUNTIME_DIR!, 'h', `${s.id}.sock`);
    other = await HolderConnection.connect(socket);
    assert.equal(await other.acquire(), 'acquired');
    const ls = JSON.parse((await t.cli(['ls', '--json'])).stdout) as Info[];
    assert.equal(ls[0]!.status, 'elsewhere');
    const send = await t.cli(['send', ':d', 'x']);
    assert.equal(send.code, 1);
    assert.match(send.stderr, /another tend server/);
    assert.ok(isAlive(s.holderPid));
    // Once the other controller lets go, the next server takes the session back.
    other.dispose();
    other = null;
    assert.equal((await t.cli(['server', 'restart'])).code, 0);
    const again = JSON.parse((await t.cli(['ls', '--json'])).stdout) as Info[];
    assert.equal(again[0]!.status, 'running');
  } finally {
    other?.dispose();
    await t.dispose();
  }
});

test('a corrupt checkpoint is set aside and the screen rebuilt from the holder ring', { timeout: 120_000 }, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '100' });
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'k', '--', 'sh'])).stdout) as Info;
    await t.holderPids();
    await t.cli(['send', ':k', '--enter', 'echo', 'ring-$((5*5))']);
    await waitFor('output', async () => (await t.cli(['screen', ':k'])).stdout.includes('ring-25'));
    const before = (await t.cli(['screen', ':k'])).stdout;
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    const dir = join(t.home, 'checkpoints');
    const file = join(dir, `${s.id}.ckpt`);
    const bytes = readFileSync(file);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff; // one flipped byte inside the screen
    writeFileSync(file, bytes);
    const after = (await t.cli(['screen', ':k'])).stdout;
    assert.equal(after, before);
    assert.ok(readdirSync(dir).some((f) => f.startsWith(`${s.id}.ckpt.corrupt`)), 'the bad file is kept for inspection');
    const log = readFileSync(join(t.home, 'logs', 'server.log'), 'utf8');
    assert.match(log, /checkpoint corrupt/);
  } finally {
    await t.dispose();
  }
});

test('output that overran the holder ring while no server read it is reported once as lost, and the session goes on', { timeout: 120_000 }, async () => {
  const t = startTestServer({ TEND_RING_BYTES: String(64 * 1024) });
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'r', '--', 'sh'])).stdout) as Info;
    await t.holderPids();
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    // With no server the holder keeps reading into its ring: 300 kB overruns 64 KiB.
    const writer = await HolderConnection.connect(join(t.env.TEND_RUNTIME_DIR!, 'h', `${s.id}.sock`));
    try {
      assert.equal(await writer.acquire(), 'acquired');
      writer.input('i=0; while [ $i -lt 3000 ]; do echo "overrun line $i ..........................................................................................."; i=$((i+1)); done; echo overrun-$((4*4))\r');
      await waitFor('the ring to overrun', async () => (await writer.state()).offset > 300_000);
      writer.release();
    } finally {
      writer.dispose();
    }
    await waitFor('the output after the gap', async () => (await t.cli(['screen', ':r'])).stdout.includes('overrun-16'));
    const log = readFileSync(join(t.home, 'logs', 'server.log'), 'utf8');
    assert.match(log, new RegExp(`session ${s.id}: bytes \\d+\\.\\.\\d+ left the holder's ring`));
    assert.doesNotMatch(log, /stream jumped/, 'a gap the holder reported is not a jump');
    assert.equal((await t.cli(['send', ':r', '--enter', 'echo', 'after-$((3*3))'])).code, 0);
    await waitFor('the session goes on', async () => (await t.cli(['screen', ':r'])).stdout.includes('after-9'));
  } finally {
    await t.dispose();
  }
});

test('a full-screen program comes back as it was after a server SIGKILL, and is asked to redraw', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const s = JSON.parse((await t.cli(['new', '--json', '--name', 'tui', '--size', '100x30', '--', process.execPath, tui])).stdout) as Info;
    await t.holderPids();
    await waitFor('tui drawn', async () => (await t.cli(['screen', ':tui'])).stdout.includes('redraws=0'));
    const before = (await t.cli(['screen', ':tui', '--ansi'])).stdout;
    const pid = t.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await waitFor('server gone', () => !isAlive(pid));
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    assert.equal((await serverScreen(t, ':tui', 0)).status, 'running');
    // The program repaints only its status line on a same-size redraw: the
    // rest of the screen, colours included, is the server's restore.
    await waitFor('the program redrew', async () => (await t.cli(['screen', ':tui'])).stdout.includes('redraws=1'));
    const after = (await t.cli(['screen', ':tui', '--ansi'])).stdout;
    assert.equal(after, before.replace('redraws=0', 'redraws=1'));
    assert.ok(isAlive(s.pid));
  } finally {
    await t.dispose();
  }
});
