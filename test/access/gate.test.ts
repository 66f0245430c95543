// The access gate against real attacks: a real tend server (its own
// TEND_HOME and port), configured with the real `tend remote`, reached
// directly on 127.0.0.1 and through a real reverse proxy on this machine
// (reverse-proxy.ts) that forwards for a tailnet-like address, as `tailscale
// serve` or nginx would. Time moves on the server through its test clock
// (TEND_TEST_CLOCK_FILE), never by waiting. Every attack is a row of the
// table printed at the end; the happy path signs in with a one-time link and
// opens the dashboard page and a terminal's WebSocket through the proxy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startTestServer, waitFor, type TestServer } from '../server/harness.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { OTHER_USER, runsAsRoot } from '../support/as-another-user.js';
import { decodeFrameFromServer, encodeFrameToServer, VIEWER_PROTOCOL_VERSION, type FrameFromServer } from '../../src/protocol/viewer-frames.js';
import { attackTable } from './attack-table.js';
import { startReverseProxy, type ReverseProxy } from './reverse-proxy.js';
import { call, cookieSet, outcome, upgrade, type Answer } from './http-client.js';

const TEST_TIMEOUT_MS = 240_000;
const HOST_A = 'box-a.example.ts.net';
const HOST_B = 'box-b.example.ts.net';
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long to wait for what a loaded 2-core machine may be slow to show (a terminal's first frame, a socket's end). */
const LOADED_MACHINE_WAIT_MS = 60_000;
const table = attackTable('access gate (links, cookies, Host, Origin, users, limits)');

let server: TestServer;
let proxy: ReverseProxy;
let tendPort: number;
let clockFile: string;
let clockDir: string;

function moveClock(ms: number): void {
  writeFileSync(clockFile, String(ms));
}

