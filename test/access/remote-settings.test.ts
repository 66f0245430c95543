// `tend remote` and the settings behind it, on a real server: a --listen
// address started and stopped with the setting (behind the same gate), a
// damaged settings file read as remote access off (logged, and said by
// `tend remote status`), bad values and command lines refused with words a
// person can act on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createNetServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, waitFor, type TestServer } from '../server/harness.js';
import { attackTable } from './attack-table.js';
import { call, outcome } from './http-client.js';

const TEST_TIMEOUT_MS = 180_000;
const HOST = 'box.example.ts.net';
const table = attackTable('remote settings and --listen');

let server: TestServer;

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function reachable(port: number): Promise<boolean> {
  return call(port, { path: '/v1/health', host: HOST }).then(
    () => true,
    () => false,
  );
}

describe('tend remote', { timeout: TEST_TIMEOUT_MS }, () => {
  before(async () => {
    server = startTestServer();
    assert.equal((await server.cli(['server', 'start'])).code, 0);
  });

  after(async () => {
    await server?.dispose();
  });

  test('enable --listen serves the API on that address too, behind the gate, with a warning; disable stops it', async () => {
    const port = await freePort();
    const enabled = await server.cli(['remote', 'enable', '--listen', `127.0.0.1:${port}`]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.match(enabled.stderr, /plain HTTP on the network/);
    assert.match(enabled.stdout, new RegExp(`and on 127\\.0\\.0\\.1:${port}: plain HTTP`));
    assert.equal((await server.cli(['remote', 'allow', HOST])).code, 0);
    // From another machine a caller comes with a Host of the allowed name: the gate asks it to sign in.
    const anonymous = await call(port, { path: '/v1/sessions', host: HOST, headers: { 'x-forwarded-for': '192.0.2.7' } });
    table.record('--listen address: no cookie', { status: 403, code: 'forbidden' }, outcome(anonymous));
    assert.equal(anonymous.status, 403);
    assert.match(anonymous.message ?? '', /sign in first/);
    const rebound = await call(port, { path: '/v1/sessions', host: `evil.example:${port}` });
    table.record('--listen address: DNS rebinding Host', { status: 403, code: 'forbidden' }, outcome(rebound));
    assert.equal(rebound.status, 403);

    const notAllowed = await server.cli(['remote', 'link', '--host', 'other.example']);
    assert.equal(notAllowed.code, 2);
    assert.match(notAllowed.stderr, /"host" must be one of the allowed hosts/);
    const made = JSON.parse((await server.cli(['remote', 'link', '--host', `${HOST}:${port}`, '--json'])).stdout) as { url: string };
    assert.ok(made.url.startsWith(`http://${HOST}:${port}/login#t=`), `a --listen port's link is plain http: ${made.url}`);
    const token = made.url.slice(made.url.indexOf('#t=') + 3);
    const exchanged = await call(port, { method: 'POST', path: '/v1/remote/exchange', host: `${HOST}:${port}`, headers: { 'content-type': 'application/json', origin: `http://${HOST}:${port}` }, body: JSON.stringify({ token }) });
    assert.equal(exchanged.status, 200, exchanged.text);
    const setCookie = String(exchanged.headers['set-cookie']);
    assert.match(setCookie, /^tend_login=/, 'over plain HTTP the cookie is not __Host-');
    assert.doesNotMatch(setCookie, /Secure/);
    const cookie = setCookie.split(';')[0]!;
    assert.equal((await call(port, { path: '/v1/sessions', host: `${HOST}:${port}`, headers: { cookie } })).status, 200);

    assert.equal((await server.cli(['remote', 'disable'])).code, 0);
    await waitFor('the --listen address to close', async () => !(await reachable(port)));
    const status = await server.cli(['remote', 'status']);
    assert.match(status.stdout, /remote access: off/);
    assert.match(status.stdout, new RegExp(`--listen 127\\.0\\.0\\.1:${port} is kept for when remote access is on`));
    assert.equal((await server.cli(['remote', 'enable'])).code, 0);
    await waitFor('the --listen address to open again', () => reachable(port));
    assert.equal((await server.cli(['remote', 'disable'])).code, 0);
  });

  test('bad settings are refused naming the field; nothing is written', async () => {
    const before = await server.api('GET', '/v1/remote');
    for (const [body, words] of [
      [{ allowedHosts: ['evil example'] }, /allowedHosts.*not a host name/],
      [{ listen: ['no-port'] }, /listen.*HOST:PORT/],
      [{ enabled: 'yes' }, /"enabled" must be true or false/],
      [{ cloudflare: { issuer: 'http://plain.example', audience: 'a', emails: ['a@b.c'] } }, /issuer.*https/],
      [{ tailscaleLogins: ['not a login'] }, /tailscaleLogins.*not a login/],
      [{ allowedHost: ['typo.example'] }, /unknown field "allowedHost"/],
    ] as Array<[unknown, RegExp]>) {
      const res = await server.api<{ error: { code: string; message: string } }>('PATCH', '/v1/remote', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, 'bad_request');
      assert.match(res.body.error.message, words);
    }
    assert.deepEqual((await server.api('GET', '/v1/remote')).body, before.body);
  });

  test('the command line: unknown actions, misplaced options and missing words are said plainly', async () => {
    const typo = await server.cli(['remote', 'enabel']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /no action "enabel" \(did you mean enable\?\)/);
    const misplaced = await server.cli(['remote', 'status', '--listen', '0.0.0.0:1']);
    assert.equal(misplaced.code, 2);
    assert.match(misplaced.stderr, /--listen goes with tend remote enable/);
    const cloudflare = await server.cli(['remote', 'cloudflare', '--issuer', 'https://team.cloudflareaccess.com']);
    assert.equal(cloudflare.code, 2);
    assert.match(cloudflare.stderr, /needs --issuer .*--audience AUD and at least one --email/);
    const revoke = await server.cli(['remote', 'revoke', 'nosuchid0000']);
    assert.equal(revoke.code, 1);
    assert.match(revoke.stderr, /no signed-in browser has the id "nosuchid0000"/);
    const json = await server.cli(['remote', 'status', '--json']);
    assert.equal(json.code, 0);
    assert.equal((JSON.parse(json.stdout) as { settings: { enabled: boolean } }).settings.enabled, false);
    const help = await server.cli(['remote', '--help']);
    assert.match(help.stdout, /tend remote ACTION/);
  });

  test('a damaged settings file is remote access off, logged and shown by status', async () => {
    assert.equal((await server.cli(['remote', 'enable'])).code, 0);
    assert.equal((await server.cli(['server', 'stop'])).code, 0);
    writeFileSync(join(server.home, 'remote', 'settings.json'), '{"enabled": true, "allowedHosts": [');
    assert.equal((await server.cli(['server', 'start'])).code, 0);
    const status = await server.cli(['remote', 'status']);
    assert.match(status.stdout, /warning: .*settings\.json is damaged .*remote access is off/);
    assert.match(status.stdout, /remote access: off/);
    const port = (await server.api<{ port: number }>('GET', '/v1/health')).body.port;
    const refused = await call(port, { path: '/v1/sessions', host: HOST, headers: { 'x-forwarded-for': '192.0.2.7' } });
    table.record('damaged settings file: a remote caller', { status: 403, code: 'forbidden' }, outcome(refused));
    assert.equal(refused.status, 403);
    assert.match(refused.message ?? '', /remote access is off.*damaged/);
    assert.match(readFileSync(server.client.paths.serverLog, 'utf8'), /remote access: .*settings\.json is damaged/);
    // Written again by `tend remote`, it is whole and in force.
    assert.equal((await server.cli(['remote', 'enable'])).code, 0);
    assert.doesNotMatch((await server.cli(['remote', 'status'])).stdout, /damaged/);
  });
});
