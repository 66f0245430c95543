// An environment a program cannot be given as asked (a name with "=", an
// empty name, a NUL) is refused with a 400 that says why, before anything
// starts; the CLI refuses its own --env the same way without asking the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor } from './harness.js';

const TEST_TIMEOUT_MS = 60_000;

test('POST /v1/sessions refuses env names with "=", empty names and NULs, and starts nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
  const s = startTestServer();
  try {
    assert.equal((await s.cli(['server', 'start'])).code, 0);
    const base = { argv: ['sh', '-c', 'sleep 600'], cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } };
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'GREETING=hi': 'there' }, /name that contains "="/],
      [{ '': 'nameless' }, /name that is empty/],
      [{ 'A\u0000B': 'x' }, /name that contains a NUL/],
      [{ GREETING: 'hi\u0000there' }, /"env\.GREETING" contains a NUL/],
    ];
    for (const [extra, said] of cases) {
      const res = await s.api<any>('POST', '/v1/sessions', { ...base, env: { ...base.env, ...extra } });
      assert.equal(res.status, 400, JSON.stringify(extra));
      assert.equal(res.body.error.code, 'bad_request');
      assert.match(res.body.error.message, said);
    }
    assert.deepEqual((await s.api<unknown[]>('GET', '/v1/sessions')).body, []);
  } finally {
    await s.dispose();
  }
});

test('tend new --env refuses a nameless variable itself, and gives NAME=VALUE as written', { timeout: TEST_TIMEOUT_MS }, async () => {
  const s = startTestServer();
  try {
    for (const bad of ['=nameless', 'NOEQUALS']) {
      const r = await s.cli(['new', '--env', bad, '--', 'sh']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^tend: --env .*NAME=VALUE/);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1);
    }
    assert.equal(s.serverPid(), null, 'the CLI refused before starting a server');

    // The name ends at the first "=": the value keeps the rest.
    const r = await s.cli(['new', '--name', 'env', '-e', 'GREETING=hi=there', '--env', 'OTHER=', '--', 'sh', '-c', 'echo "[$GREETING|${OTHER-unset}]"; sleep 600']);
    assert.equal(r.code, 0, r.stderr);
    await s.holderPids();
    await waitFor('the variables on the screen', async () => (await s.cli(['screen', ':env'])).stdout.includes('[hi=there|]'));
  } finally {
    await s.dispose();
  }
});