async function tend(args: string[]): Promise<string> {
  const r = await server.cli(args);
  assert.equal(r.code, 0, `tend ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function linkToken(host = HOST_A): Promise<string> {
  const link = JSON.parse(await tend(['remote', 'link', '--host', host, '--json'])) as { url: string };
  const token = /#t=([A-Za-z0-9_-]+)$/.exec(link.url)?.[1];
  assert.ok(token, link.url);
  assert.ok(link.url.startsWith(`https://${host}/login#t=`), link.url);
  return token;
}

function exchange(token: string, host = HOST_A): Promise<Answer> {
  return call(proxy.port, {
    method: 'POST',
    path: '/v1/remote/exchange',
    host,
    headers: { 'content-type': 'application/json', origin: `https://${host}` },
    body: JSON.stringify({ token }),
  });
}

async function signIn(host = HOST_A): Promise<string> {
  const answer = await exchange(await linkToken(host), host);
  assert.equal(answer.status, 200, answer.text);
  const cookie = cookieSet(answer);
  assert.ok(cookie, 'the exchange set the login cookie');
  return cookie;
}

/** A terminal's socket opened through the proxy with this cookie; resolves once open. */
async function openSocket(cookie: string): Promise<{ ws: WebSocket; closed(): Promise<void> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1/viewer`, { headers: { host: HOST_A, cookie, origin: `https://${HOST_A}` }, perMessageDeflate: false });
  let isClosed = false;
  ws.once('close', () => (isClosed = true));
  const closed = () => waitFor('the terminal socket to be ended', () => isClosed, LOADED_MACHINE_WAIT_MS).then(() => undefined);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { ws, closed };
}

const viaProxy = (path: string, headers: Record<string, string> = {}, host = HOST_A) => call(proxy.port, { path, host, headers });

/** Records an attack that must be refused with this status (and code), and asserts it was. */
function refused(attack: string, got: { status: number; code?: string; message?: string }, expected: { status: number; code?: string; words?: RegExp }): void {
  const wordsHeld = expected.words === undefined || expected.words.test(got.message ?? '');
  const held = got.status === expected.status && (expected.code === undefined || got.code === expected.code) && wordsHeld;
  table.record(attack, { status: expected.status, code: expected.code, words: expected.words?.source }, outcome(got), held);
  assert.equal(got.status, expected.status, `${attack}: ${JSON.stringify(got)}`);
  if (expected.code !== undefined) assert.equal(got.code, expected.code, attack);
  if (expected.words !== undefined) assert.match(got.message ?? '', expected.words, attack);
}

describe('the access gate', { timeout: TEST_TIMEOUT_MS }, () => {
  before(async () => {
    clockDir = makeTempDir('tend-gate-clock-');
    clockFile = join(clockDir, 'skew-ms');
    moveClock(0);
    server = startTestServer({ TEND_TEST_CLOCK_FILE: clockFile });
    await tend(['server', 'start']);
    tendPort = (await server.api<{ port: number }>('GET', '/v1/health')).body.port;
    proxy = await startReverseProxy({ targetPort: tendPort, forwardedFor: '100.101.102.103', proto: 'https' });
  });

  after(async () => {
    await proxy?.dispose();
    await server?.dispose();
    removeTempDir(clockDir);
  });

  test('with remote access off, a caller through a proxy is refused, and this user is let in as before', async () => {
    refused('remote off: a request through a proxy', await viaProxy('/v1/sessions'), { status: 403, code: 'forbidden', words: /remote access is off/ });
    refused('remote off: a page through a proxy', await viaProxy('/'), { status: 403, words: undefined });
    const local = await call(tendPort, { path: '/v1/sessions', host: `127.0.0.1:${tendPort}` });
    assert.equal(local.status, 200, local.text);
  });

  test('tend remote enable/allow write the settings 0600 in a 0700 directory, and status says what is reachable', async () => {
    await tend(['remote', 'enable']);
    await tend(['remote', 'allow', HOST_A, HOST_B]);
    const file = join(server.home, 'remote', 'settings.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(server.home, 'remote')).mode & 0o777, 0o700);
    const status = await tend(['remote', 'status']);
    assert.match(status, /remote access: on/);
    assert.match(status, new RegExp(`listening on 127\\.0\\.0\\.1:${tendPort}`));
    assert.match(status, new RegExp(`allowed hosts: ${HOST_A.replace(/\./g, '\\.')}, ${HOST_B.replace(/\./g, '\\.')}`));
  });

  test('a Host that is not allowed is refused (DNS rebinding), through the proxy and directly', async () => {
    refused('DNS rebinding: Host evil.example through the proxy', await viaProxy('/v1/sessions', {}, 'evil.example'), { status: 403, code: 'forbidden', words: /not one this tend server answers to/ });
    refused('DNS rebinding: Host of an allowed name on a lookalike', await viaProxy('/v1/sessions', {}, `${HOST_A}.evil.example`), { status: 403, code: 'forbidden', words: /not one this tend server answers to/ });
    refused('DNS rebinding: Host evil.example straight to 127.0.0.1', await call(tendPort, { path: '/v1/sessions', host: `evil.example:${tendPort}` }), { status: 403, code: 'forbidden', words: /not one this tend server answers to/ });
  });

  test('without a cookie the API is refused and a page gets the login page', async () => {
    refused('no cookie: the API', await viaProxy('/v1/sessions'), { status: 403, code: 'forbidden', words: /sign in first.*tend remote link/ });
    const page = await viaProxy('/');
    table.record('no cookie: the dashboard page', { status: 401, words: 'the login page' }, { status: page.status, note: /Sign in to tend/.test(page.text) ? 'login page' : page.text.slice(0, 40) }, page.status === 401 && /Sign in to tend/.test(page.text));
    assert.equal(page.status, 401);
    assert.match(page.text, /Sign in to tend/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'sha256-/);
    const login = await viaProxy('/login');
    assert.equal(login.status, 200);
    assert.match(login.text, /tend remote link/);
  });

  test('a forged or malformed cookie is refused', async () => {
    const forged = `tend_login=${'0'.repeat(12)}.${'A'.repeat(43)}`;
    refused('forged cookie (made-up id and token)', await viaProxy('/v1/sessions', { cookie: forged }), { status: 403, code: 'forbidden', words: /not one this server issued/ });
    refused('malformed cookie', await viaProxy('/v1/sessions', { cookie: 'tend_login=../../etc' }), { status: 403, code: 'forbidden', words: /malformed/ });
    // A real cookie's id with another token: the id alone lets nobody in.
    const real = await signIn();
    const sameId = `${real.slice(0, real.indexOf('.') + 1)}${'B'.repeat(43)}`;
    refused("a signed-in browser's cookie id with a forged token", await viaProxy('/v1/sessions', { cookie: sameId }), { status: 403, code: 'forbidden', words: /not one this server issued/ });
  });

  test('happy path: a one-time link signs in; the dashboard and a terminal open through the proxy', async () => {
    const made = await server.api<{ id: string }>('POST', '/v1/sessions', { argv: ['sh', '-c', 'echo through-the-gate; exec cat'], name: 'gate' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const cookie = await signIn();
    assert.match(cookie, /^__Host-tend_login=/, 'over HTTPS (the proxy says so from loopback) the cookie is __Host- and Secure');
    const sessions = await viaProxy('/v1/sessions', { cookie });
    assert.equal(sessions.status, 200, sessions.text);
    assert.ok((JSON.parse(sessions.text) as Array<{ id: string }>).some((s) => s.id === made.body.id));
    const page = await viaProxy('/', { cookie });
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.equal(page.headers['access-control-allow-origin'], undefined, 'no CORS headers');

    const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/v1/viewer`, { headers: { host: HOST_A, cookie, origin: `https://${HOST_A}` }, perMessageDeflate: false });
    const frames: FrameFromServer[] = [];
    ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
    try {
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }));
      ws.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: made.body.id, cols: 80, rows: 24 }));
      await waitFor('the terminal through the gate', () => frames.some((f) => (f.type === 'snapshot' || f.type === 'data') && Buffer.from((f as { data: Uint8Array | string }).data).toString().includes('through-the-gate')), LOADED_MACHINE_WAIT_MS);
    } finally {
      ws.terminate();
    }
    const logins = JSON.parse(await tend(['remote', 'ls', '--json'])) as Array<{ method: string; host: string }>;
    assert.ok(logins.some((l) => l.method === 'link' && l.host === HOST_A));
  });

  test('a cookie is good only at the host it was issued for', async () => {
    const cookie = await signIn(HOST_A);
    refused('a cookie from another (allowed) host', await viaProxy('/v1/sessions', { cookie }, HOST_B), { status: 403, code: 'forbidden', words: /issued for another host/ });
  });

  test('a revoked cookie and an expired one are refused', async () => {
    const cookie = await signIn();
    assert.equal((await viaProxy('/v1/sessions', { cookie })).status, 200);
    const logins = JSON.parse(await tend(['remote', 'ls', '--json'])) as Array<{ id: string }>;
    const id = cookie.slice(cookie.indexOf('=') + 1, cookie.indexOf('.'));
    assert.ok(logins.some((l) => l.id === id));
    const open = await openSocket(cookie);
    await tend(['remote', 'revoke', id]);
    refused('a revoked cookie', await viaProxy('/v1/sessions', { cookie }), { status: 403, code: 'forbidden', words: /revoked/ });
    // The terminal it had open ends with the sign-in: the gate judged it only when it opened.
    await open.closed();

    const other = await signIn();
    moveClock(31 * DAY_MS);
    try {
      refused('an expired cookie (31 days on)', await viaProxy('/v1/sessions', { cookie: other }), { status: 403, code: 'forbidden', words: /expired/ });
    } finally {
      moveClock(0);
    }
  });

  test('a one-time link replayed, expired, guessed, or used at another host is refused', async () => {
    const token = await linkToken();
    assert.equal((await exchange(token)).status, 200);
    refused('a one-time link replayed', await exchange(token), { status: 403, code: 'forbidden', words: /used already/ });

    const late = await linkToken();
    moveClock(11 * 60 * 1000);
    try {
      refused('a one-time link used after 11 minutes', await exchange(late), { status: 403, code: 'forbidden', words: /expired/ });
    } finally {
      moveClock(0);
    }
    refused('a guessed link token', await exchange('C'.repeat(43)), { status: 403, code: 'forbidden', words: /never made here/ });
    refused('a link token that is not one', await exchange('x'), { status: 403, code: 'forbidden', words: /not a login link token/ });
    const forA = await linkToken(HOST_A);
    refused('a link made for one host used at another', await exchange(forA, HOST_B), { status: 403, code: 'forbidden', words: /is for box-a/ });
    const answer = await exchange(forA, HOST_A);
    assert.equal(answer.status, 200, 'the link refused at the wrong host still works at its own');
  });

  test('a write and a WebSocket upgrade from another origin are refused, cookie and all', async () => {
    const cookie = await signIn();
    const write = await call(proxy.port, {
      method: 'POST',
      path: '/v1/sessions',
      host: HOST_A,
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ argv: ['sh'] }),
    });
    refused('cross-origin write (POST /v1/sessions)', write, { status: 403, code: 'forbidden', words: /evil\.example.*may not change anything/ });
    const exchangeFromElsewhere = await call(proxy.port, { method: 'POST', path: '/v1/remote/exchange', host: HOST_A, headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ token: await linkToken() }) });
    refused('cross-origin link exchange', exchangeFromElsewhere, { status: 403, code: 'forbidden', words: /may not change anything/ });
    const ws = await upgrade(proxy.port, { host: HOST_A, headers: { cookie, origin: 'https://evil.example' } });
    ws.socket?.destroy();
    refused('cross-origin WebSocket upgrade', ws, { status: 403, code: 'forbidden', words: /may not change anything/ });
    const anonymous = await upgrade(proxy.port, { host: HOST_A, headers: { origin: `https://${HOST_A}` } });
    anonymous.socket?.destroy();
    refused('WebSocket upgrade without a cookie', anonymous, { status: 403, code: 'forbidden', words: /sign in first/ });
    const rebound = await upgrade(proxy.port, { host: 'evil.example', headers: { cookie } });
    rebound.socket?.destroy();
    refused('WebSocket upgrade with a Host not allowed', rebound, { status: 403, code: 'forbidden', words: /not one this tend server answers to/ });
    const accepted = await upgrade(proxy.port, { host: HOST_A, headers: { cookie, origin: `https://${HOST_A}` } });
    accepted.socket?.destroy();
    assert.equal(accepted.status, 101, 'the same upgrade from its own origin opens');
  });

  test("a local program that adds proxy headers is not local: the remote routes refuse it", async () => {
    const spoofed = await call(tendPort, { path: '/v1/remote', host: `127.0.0.1:${tendPort}`, headers: { 'x-forwarded-for': '127.0.0.1' } });
    refused('forwarding headers on a local request (Host 127.0.0.1)', spoofed, { status: 403, code: 'forbidden', words: /not one this tend server answers to/ });
  });

  test('the remote-access routes refuse a signed-in browser: only the machine changes them', async () => {
    const cookie = await signIn();
    const json = { cookie, 'content-type': 'application/json', origin: `https://${HOST_A}` };
    const attempts: Array<[string, string, string, string?]> = [
      ['read the settings', 'GET', '/v1/remote'],
      ['change the settings (allow another host)', 'PATCH', '/v1/remote', JSON.stringify({ allowedHosts: ['evil.example'] })],
      ['make a one-time link', 'POST', '/v1/remote/links', '{}'],
      ['list the signed-in browsers', 'GET', '/v1/remote/logins'],
      ['revoke every sign-in', 'DELETE', '/v1/remote/logins/all'],
    ];
    for (const [what, method, path, body] of attempts) {
      const answer = await call(proxy.port, { method, path, host: HOST_A, headers: json, body });
      refused(`remote caller: ${what}`, answer, { status: 403, code: 'forbidden', words: /only from the machine tend runs on/ });
    }
    const settings = JSON.parse(await tend(['remote', 'status', '--json'])) as { settings: { allowedHosts: string[] } };
    assert.deepEqual(settings.settings.allowedHosts, [HOST_A, HOST_B], 'nothing changed');
  });

  test('path traversal and an oversized request from a signed-in remote caller are refused as for anyone', async () => {
    const cookie = await signIn();
    for (const path of ['/../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2f..%2fpackage.json']) {
      const answer = await viaProxy(path, { cookie });
      const leaked = /root:|"name": "tend"/.test(answer.text);
      table.record(`path traversal ${path}`, { words: 'no file outside the app' }, { status: answer.status, note: leaked ? 'LEAKED' : answer.text.slice(0, 40) }, !leaked);
      assert.ok(!leaked, `${path} served a file outside the web app`);
    }
    const big = Buffer.alloc(2 * 1024 * 1024, 0x61);
    const oversized = await call(proxy.port, { method: 'POST', path: '/v1/sessions', host: HOST_A, headers: { cookie, 'content-type': 'application/json', origin: `https://${HOST_A}` }, body: big });
    refused('oversized body (2 MiB) from a remote caller', oversized, { status: 413, code: 'too_large' });
    const hugeHeader = await call(proxy.port, { path: '/v1/sessions', host: HOST_A, headers: { cookie, 'x-padding': 'p'.repeat(20 * 1024) } });
    refused('oversized headers (20 KiB) from a remote caller', hugeHeader, { status: 431, code: 'request_too_large' });
  });

  test('a loopback caller of another user is remote: refused without signing in', { skip: runsAsRoot() ? false : 'needs root to run a process as another user' }, async () => {
    const script = `
      const http = require('node:http');
      const ask = (host) => new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port: ${tendPort}, path: '/v1/sessions', headers: { host } }, (res) => {
          let text = ''; res.on('data', (c) => (text += c)); res.on('end', () => resolve({ status: res.statusCode, body: text }));
        }).on('error', (e) => resolve({ error: e.message }));
      });
      (async () => { process.stdout.write(JSON.stringify([await ask('127.0.0.1:${tendPort}'), await ask('${HOST_A}')])); })();`;
    const child = spawn(process.execPath, ['-e', script], { uid: OTHER_USER.uid, gid: OTHER_USER.gid, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    await new Promise((resolve) => child.on('close', resolve));
    const [direct, allowedHost] = (JSON.parse(out) as Array<{ status: number; body: string }>).map((a) => {
      const error = (JSON.parse(a.body) as { error: { code: string; message: string } }).error;
      return { status: a.status, code: error.code, message: error.message };
    });
    refused('another user on 127.0.0.1 (Host 127.0.0.1:PORT)', direct!, { status: 403, code: 'forbidden', words: /not one this tend server answers to/ });
    refused('another user on 127.0.0.1 (an allowed Host, no cookie)', allowedHost!, { status: 403, code: 'forbidden', words: /sign in first/ });
  });

  test('remote access off again refuses even a signed-in browser; the refusals were logged without secrets', async () => {
    const cookie = await signIn();
    const open = await openSocket(cookie);
    await tend(['remote', 'disable']);
    await open.closed();
    refused('a signed-in browser after `tend remote disable`', await viaProxy('/v1/sessions', { cookie }), { status: 403, code: 'forbidden', words: /remote access is off/ });
    await tend(['remote', 'enable']);
    assert.equal((await viaProxy('/v1/sessions', { cookie })).status, 200, 'enabled again, the cookie still works');
    const log = readFileSync(server.client.paths.serverLog, 'utf8');
    assert.match(log, /remote access: refused remote caller/);
    const token = cookie.slice(cookie.indexOf('.') + 1);
    assert.ok(!log.includes(token), 'no cookie token in the log');
    const logins = readFileSync(join(server.home, 'remote', 'logins.json'), 'utf8');
    assert.ok(!logins.includes(token), 'the logins file holds hashes, not tokens');
    assert.equal(statSync(join(server.home, 'remote', 'logins.json')).mode & 0o777, 0o600);
  });
});
