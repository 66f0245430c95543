// The 127.0.0.1 listener's gate, on a real TCP port: same-user callers in,
// other users, foreign Host headers and other origins' writes out (403 JSON).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from '../../src/server/http/router.js';
import { startLoopbackListener, tryStartLoopbackListener, type LoopbackListener } from '../../src/server/http/loopback.js';
import type { PeerLookup } from '../../src/server/access/peer-uid.js';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { OTHER_USER } from '../support/as-another-user.js';

const TEST_TIMEOUT_MS = 60_000;
const OTHER_UID = OTHER_USER.uid;
/** Each means of finding a caller's user that can run here (lsof is macOS's; Linux may have it too). */
const lookups: Array<[PeerLookup, string | false]> = [
  ['proc-net-tcp', existsSync('/proc/net/tcp') ? false : 'no /proc/net/tcp here'],
  ['lsof', spawnSync('lsof', ['-v'], { stdio: 'ignore' }).error === undefined ? false : 'lsof is not installed here'],
];
const warnings: string[] = [];
const log = { info() {}, warn: (m: string) => void warnings.push(m), error() {} };

interface Answer {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

function call(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8'); // a character split across chunks stays whole
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function listener(scope: TestScope, port = 0, peerLookup?: PeerLookup): Promise<{ loopback: LoopbackListener; portFile: string }> {
  const router = new Router();
  router.add('health', () => ({ status: 200, json: { ok: true } }));
  router.add('createSession', async (req) => ({ status: 201, json: await req.json() }));
  const portFile = join(scope.tempDir('tend-loopback-'), 'port');
  const loopback = scope.own(await startLoopbackListener({ handle: (req, res) => void router.handle(req, res, log), log, port, portFile, peerLookup }));
  return { loopback, portFile };
}

describe('the 127.0.0.1 listener', { timeout: TEST_TIMEOUT_MS }, () => {
  test('port 0 takes a free port and writes it to the port file; same-user callers get the router', async (t) => {
    const scope = useTestScope(t);
    const { loopback, portFile } = await listener(scope);
    assert.ok(loopback.port > 0);
    assert.equal(readFileSync(portFile, 'utf8'), `${loopback.port}\n`);
    const res = await call(loopback.port, 'GET', '/v1/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true });
    assert.equal(res.headers['access-control-allow-origin'], undefined, 'no CORS headers');
    assert.equal((await call(loopback.port, 'GET', '/v1/health', { host: `localhost:${loopback.port}` })).status, 200);
    assert.equal((await call(loopback.port, 'GET', '/v1/nope')).status, 404);
  });

  test('a Host that is not 127.0.0.1:PORT or localhost:PORT is refused (DNS rebinding)', async (t) => {
    const scope = useTestScope(t);
    const { loopback } = await listener(scope);
    for (const host of ['evil.example', `evil.example:${loopback.port}`, '127.0.0.1', `127.0.0.1:${loopback.port + 1}`]) {
      const res = await call(loopback.port, 'GET', '/v1/health', { host });
      assert.equal(res.status, 403, host);
      assert.equal(res.body.error.code, 'forbidden');
      assert.match(res.body.error.message, /Host header must be 127\.0\.0\.1:\d+ or localhost:\d+/);
    }
  });

  test("writes from another origin are refused; this origin's and origin-less ones pass", async (t) => {
    const scope = useTestScope(t);
    const { loopback } = await listener(scope);
    const json = { 'content-type': 'application/json' };
    const foreign = await call(loopback.port, 'POST', '/v1/sessions', { ...json, origin: 'https://evil.example' }, '{"a":1}');
    assert.equal(foreign.status, 403);
    assert.match(foreign.body.error.message, /evil\.example.*may not change anything/);
    assert.equal((await call(loopback.port, 'POST', '/v1/sessions', { ...json, origin: `http://127.0.0.1:${loopback.port}` }, '{"a":1}')).status, 201);
    assert.equal((await call(loopback.port, 'POST', '/v1/sessions', json, '{"a":1}')).status, 201);
    assert.equal((await call(loopback.port, 'GET', '/v1/health', { origin: 'https://evil.example' })).status, 200, 'reads are left to the browser: no CORS headers');
  });

  for (const [lookup, skip] of lookups) {
    test(`${lookup}: a caller running as another user is refused with 403`, { skip }, async (t) => {
      if (process.getuid?.() !== 0) {
        t.skip('needs root to run a process as another user');
        console.log('# skipped: the other-user check needs root to start a process as uid 65534');
        return;
      }
      const scope = useTestScope(t);
      const { loopback } = await listener(scope, 0, lookup);
      const script = `
        const http = require('node:http');
        http.get({ host: '127.0.0.1', port: ${loopback.port}, path: '/v1/health' }, (res) => {
          let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => { process.stdout.write(JSON.stringify({ status: res.statusCode, body: text })); });
        }).on('error', (e) => { process.stdout.write(JSON.stringify({ error: e.message })); });`;
      const child = spawn(process.execPath, ['-e', script], { uid: OTHER_UID, gid: OTHER_UID, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
      scope.trackPid(child.pid!);
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8'); // a character split across chunks stays whole
      child.stdout.on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8'); // a character split across chunks stays whole
      child.stderr.on('data', (c: string) => (err += c));
      await new Promise((resolve) => child.on('close', resolve));
      const answer = JSON.parse(out || JSON.stringify({ error: err }));
      assert.equal(answer.status, 403, JSON.stringify(answer));
      const body = JSON.parse(answer.body);
      assert.equal(body.error.code, 'forbidden');
      assert.match(body.error.message, new RegExp(`serves only its own user \\(uid ${process.getuid()}\\).*the caller is uid ${OTHER_UID}`));
      // The same listener still lets this user in.
      assert.equal((await call(loopback.port, 'GET', '/v1/health')).status, 200);
    });
  }

  test('lsof: this user is let in', { skip: lookups[1]![1] }, async (t) => {
    const scope = useTestScope(t);
    const { loopback } = await listener(scope, 0, 'lsof');
    assert.equal((await call(loopback.port, 'GET', '/v1/health')).status, 200);
  });

  test('where callers cannot be checked, every caller is refused, this user too', async (t) => {
    const scope = useTestScope(t);
    warnings.length = 0;
    const { loopback } = await listener(scope, 0, 'none');
    const res = await call(loopback.port, 'GET', '/v1/health');
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'forbidden');
    assert.match(res.body.error.message, /cannot tell which user is calling on 127\.0\.0\.1.*the tend command still works over the server's unix socket/);
    assert.equal((await call(loopback.port, 'GET', '/v1/health')).status, 403);
    assert.equal(warnings.filter((w) => /refusing every caller/.test(w)).length, 1, 'said once in the log');
  });

  test('a port in use is logged and leaves no listener, rather than failing the server', async (t) => {
    const scope = useTestScope(t);
    const blocker = createNetServer();
    scope.defer(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    warnings.length = 0;
    const result = await tryStartLoopbackListener({ handle: () => {}, log, port: taken, portFile: join(scope.tempDir('tend-loopback-'), 'port') });
    assert.equal(result, null);
    assert.match(warnings.join('\n'), new RegExp(`port ${taken} is in use \\(set TEND_PORT`));
  });
});
