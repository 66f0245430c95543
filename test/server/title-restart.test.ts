// The title a program set (OSC 2) is the session's until the program changes
// it: a restarted server, graceful or after a SIGKILL, reports it on every
// surface (the API, `tend ls --json`, `tend screen --json`), not "".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { killAndRestart, startTestServer, waitFor, type TestServer } from './harness.js';

const TITLE = 'build-watch · 3 jobs';

async function titles(t: TestServer, target: string): Promise<{ api: string; ls: string; screen: string }> {
  const api = await t.api<{ title: string }>('GET', `/v1/sessions/${encodeURIComponent(target)}`);
  assert.equal(api.status, 200);
  const ls = await t.cli(['ls', '--json']);
  assert.equal(ls.code, 0, ls.stderr);
  const screen = await t.cli(['screen', target, '--json']);
  assert.equal(screen.code, 0, screen.stderr);
  const listed = (JSON.parse(ls.stdout) as Array<{ name: string; title: string }>).find((s) => `:${s.name}` === target);
  return { api: api.body.title, ls: listed?.title ?? '(not listed)', screen: (JSON.parse(screen.stdout) as { title: string }).title };
}

/** Starts a shell that sets TITLE, and waits until a checkpoint holds it (so a restart restores it rather than replaying it). */
async function sessionWithTitle(t: TestServer, name: string): Promise<void> {
  const created = await t.cli(['new', '--json', '--name', name, '--size', '80x24', '--', 'sh']);
  assert.equal(created.code, 0, created.stderr);
  const { id } = JSON.parse(created.stdout) as { id: string };
  await t.holderPids();
  assert.equal((await t.cli(['send', `:${name}`, '--enter', `printf '\\033]2;%s\\007' '${TITLE}'`])).code, 0);
  await waitFor('the title to be set', async () => (await t.api<{ title: string }>('GET', `/v1/sessions/:${name}`)).body.title === TITLE);
  const checkpoint = join(t.home, 'checkpoints', `${id}.ckpt`);
  await waitFor('a checkpoint that holds the title', () => existsSync(checkpoint) && readFileSync(checkpoint).includes(Buffer.from(TITLE)));
}

test('the title survives a graceful server restart on every surface', { timeout: 120_000 }, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '100' });
  try {
    await sessionWithTitle(t, 'tt');
    assert.deepEqual(await titles(t, ':tt'), { api: TITLE, ls: TITLE, screen: TITLE });
    const restarted = await t.cli(['server', 'restart']);
    assert.equal(restarted.code, 0, restarted.stderr);
    assert.deepEqual(await titles(t, ':tt'), { api: TITLE, ls: TITLE, screen: TITLE });
    // and a second restart: the first restarted server's checkpoints must not have saved "" over it
    assert.equal((await t.cli(['send', ':tt', '--enter', 'echo more'])).code, 0);
    await waitFor('output after the restart', async () => (await t.cli(['screen', ':tt'])).stdout.includes('\nmore'));
    assert.equal((await t.cli(['server', 'restart'])).code, 0);
    assert.deepEqual(await titles(t, ':tt'), { api: TITLE, ls: TITLE, screen: TITLE });
  } finally {
    await t.dispose();
  }
});

test('the title survives a SIGKILLed server on every surface', { timeout: 120_000 }, async () => {
  const t = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '100' });
  try {
    await sessionWithTitle(t, 'tk');
    await killAndRestart(t);
    assert.deepEqual(await titles(t, ':tk'), { api: TITLE, ls: TITLE, screen: TITLE });
  } finally {
    await t.dispose();
  }
});
