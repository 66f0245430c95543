// Tailscale identity end to end: a real tend server with `tend remote enable`,
// a Host allowed and a Tailscale login listed, a stand-in `tailscale` on the
// server's PATH answering whois, a stand-in `tailscale serve` in front of it,
// and a plain reverse proxy an attacker's headers pass through. The happy
// path signs in (a login cookie is issued) and opens a terminal with the
// cookie alone; every attack is refused with the verifier's reason and earns
// no cookie. Each attack is a row of the file's attack table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { OTHER_USER, runsAsRoot } from '../support/as-another-user.js';
import { attackTable } from './attack-table.js';
import { startPassThroughProxy, startServeStandIn, writeTailscaleStandIn, type ServeStandIn } from './tailscale-stand-in.js';
import { expectRefused, openTerminal, startRemoteTend, type RemoteTend } from './proxy-identity-harness.js';
import { call, cookieSet, type Answer } from './http-client.js';

const TEST_TIMEOUT_MS = 120_000;
const HOST = 'box.tail1234.ts.net';
const ALICE = 'alice@example.com';
const ALICE_ADDRESS = '100.64.0.11';
const BOB_ADDRESS = '100.101.102.103';
const TAGGED_ADDRESS = '100.127.255.254';
const MARK = 'TAILSCALE-SIGNED-IN-7Q2';
const table = attackTable('Tailscale identity, end to end through the gate');

let dir: string;
let tend: RemoteTend;
let serve: ServeStandIn;
let proxy: { port: number; close(): Promise<void> };
let sessionId: string;

const api = (port: number, headers: Record<string, string | string[]>) => call(port, { path: '/v1/sessions', host: HOST, headers });

before(async () => {
  dir = makeTempDir('tend-tsg-');
  const standIn = writeTailscaleStandIn(dir);
  standIn.setPeer(ALICE_ADDRESS, { login: ALICE });
  standIn.setPeer(BOB_ADDRESS, { login: 'bob@example.com' });
  standIn.setPeer(TAGGED_ADDRESS, { login: ALICE, tags: ['tag:ci'] });
  // The server finds `tailscale` on its PATH, as it would the real one.
  tend = await startRemoteTend({ env: { PATH: `${standIn.binDir}:${process.env['PATH'] ?? ''}` }, hosts: [HOST] });
  await tend.remote('tailscale', ALICE);
  sessionId = await tend.sessionShowing(MARK);
  serve = await startServeStandIn(tend.port);
  proxy = await startPassThroughProxy(tend.port);
});

after(async () => {
  await serve?.close();
  await proxy?.close();
  await tend?.dispose();
  if (dir !== undefined) removeTempDir(dir);
});

