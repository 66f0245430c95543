// An await at a shell left at its continuation prompt (a line sent before
// it left a quote open) is refused with nothing typed: typed there, its line
// would become part of the unfinished command and the await would wait for
// an end mark that never comes. After C-c the shell takes the next await.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, findShell, withServer, type ControlServer } from './control-server.js';

/** Far longer than the refusal takes; a typed line would leave the await pending this long. */
const AWAIT_TIMEOUT_MS = 20_000;

function awaitPath(target: string): string {
  return `/v1/sessions/${encodeURIComponent(target)}/await`;
}

async function checkContinuation(s: ControlServer, target: string, continuationPrompt: RegExp): Promise<void> {
  const sent = await s.cli(['send', target, 'echo "unclosed', '--enter']);
  assert.equal(sent.code, 0, sent.stderr);
  await waitFor('the continuation prompt', async () => continuationPrompt.test(await s.screen(target)), 30_000);

  const refused = await s.longCall('POST', awaitPath(target), { input: 'echo typed-into-it', timeoutMs: AWAIT_TIMEOUT_MS });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, 'shell_busy');
  assert.equal(refused.body.error.continuation, true);
  assert.match(refused.body.error.message, /waits for the rest of a command/);
  assert.match(refused.body.error.message, /continuation prompt/);
  assert.match(refused.body.error.message, /Nothing was typed/);
  assert.match(refused.body.error.message, new RegExp(`tend send ${target} --keys C-c`));
  const screen = await s.screen(target);
  assert.ok(!screen.includes('typed-into-it'), `nothing was typed: ${screen}`);
  assert.ok(continuationPrompt.test(screen), `still at the continuation prompt: ${screen}`);

  const cancel = await s.cli(['send', target, '--keys', 'C-c']);
  assert.equal(cancel.code, 0, cancel.stderr);
  const next = await s.longCall('POST', awaitPath(target), { input: 'echo after-ctrl-c', timeoutMs: AWAIT_TIMEOUT_MS });
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.deepEqual([next.body.status, next.body.exitCode, next.body.output], ['done', 0, 'after-ctrl-c\n']);
}

describe('await at a continuation prompt', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('bash: refused shell_busy (continuation), nothing typed; after C-c the next await runs', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      await checkContinuation(s, ':b', /unclosed\n> ?\s*$/);
    }));

  const zsh = findShell('zsh');
  test('zsh: the same at its dquote> prompt', { skip: zsh === null ? 'zsh is not installed' : false }, () =>
    withServer(async (s) => {
      await s.newShell([zsh!], { name: 'z' });
      await checkContinuation(s, ':z', /unclosed\ndquote> ?\s*$/);
    }));
});
