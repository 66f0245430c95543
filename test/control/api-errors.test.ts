// The control plane's bad inputs end to end: targets, bodies, routes, and
// the verbs that print shell integration and reach the server over 127.0.0.1.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CONTROL_TEST_TIMEOUT_MS, type ControlServer, startControlServer, withServer } from './control-server.js';

/** One raw request on the server's unix socket, body bytes as given. */
function rawCall(s: ControlServer, method: string, path: string, body?: Buffer | string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: s.client.paths.serverSocket, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8'); // a character split across chunks stays whole
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function tcpGet(port: number, path: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      let text = '';
      res.setEncoding('utf8'); // a character split across chunks stays whole
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('control plane errors and access', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('unknown targets list candidates; an ambiguous prefix names every match', () =>
    withServer(async (s) => {
      // Ids start with one of six letters: seven sessions surely share a first letter.
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push(await s.newShell(['sleep', '600'], { prompt: /^/ }));
      const unknown = await s.cli(['commands', 'zz']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^tend: no session matches "zz"; sessions: /);
      const res = await s.api('GET', '/v1/sessions/zz/commands');
      assert.equal(res.status, 404);
      assert.deepEqual(new Set(res.body.error.candidates), new Set(ids));
      const letter = [...'abcdef'].find((l) => ids.filter((id) => id.startsWith(l)).length > 1)!;
      const ambiguous = await s.cli(['output', letter, '--last']);
      assert.equal(ambiguous.code, 1);
      assert.match(ambiguous.stderr, new RegExp(`"${letter}" matches \\d+ sessions: `));
      for (const id of ids.filter((x) => x.startsWith(letter))) assert.ok(ambiguous.stderr.includes(id));
      assert.equal((await s.api('POST', `/v1/sessions/${letter}/await`, { input: 'true' })).status, 409);
    }));

  test('bad JSON is 400, oversized bodies 413, unknown routes 404 — all JSON', () =>
    withServer(async (s) => {
      const id = await s.newShell(['sleep', '600'], { prompt: /^/ });
      const badJson = await rawCall(s, 'POST', `/v1/sessions/${id}/await`, '{"input": ');
      assert.deepEqual([badJson.status, badJson.body.error.code], [400, 'bad_json']);
      const notObject = await rawCall(s, 'PUT', '/v1/workspaces/w', '[1,2]');
      assert.deepEqual([notObject.status, notObject.body.error.code], [400, 'bad_json']);
      const big = await rawCall(s, 'POST', `/v1/sessions/${id}/split`, Buffer.alloc(2 * 1024 * 1024, 0x20));
      assert.deepEqual([big.status, big.body.error.code], [413, 'too_large']);
      const bigAwait = await rawCall(s, 'POST', `/v1/sessions/${id}/await`, JSON.stringify({ input: 'x'.repeat(3 * 1024 * 1024) }));
      assert.equal(bigAwait.status, 413);
      // The server reads an oversized body to its end before it answers, so a client still
      // writing gets the answer, not a broken pipe: the CLI says what was wrong.
      const huge = await s.cli(['send', id, '--stdin'], { input: ' '.repeat(50 * 1024 * 1024), timeoutMs: 60_000 });
      assert.equal(huge.code, 1, huge.stderr);
      assert.match(huge.stderr, /^tend: request body of \d+ bytes is over the limit of 67108864\b/);
      const route = await rawCall(s, 'GET', '/v1/sessions/x/nothing-here');
      assert.deepEqual([route.status, route.body.error.code], [404, 'not_found']);
      const method = await rawCall(s, 'DELETE', '/v1/awaits/w1');
      assert.equal(method.status, 405);
      // Answered before the body is read: Node's server reads and drops the rest after the
      // answer, so a client writing a large body (chunked, as the CLI sends) gets it, not EPIPE.
      const bigBody = Buffer.alloc(40 * 1024 * 1024, 0x20);
      const bigRoute = await rawCall(s, 'POST', '/v1/sessions/x/nothing-here', bigBody);
      assert.deepEqual([bigRoute.status, bigRoute.body.error.code], [404, 'not_found']);
      const bigMethod = await rawCall(s, 'PATCH', '/v1/awaits/w1', bigBody);
      assert.deepEqual([bigMethod.status, bigMethod.body.error.code], [405, 'method_not_allowed']);
      const bigUnknown = await rawCall(s, 'POST', '/v1/sessions/no-such-session/input', bigBody);
      assert.equal(bigUnknown.status, 404);
    }));

  test('tend shell-integration prints each snippet, which the shell parses; other shells are a usage error', async () => {
    const s = startControlServer();
    try {
      const bash = await s.cli(['shell-integration', 'bash']);
      assert.equal(bash.code, 0);
      assert.match(bash.stdout, /133;/);
      assert.equal(spawnSync('bash', ['-n'], { input: bash.stdout }).status, 0, 'bash -n accepts the snippet');
      assert.equal((await s.cli(['shell-integration', 'zsh'])).code, 0);
      assert.equal(JSON.parse((await s.cli(['shell-integration', 'fish', '--json'])).stdout).shell, 'fish');
      assert.equal((await s.cli(['shell-integration', 'fish'])).code, 0);
      const other = await s.cli(['shell-integration', 'tcsh']);
      assert.equal(other.code, 2);
      assert.match(other.stderr, /no shell integration for "tcsh"; there is one for bash, zsh, fish/);
      assert.equal(s.serverPid(), null, 'printing a snippet starts no server');
    } finally {
      await s.dispose();
    }
  });

  test('a bash whose rc file evals the printed snippet is indexed', () =>
    withServer(async (s) => {
      const { writeFileSync } = await import('node:fs');
      const rc = join(s.shellHome, 'my-bashrc');
      const tend = join(import.meta.dirname, '..', '..', '..', 'bin', 'tend.js');
      writeFileSync(rc, `eval "$(${process.execPath} ${tend} shell-integration bash)"\n`);
      const id = await s.newShell(['bash', '--rcfile', rc, '-i']); // its own rc: tend injects nothing
      const r = await s.cli(['await', id, '--', 'echo from-user-rc']);
      assert.deepEqual([r.code, r.stdout], [0, 'from-user-rc\n']);
    }));

  test('a verb whose reader stops early (| head) ends quietly with 141, no stack trace', () =>
    withServer(async (s) => {
      const id = await s.newShell(['bash']);
      const done = await s.cli(['await', id, '--', 'seq 1 20000']);
      assert.equal(done.code, 0, done.stderr);
      const tend = join(import.meta.dirname, '..', '..', '..', 'bin', 'tend.js');
      // head takes one line and leaves while tend still has 20 000 rows to write.
      const script = `set -o pipefail; "${process.execPath}" "${tend}" screen ${id} --scrollback 20000 | head -1; echo "status $?"`;
      const r = spawnSync('bash', ['-c', script], { env: s.env, encoding: 'utf8' });
      assert.equal(r.stderr, '');
      assert.match(r.stdout, /seq 1 20000\nstatus 141\n$/);
    }));

  test('the server serves the same API on 127.0.0.1: its port in health and the port file', () =>
    withServer(async (s) => {
      assert.equal((await s.cli(['ls'])).code, 0); // starts the server
      const health = await s.api('GET', '/v1/health');
      assert.equal(health.status, 200);
      const port = health.body.port as number;
      assert.ok(Number.isInteger(port) && port > 0, `health.port is ${port}`);
      assert.equal(readFileSync(join(s.client.paths.runtimeDir, 'port'), 'utf8').trim(), String(port));
      const overTcp = await tcpGet(port, '/v1/sessions');
      assert.deepEqual([overTcp.status, overTcp.body], [200, []]);
      if (process.getuid?.() === 0) {
        const other = spawnSync(process.execPath, ['-e', `require('node:http').get('http://127.0.0.1:${port}/v1/sessions', (r) => process.stdout.write(String(r.statusCode)))`], { uid: 65534, gid: 65534, cwd: '/', encoding: 'utf8' });
        assert.equal(other.stdout, '403', other.stderr);
      } else {
        console.log('# the other-user check is in loopback.test.ts and needs root');
      }
    }));
});
