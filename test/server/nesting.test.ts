// Every program tend starts knows its session (TEND_SESSION), and `tend attach`
// typed inside a session refuses to show that same session in itself (it
// would echo its own screen back without end), as tmux refuses nesting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor, type TestServer } from './harness.js';
import { launcherCommand } from '../attach/attach-harness.js';

// `tend` as a user types it: bin/tend, the native viewer for attach.
const tendCommand = launcherCommand;
/** Far more than the shell's prompt, the typed command and one error line; a flood passes it in milliseconds. */
const QUIET_OUTPUT_BYTES = 4096;

async function screenText(t: TestServer, target: string): Promise<string> {
  const r = await t.cli(['screen', target, '--scrollback', '200']);
  return r.code === 0 ? r.stdout : '';
}

async function offsetOf(t: TestServer, target: string): Promise<number> {
  return (await t.api<{ offset: number }>('GET', `/v1/sessions/${encodeURIComponent(target)}`)).body.offset;
}

test('a session knows its id as TEND_SESSION, and tend attach inside it refuses to attach it to itself with one line', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const created = await t.cli(['new', '--json', '--name', 'self', '--size', '200x30', '--', 'sh']);
    assert.equal(created.code, 0, created.stderr);
    const { id } = JSON.parse(created.stdout) as { id: string };
    await t.holderPids();
    assert.equal((await t.cli(['send', ':self', '--enter', 'echo "in-session=$TEND_SESSION"'])).code, 0);
    await waitFor('the shell to print its session', async () => (await screenText(t, ':self')).includes(`in-session=${id}`));

    const targets = [':self', id];
    for (const [i, target] of targets.entries()) {
      const before = await offsetOf(t, ':self');
      assert.equal((await t.cli(['send', ':self', '--enter', `${tendCommand} attach ${target}; echo "attach-$((${i}+100))-exit-$?"`])).code, 0);
      await waitFor(`the attach of ${target} to give up`, async () => (await screenText(t, ':self')).includes(`attach-${i + 100}-exit-1`), 30_000);
      const text = await screenText(t, ':self');
      assert.match(text, new RegExp(`tend: refusing to attach session :self \\(${id}\\) to itself: this terminal is that session; attach it from another terminal`));
      assert.equal(text.match(/tend: refusing to attach/g)?.length, i + 1, 'said once per attempt');
      assert.ok(await offsetOf(t, ':self') - before < QUIET_OUTPUT_BYTES, 'nothing flooded');
      assert.equal((await t.api<{ viewers: number }>('GET', '/v1/sessions/:self')).body.viewers, 0, 'no viewer joined');
    }
  } finally {
    await t.dispose();
  }
});