describe('tailscale identity through the gate', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a listed tailnet user behind tailscale serve signs in, and the cookie alone opens a terminal', async () => {
    serve.setClient({ address: ALICE_ADDRESS, peer: { login: ALICE } });
    const signedIn = await api(serve.port, {});
    assert.equal(signedIn.status, 200, signedIn.text);
    const cookie = cookieSet(signedIn);
    assert.ok(cookie !== null, `no login cookie: ${JSON.stringify(signedIn.headers['set-cookie'])}`);
    // serve says https (X-Forwarded-Proto from a loopback peer): the cookie is Secure and __Host-.
    assert.match(cookie, /^__Host-tend_login=/);

    // Through a proxy that adds no identity, the terminal opens on the cookie alone...
    const opened = await openTerminal(proxy.port, { host: HOST, cookie, origin: `https://${HOST}` }, sessionId, MARK);
    assert.equal(opened.opened, true, JSON.stringify(opened));
    // ...and not without it.
    const refused = await openTerminal(proxy.port, { host: HOST, origin: `https://${HOST}` }, sessionId, MARK);
    assert.deepEqual(refused.opened, false);
    table.record('terminal WebSocket without the cookie', { status: 403 }, { status: refused.opened ? 101 : refused.status, note: refused.opened ? 'opened' : refused.message });
  });

  test('forged headers straight to 127.0.0.1 (no forwarded hop) are refused', async () => {
    expectRefused(table, 'forged Tailscale headers straight to 127.0.0.1', await api(tend.port, { 'tailscale-user-login': ALICE }), /^tailscale: .*without X-Forwarded-For/);
  });

  test('forged headers with a tailnet X-Forwarded-For, through a local reverse proxy, are refused', async () => {
    const answer = await api(proxy.port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS });
    expectRefused(table, 'forged Tailscale headers through a local reverse proxy', answer, /^tailscale: the last forwarded hop 127\.0\.0\.1 is not a tailnet address/);
  });

  test('forged headers from another user of this machine are refused', async (t) => {
    if (!runsAsRoot()) return t.skip('needs root to run a client as another user');
    const script = `
      const req = require('node:http').request({ host: '127.0.0.1', port: ${tend.port}, path: '/v1/sessions', headers: { host: '${HOST}', 'tailscale-user-login': '${ALICE}', 'x-forwarded-for': '${ALICE_ADDRESS}' } }, (res) => {
        let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, headers: res.headers, text: t })));
      });
      req.end();`;
    const child = spawn(process.execPath, ['-e', script], { uid: OTHER_USER.uid, gid: OTHER_USER.gid, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    await new Promise<void>((resolve) => child.on('close', () => resolve()));
    const raw = JSON.parse(out) as { status: number; headers: Answer['headers']; text: string };
    const body = JSON.parse(raw.text) as { error: { code: string; message: string } };
    const answer: Answer = { ...raw, message: body.error.message, code: body.error.code };
    expectRefused(table, 'forged Tailscale headers from another local user', answer, new RegExp(`^tailscale: .*from a process of uid ${OTHER_USER.uid} on this machine`));
  });

  test('forged headers from another address (tend listening beyond loopback) are refused', async (t) => {
    const outside = Object.values(networkInterfaces()).flatMap((l) => l ?? []).find((a) => !a.internal && a.family === 'IPv4')?.address;
    if (outside === undefined) return t.skip('this machine has no address outside loopback');
    const port = await freePort(outside);
    await tend.remote('enable', '--listen', `${outside}:${port}`);
    const answer = await call(port, { address: outside, path: '/v1/sessions', host: HOST, headers: { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS } });
    expectRefused(table, `forged Tailscale headers from ${outside}`, answer, new RegExp(`^tailscale: .*came straight from ${outside.replace(/\./g, '\\.')}`));
  });

  test('a login header that whois contradicts is refused', async () => {
    const answer = await api(tend.port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': BOB_ADDRESS });
    expectRefused(table, 'Tailscale login that whois contradicts', answer, /^tailscale: Tailscale-User-Login says "alice@example\.com" but `tailscale whois 100\.101\.102\.103` says "bob@example\.com"/);
  });

  test('a tagged node naming a user is refused; through serve it gets no identity and must sign in', async () => {
    const forged = await api(tend.port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': TAGGED_ADDRESS });
    expectRefused(table, 'tagged Tailscale node claiming a user', forged, /^tailscale: .*tagged Tailscale node \(tag:ci\)/);
    serve.setClient({ address: TAGGED_ADDRESS, peer: { login: ALICE, tags: ['tag:ci'] } });
    const viaServe = await api(serve.port, {});
    expectRefused(table, 'tagged Tailscale node through serve', viaServe, /sign in first/);
  });

  test('a tailnet user whois confirms but who is not on the list is refused', async () => {
    serve.setClient({ address: BOB_ADDRESS, peer: { login: 'bob@example.com' } });
    expectRefused(table, 'Tailscale login not on the list', await api(serve.port, {}), /^tailscale: the Tailscale login "bob@example\.com" is not on this tend's list/);
  });

  test('a listed user on a Host that is not allowed (DNS rebinding) is refused before any identity', async () => {
    serve.setClient({ address: ALICE_ADDRESS, peer: { login: ALICE } });
    const answer = await call(serve.port, { path: '/v1/sessions', host: 'rebind.attacker.example' });
    expectRefused(table, 'Tailscale user on a Host not allowed', answer, /the Host "rebind\.attacker\.example" is not one this tend server answers to/);
  });
});

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}
