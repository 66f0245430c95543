// A program killed by a signal is reported as such everywhere — the API
// (exitCode null, exitSignal set), `tend ls`, `tend screen`, the end of a
// `tend attach` — and never as "exited with code -1", before and after a
// restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor, type TestServer } from './harness.js';
import { launcherCommand } from '../attach/attach-harness.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

type Info = SessionInfo;

// `tend` as a user types it: bin/tend, the native viewer for attach.
const tendCommand = launcherCommand;

async function info(t: TestServer, target: string): Promise<Info> {
  const r = await t.api<Info>('GET', `/v1/sessions/${encodeURIComponent(target)}`);
  assert.equal(r.status, 200);
  return r.body;
}

async function screenText(t: TestServer, target: string): Promise<string> {
  const r = await t.cli(['screen', target]);
  return r.code === 0 ? r.stdout : '';
}

async function expectKilledEverywhere(t: TestServer): Promise<void> {
  const s = await info(t, ':victim');
  assert.equal(s.status, 'exited');
  assert.equal(s.exitCode, null, 'a signal death has no exit code');
  assert.equal(s.exitSignal, 9);
  const listed = (JSON.parse((await t.cli(['ls', '--json'])).stdout) as Info[]).find((x) => x.name === 'victim')!;
  assert.deepEqual([listed.exitCode, listed.exitSignal], [null, 9]);
  const table = (await t.cli(['ls'])).stdout;
  assert.match(table, /victim\s+killed \(SIGKILL\)/);
  assert.doesNotMatch(table, /-1/);
  const screen = await t.cli(['screen', ':victim']);
  assert.equal(screen.code, 0, screen.stderr);
  assert.match(screen.stderr, /the program in :victim was killed by signal 9 \(SIGKILL\)/);
  const json = JSON.parse((await t.cli(['screen', ':victim', '--json'])).stdout) as Info;
  assert.deepEqual([json.exitCode, json.exitSignal], [null, 9]);
}

test('a SIGKILLed program reads as killed by signal 9 (SIGKILL) in the API, ls, screen and an attach, also after a restart', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const victim = await t.cli(['new', '--json', '--name', 'victim', '--size', '80x24', '--', 'sleep', '100000']);
    assert.equal(victim.code, 0, victim.stderr);
    const { id } = JSON.parse(victim.stdout) as Info;
    // A real `tend attach :victim` in a real terminal: another session's.
    assert.equal((await t.cli(['new', '--name', 'viewer', '--size', '160x30', '--', 'sh'])).code, 0);
    await t.holderPids();
    assert.equal((await t.cli(['send', ':viewer', '--enter', `${tendCommand} attach :victim; echo attach-ended-$((40+2))`])).code, 0);
    await waitFor('the attach to join', async () => (await info(t, ':victim')).status === 'running' &&
      (await t.api<{ viewers: number }>('GET', '/v1/sessions/:victim')).body.viewers === 1);

    const sent = await t.api('POST', '/v1/sessions/:victim/signal', { signal: 'KILL' });
    assert.equal(sent.status, 200);
    await waitFor('the victim to be reported exited', async () => (await info(t, ':victim')).status === 'exited');
    await waitFor('the attach to say how it ended', async () => (await screenText(t, ':viewer')).includes('attach-ended-42'));
    const viewerScreen = await screenText(t, ':viewer');
    assert.match(viewerScreen, new RegExp(`\\[session :victim \\(${id}\\) was killed by signal 9 \\(SIGKILL\\)\\]`));
    assert.doesNotMatch(viewerScreen, /code -1/);
    // Attaching to it now says how it ended instead.
    assert.equal((await t.cli(['send', ':viewer', '--enter', `${tendCommand} attach :victim; echo second-attach-$((40+3))`])).code, 0);
    await waitFor('the second attach to give up', async () => (await screenText(t, ':viewer')).includes('second-attach-43'));
    assert.match(await screenText(t, ':viewer'), new RegExp(`tend: session :victim \\(${id}\\) was killed by signal 9 \\(SIGKILL\\); \`tend screen :victim\` shows its last screen`));
    await expectKilledEverywhere(t);

    // The store keeps it the same way.
    assert.equal((await t.cli(['server', 'restart'])).code, 0);
    await expectKilledEverywhere(t);
  } finally {
    await t.dispose();
  }
});

test('a program that exits by itself still reads with its code', { timeout: 60_000 }, async () => {
  const t = startTestServer();
  try {
    assert.equal((await t.cli(['new', '--name', 'three', '--', 'sh', '-c', 'exit 3'])).code, 0);
    await t.holderPids();
    const s = await waitFor('the exit', async () => {
      const x = await info(t, ':three');
      return x.status === 'exited' ? x : null;
    });
    assert.deepEqual([s.exitCode, s.exitSignal], [3, null]);
    assert.match((await t.cli(['ls'])).stdout, /three\s+exited \(3\)/);
    assert.match((await t.cli(['screen', ':three'])).stderr, /the program in :three exited with code 3/);
  } finally {
    await t.dispose();
  }
});
