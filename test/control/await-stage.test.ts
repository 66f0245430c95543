// await's `stage`: a short one-line input run from a script the shell
// sources, as long input always is. Quotes then reach the shell as written,
// and a line that does not parse ends as one failed command instead of
// leaving the shell at a continuation prompt, where every later await would
// wait for an end mark that never comes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTROL_TEST_TIMEOUT_MS, findShell, withServer, type ControlServer } from './control-server.js';

/** Long enough for any shell here to run `echo`; far shorter than the test. */
const AWAIT_TIMEOUT_MS = 30_000;
const NESTED_QUOTES = `echo "it's \\"nested\\" 'twice' \\$HOME" 'and "single"'`;
const NESTED_OUTPUT = `it's "nested" 'twice' $HOME and "single"\n`;
const UNBALANCED = `echo 'never closed`;

function awaitPath(target: string): string {
  return `/v1/sessions/${encodeURIComponent(target)}/await`;
}

async function staged(s: ControlServer, target: string, input: string): Promise<{ status: number; body: any }> {
  return s.longCall('POST', awaitPath(target), { input, stage: true, timeoutMs: AWAIT_TIMEOUT_MS });
}

/** The nested quotes run with their exact output; the unbalanced quote fails as one command; the shell then takes the next await. */
async function checkStaging(s: ControlServer, target: string): Promise<void> {
  const nested = await staged(s, target, NESTED_QUOTES);
  assert.equal(nested.status, 200, JSON.stringify(nested.body));
  assert.deepEqual([nested.body.status, nested.body.exitCode, nested.body.output], ['done', 0, NESTED_OUTPUT]);

  const broken = await staged(s, target, UNBALANCED);
  assert.equal(broken.status, 200, `the unbalanced quote did not end as a command: ${JSON.stringify(broken.body)}`);
  assert.equal(broken.body.status, 'done');
  assert.notEqual(broken.body.exitCode, 0, 'a syntax error is a failed command');
  // The shell's message may quote the line; the echo's own output would be a line of its own.
  assert.ok(!broken.body.output.split('\n').includes('never closed'), `the echo never ran: ${broken.body.output}`);
  assert.notEqual(broken.body.output, '', 'the shell said why');

  // Not left at a continuation prompt: the next await (typed, not staged) runs at once.
  const next = await s.longCall('POST', awaitPath(target), { input: 'echo after-staging', timeoutMs: AWAIT_TIMEOUT_MS });
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.deepEqual([next.body.exitCode, next.body.output], [0, 'after-staging\n']);
}

describe('await with stage', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('bash: quotes as written, an unbalanced quote one failed command, the shell still at its prompt', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      await checkStaging(s, ':b');
    }));

  test('stage must be a boolean; false types the line as before', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const wrong = await s.longCall('POST', awaitPath(':b'), { input: 'true', stage: 'yes' });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error.code, 'bad_request');
      assert.match(wrong.body.error.message, /"stage" must be true or false/);
      const typed = await s.longCall('POST', awaitPath(':b'), { input: 'echo typed', stage: false, timeoutMs: AWAIT_TIMEOUT_MS });
      assert.deepEqual([typed.status, typed.body.output, typed.body.command.commandLine], [200, 'typed\n', 'echo typed']);
    }));

  for (const shell of ['zsh', 'fish'] as const) {
    const path = findShell(shell);
    test(`${shell}: the same`, { skip: path === null ? `${shell} is not installed` : false }, () =>
      withServer(async (s) => {
        await s.newShell([path!], { name: shell });
        await checkStaging(s, `:${shell}`);
      }));
  }
});
