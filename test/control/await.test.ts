// `tend await` end to end: a real server, real shells, the real CLI.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, findShell, withServer } from './control-server.js';

describe('tend await', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test("prints the command's output and exits with its status: 0, non-zero, and nothing printed", () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash'], { name: 'b' });
      const ok = await s.cli(['await', ':b', '--', 'echo', 'hello-$((6*7))']);
      assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, 'hello-42\n', '']);
      const failed = await s.cli(['await', id, '--', 'echo oops >&2; exit_with() { return $1; }; exit_with 3']);
      assert.deepEqual([failed.code, failed.stdout], [3, 'oops\n']);
      const quiet = await s.cli(['await', ':b', '--', 'true']);
      assert.deepEqual([quiet.code, quiet.stdout], [0, '']);
      const json = await s.cli(['await', ':b', '--json', '--', "printf 'x\\ny\\n'"]);
      assert.equal(json.code, 0, json.stderr);
      const reply = JSON.parse(json.stdout);
      assert.equal(reply.status, 'done');
      assert.equal(reply.output, 'x\ny\n');
      assert.equal(reply.exitCode, 0);
      assert.equal(reply.command.commandLine, "printf 'x\\ny\\n'");
      assert.equal(reply.command.number, 4);
    }));

  test('a command that outlives --timeout exits 124 with its id, cancels nothing, and is collected later', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const gate = join(s.shellHome, 'go');
      // Ends only when the test creates the gate file: the timeout is certain to pass first.
      const timedOut = await s.cli(['await', ':b', '--timeout', '0.3', '--', `while [ ! -e ${gate} ]; do sleep 0.05; done; echo done-now; exit_with() { return $1; }; exit_with 5`]);
      assert.equal(timedOut.code, 124, timedOut.stderr);
      const awaitId = timedOut.stdout.trim();
      assert.match(awaitId, /^w[0-9a-f]{12}$/);
      assert.match(timedOut.stderr, new RegExp(`nothing was cancelled.*tend await --resume ${awaitId}`));

      const pending = await s.api('GET', `/v1/awaits/${awaitId}`);
      assert.equal(pending.status, 202);
      assert.equal(pending.body.location, `/v1/awaits/${awaitId}`);
      const stillPending = await s.cli(['await', '--resume', awaitId, '--timeout', '0.1']);
      assert.equal(stillPending.code, 124);

      writeFileSync(gate, '');
      const resumed = await s.cli(['await', '--resume', awaitId]);
      assert.deepEqual([resumed.code, resumed.stdout], [5, 'done-now\n']);
      const collected = await s.api('GET', `/v1/awaits/${awaitId}`);
      assert.equal(collected.status, 200, 'the result stays at its location');
      assert.deepEqual([collected.body.exitCode, collected.body.output], [5, 'done-now\n']);
    }));

  test('a command that runs longer than one HTTP wait is followed to its end', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      // 7 s: more than two of the CLI's 3 s calls, and more than Node's 5 s idle-socket limit.
      const slow = await s.cli(['await', ':b', '--', 'sleep 7; echo slow-done']);
      assert.deepEqual([slow.code, slow.stdout], [0, 'slow-done\n']);
    }));

  test('the API answers 202 with a Location on timeout and the result at GET ?waitMs', () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash']);
      const gate = join(s.shellHome, 'go2');
      const started = await s.api('POST', `/v1/sessions/${id}/await`, { input: `until [ -e ${gate} ]; do sleep 0.05; done; echo api-done`, timeoutMs: 0 });
      assert.equal(started.status, 202);
      assert.match(started.body.location, /^\/v1\/awaits\/w[0-9a-f]+$/);
      const waiting = s.longCall('GET', `${started.body.location}?waitMs=60000`);
      writeFileSync(gate, '');
      const done = await waiting;
      assert.equal(done.status, 200);
      assert.deepEqual([done.body.status, done.body.exitCode, done.body.output], ['done', 0, 'api-done\n']);
      assert.equal((await s.api('GET', '/v1/awaits/wnope')).status, 404);
    }));

  test('input over 1024 bytes and multi-line input run as one command each', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const long = await s.cli(['await', ':b', '--', `echo ${'y'.repeat(3000)} | wc -c`]);
      assert.deepEqual([long.code, long.stdout.trim()], [0, '3001']);
      const multi = await s.longCall('POST', '/v1/sessions/%3Ab/await', { input: 'echo one\necho two', timeoutMs: 60_000 });
      assert.deepEqual([multi.status, multi.body.output], [200, 'one\ntwo\n']);
      const list = await s.cli(['commands', ':b', '--json']);
      assert.equal(JSON.parse(list.stdout).length, 2);
    }));

  test('output that scrolled far out before the end mark: printed as a clear note, status kept', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'b' });
      const far = await s.cli(['await', ':b', '--', 'seq 1 3000']);
      assert.equal(far.code, 0);
      assert.equal(far.stdout, '');
      assert.match(far.stderr, /output had already scrolled out of the session's buffer/);
    }, { TEND_SCROLLBACK_ROWS: '200' }));

  test('a session whose shell shows no integration marks is refused with 409 saying how to enable it', () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash', '--norc', '-i']); // not a plain shell invocation: left as it is
      const res = await s.longCall('POST', `/v1/sessions/${id}/await`, { input: 'true', timeoutMs: 1000 });
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'no_shell_integration');
      assert.match(res.body.error.message, /shell integration marks.*tend shell-integration bash/);
      const cli = await s.cli(['await', id, '--', 'true']);
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /^tend: session \w+ has shown no shell integration marks/);
    }));

  test('bad requests: empty input, a bad timeout, unknown targets, bad JSON', () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash']);
      assert.equal((await s.api('POST', `/v1/sessions/${id}/await`, { input: '  ' })).status, 400);
      assert.equal((await s.api('POST', `/v1/sessions/${id}/await`, { input: 'true', timeoutMs: -1 })).status, 400);
      assert.equal((await s.api('POST', `/v1/sessions/${id}/await`, { timeoutMs: 10 })).status, 400);
      const usage = await s.cli(['await', id]);
      assert.equal(usage.code, 2);
      const badTimeout = await s.cli(['await', id, '--timeout', 'soon', '--', 'true']);
      assert.equal(badTimeout.code, 2);
      assert.match(badTimeout.stderr, /--timeout takes seconds/);
      const unknown = await s.cli(['await', ':nope', '--', 'true']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no session is named ":nope"/);
    }));

  for (const shell of ['zsh', 'fish'] as const) {
    const path = findShell(shell);
    test(`${shell}: await returns output and exit status through tend's injected integration`, { skip: path === null ? `${shell} is not installed` : false }, () =>
      withServer(async (s) => {
        const id = await s.newShell([path!], { name: shell });
        const ok = await s.cli(['await', `:${shell}`, '--', 'echo', `in-${shell}`]);
        assert.deepEqual([ok.code, ok.stdout], [0, `in-${shell}\n`]);
        const failed = await s.cli(['await', id, '--', 'false']);
        assert.equal(failed.code, 1);
        const long = await s.cli(['await', id, '--', `echo ${'z'.repeat(2000)} | wc -c`]);
        assert.deepEqual([long.code, long.stdout.trim()], [0, '2001']);
        await waitFor('the commands list', async () => JSON.parse((await s.cli(['commands', id, '--json'])).stdout || '[]').length === 3);
      }));
  }
});
