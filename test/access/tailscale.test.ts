// The Tailscale identity check (src/server/access/tailscale.ts) against real
// requests: a real HTTP server whose handler asks the verifier about each
// request (so it sees a real IncomingMessage and socket), a stand-in
// `tailscale` program on PATH answering whois, a stand-in `tailscale serve`
// proxy, and a plain reverse proxy an attacker's headers pass through. Each
// attack is recorded in the file's attack table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { tailscaleVerifier, decodeHeaderWords, isTailnetAddress } from '../../src/server/access/tailscale.js';
import type { IdentityVerdict, IdentityVerifier, RemoteSettings } from '../../src/server/access/identity.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { OTHER_USER, runsAsRoot } from '../support/as-another-user.js';
import { attackTable } from './attack-table.js';
import { qEncode, startPassThroughProxy, startServeStandIn, writeTailscaleStandIn, type TailscaleStandIn } from './tailscale-stand-in.js';

const TEST_TIMEOUT_MS = 60_000;
const ALICE = 'alice@example.com';
const JORG = 'jörg ümlaut@example.com';
const ALICE_ADDRESS = '100.64.0.11';
const BOB_ADDRESS = '100.101.102.103';
const TAGGED_ADDRESS = '100.127.255.254';
const ALICE_V6 = 'fd7a:115c:a1e0::11';
const JORG_ADDRESS = '100.88.0.7';
const UNKNOWN_ADDRESS = '100.99.0.99';
const SLOW_ADDRESS = '100.99.0.98';
const JUNK_ADDRESS = '100.99.0.97';

const settings: RemoteSettings = {
  enabled: true,
  listen: [],
  allowedHosts: [],
  tailscaleLogins: [ALICE, JORG, 'carol@example.com'],
  cloudflare: null,
};

const table = attackTable('Tailscale identity, verifier level');

/** The verdict comes back as status (verified 200, absent 401, refused 403) and JSON. */
interface Answer {
  status: number;
  verdict: IdentityVerdict;
}

let dir: string;
let standIn: TailscaleStandIn;
let server: Server;
let port: number;
let verifier: IdentityVerifier;
const savedPath = process.env['PATH'];

function statusOf(verdict: IdentityVerdict): number {
  return verdict.kind === 'verified' ? 200 : verdict.kind === 'absent' ? 401 : 403;
}

function ask(targetPort: number, headers: Record<string, string | string[]>, host = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: targetPort, path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, verdict: JSON.parse(text) as IdentityVerdict }));
    });
    req.on('error', reject);
    req.end();
  });
}

function reasonOf(verdict: IdentityVerdict): string {
  return verdict.kind === 'refused' ? verdict.reason : verdict.kind;
}

/** Asserts a refusal whose reason matches `why`, and records the attack. */
function expectRefused(attack: string, answer: Answer, why: RegExp): void {
  table.record(attack, { status: 403, words: 'refused' }, { status: answer.status, note: reasonOf(answer.verdict) }, answer.status === 403 && why.test(reasonOf(answer.verdict)));
  assert.equal(answer.verdict.kind, 'refused', JSON.stringify(answer.verdict));
  assert.match(reasonOf(answer.verdict), why);
}

function firstOutsideAddress(): string | null {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  }
  return null;
}

before(async () => {
  dir = makeTempDir('tend-ts-');
  standIn = writeTailscaleStandIn(dir);
  standIn.setPeer(ALICE_ADDRESS, { login: ALICE });
  standIn.setPeer(ALICE_V6, { login: ALICE });
  standIn.setPeer(BOB_ADDRESS, { login: 'bob@example.com' });
  standIn.setPeer(TAGGED_ADDRESS, { login: ALICE, tags: ['tag:server'] });
  standIn.setPeer(JORG_ADDRESS, { login: JORG });
  standIn.setPeer(SLOW_ADDRESS, { login: ALICE });
  standIn.setDelay(SLOW_ADDRESS, 5);
  standIn.setRawAnswer(JUNK_ADDRESS, 'Machine:\n  Name: not json\n');
  // The verifier runs `tailscale` from PATH, as the server does.
  process.env['PATH'] = `${standIn.binDir}:${savedPath ?? ''}`;
  server = createServer((req, res) => {
    void verifier.verify(req, settings).then((verdict) => {
      res.writeHead(statusOf(verdict), { 'content-type': 'application/json' });
      res.end(JSON.stringify(verdict));
    });
  });
  // Every address, so a request can also arrive from outside loopback.
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});

after(async () => {
  process.env['PATH'] = savedPath;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  removeTempDir(dir);
});

describe('tailscale identity: verifier', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a request with no Tailscale identity headers is absent, and asks whois nothing', async () => {
    verifier = tailscaleVerifier();
    const before = standIn.calls().length;
    const answer = await ask(port, { 'x-forwarded-for': ALICE_ADDRESS, 'tailscale-headers-info': 'https://tailscale.com/s/serve-headers' });
    assert.deepEqual(answer.verdict, { kind: 'absent' });
    assert.equal(standIn.calls().length, before);
  });

  test('through the serve stand-in, a listed user is verified by whois for the forwarded address', async () => {
    verifier = tailscaleVerifier();
    const serve = await startServeStandIn(port);
    try {
      serve.setClient({ address: ALICE_ADDRESS, peer: { login: ALICE } });
      const answer = await ask(serve.port, { 'tailscale-user-login': 'mallory@example.com' });
      assert.deepEqual(answer.verdict, { kind: 'verified', method: 'tailscale', login: ALICE });
      assert.equal(standIn.calls().at(-1), ALICE_ADDRESS);
    } finally {
      await serve.close();
    }
  });

  test('an IPv6 tailnet address and a Q-encoded non-ASCII login are verified', async () => {
    verifier = tailscaleVerifier();
    const serve = await startServeStandIn(port);
    try {
      serve.setClient({ address: ALICE_V6, peer: { login: ALICE } });
      assert.deepEqual((await ask(serve.port, {})).verdict, { kind: 'verified', method: 'tailscale', login: ALICE });
      serve.setClient({ address: JORG_ADDRESS, peer: { login: JORG } });
      const answer = await ask(serve.port, {});
      assert.deepEqual(answer.verdict, { kind: 'verified', method: 'tailscale', login: JORG });
    } finally {
      await serve.close();
    }
  });

  test('whois answers are cached per address: ten requests start one whois', async () => {
    verifier = tailscaleVerifier();
    const before = standIn.calls().length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS })));
    for (const a of answers) assert.equal(a.verdict.kind, 'verified');
    assert.deepEqual(standIn.calls().slice(before), [ALICE_ADDRESS]);
  });

  test('forged headers from a peer outside loopback are refused', async (t) => {
    const outside = firstOutsideAddress();
    if (outside === null) return t.skip('this machine has no address outside loopback');
    verifier = tailscaleVerifier();
    const answer = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS }, outside);
    expectRefused('forged Tailscale headers straight from another address', answer, /believed only from `tailscale serve` on this machine; this request came straight from/);
  });

  test('forged headers from IPv6 loopback, where the proxy\'s user is not looked up, are refused', async () => {
    verifier = tailscaleVerifier();
    const v6 = createServer((req, res) => {
      void verifier.verify(req, settings).then((verdict) => {
        res.writeHead(statusOf(verdict), { 'content-type': 'application/json' });
        res.end(JSON.stringify(verdict));
      });
    });
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    try {
      const address = v6.address();
      const answer = await ask(typeof address === 'object' && address !== null ? address.port : 0, { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS }, '::1');
      expectRefused('forged Tailscale headers from ::1', answer, /believed only over 127\.0\.0\.1, where the proxy's user can be checked/);
    } finally {
      v6.closeAllConnections();
      await new Promise<void>((resolve) => v6.close(() => resolve()));
    }
  });

  test('forged headers on loopback without X-Forwarded-For are refused', async () => {
    verifier = tailscaleVerifier();
    const answer = await ask(port, { 'tailscale-user-login': ALICE });
    expectRefused('forged Tailscale headers, no forwarded hop', answer, /without X-Forwarded-For/);
  });

  test('forged headers whose last forwarded hop is not a tailnet address are refused', async () => {
    verifier = tailscaleVerifier();
    const answer = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': `${ALICE_ADDRESS}, 203.0.113.9` });
    expectRefused('forged Tailscale headers, last hop outside the tailnet', answer, /last forwarded hop 203\.0\.113\.9 is not a tailnet address/);
    const edge = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': '100.128.0.1' });
    expectRefused('forged Tailscale headers, last hop just past 100.64.0.0/10', edge, /not a tailnet address/);
  });

  test('a forwarded hop that is not a bare address (a port, brackets, a name) is refused', async () => {
    verifier = tailscaleVerifier();
    for (const hop of [`${ALICE_ADDRESS}:443`, `[${ALICE_V6}]`, 'alice-laptop.tail1234.ts.net']) {
      const answer = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': hop });
      expectRefused(`forged Tailscale headers, hop ${JSON.stringify(hop)}`, answer, /is not an IP address/);
    }
  });

  test('forged headers through a plain local reverse proxy are refused: its hop is loopback', async () => {
    verifier = tailscaleVerifier();
    const proxy = await startPassThroughProxy(port);
    try {
      const answer = await ask(proxy.port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS });
      expectRefused('forged Tailscale headers through a local reverse proxy', answer, /last forwarded hop 127\.0\.0\.1 is not a tailnet address/);
    } finally {
      await proxy.close();
    }
  });

  test('a login header that whois contradicts is refused', async () => {
    verifier = tailscaleVerifier();
    const answer = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': BOB_ADDRESS });
    expectRefused('Tailscale login that whois contradicts', answer, /says "alice@example\.com" but `tailscale whois 100\.101\.102\.103` says "bob@example\.com"/);
  });

  test('a tagged node is refused: it has no user identity', async () => {
    verifier = tailscaleVerifier();
    const answer = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': TAGGED_ADDRESS });
    expectRefused('tagged Tailscale node claiming a user', answer, /tagged Tailscale node \(tag:server\)/);
  });

  test('a user whois confirms but who is not on the list is refused', async () => {
    verifier = tailscaleVerifier();
    const serve = await startServeStandIn(port);
    try {
      serve.setClient({ address: BOB_ADDRESS, peer: { login: 'bob@example.com' } });
      const answer = await ask(serve.port, {});
      expectRefused('Tailscale login not on the list', answer, /"bob@example\.com" is not on this tend's list/);
    } finally {
      await serve.close();
    }
  });

  test('an address whois does not know, a whois that hangs, and a whois that is not JSON are refused', async () => {
    verifier = tailscaleVerifier({ whoisTimeoutMs: 500 });
    const unknown = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': UNKNOWN_ADDRESS });
    expectRefused('Tailscale address whois does not know', unknown, /knows no such tailnet peer \(no match for IP:port\)/);
    const started = Date.now();
    const slow = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': SLOW_ADDRESS });
    expectRefused('whois that does not answer', slow, /did not answer within 500 ms/);
    assert.ok(Date.now() - started < 4000, 'the hung whois held the request past its timeout');
    const junk = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': JUNK_ADDRESS });
    expectRefused('whois answer that is not JSON', junk, /did not answer in JSON/);
  });

  test('no tailscale program on PATH: refused with the reason', async () => {
    verifier = tailscaleVerifier({ tailscaleProgram: 'tailscale-not-installed-here' });
    const answer = await ask(port, { 'tailscale-user-login': ALICE, 'x-forwarded-for': ALICE_ADDRESS });
    expectRefused('no tailscale program to ask', answer, /is not installed or not on the server's PATH/);
  });

  test('identity headers without a login, a login sent twice, and a Funnel request naming a user are refused', async () => {
    verifier = tailscaleVerifier();
    const noLogin = await ask(port, { 'tailscale-user-name': 'Alice', 'x-forwarded-for': ALICE_ADDRESS });
    expectRefused('Tailscale-User-Name without a login', noLogin, /without Tailscale-User-Login/);
    const twice = await ask(port, { 'tailscale-user-login': [ALICE, ALICE], 'x-forwarded-for': ALICE_ADDRESS });
    expectRefused('Tailscale-User-Login sent twice', twice, /more than once/);
    const funnel = await ask(port, { 'tailscale-user-login': ALICE, 'tailscale-funnel-request': '?1', 'x-forwarded-for': ALICE_ADDRESS });
    expectRefused('Funnel request naming a user', funnel, /Tailscale Funnel/);
    const broken = await ask(port, { 'tailscale-user-login': '=?utf-8?q?=ZZ?=', 'x-forwarded-for': ALICE_ADDRESS });
    expectRefused('malformed Q-encoded login', broken, /malformed encoded word/);
  });

  test('forged headers from a loopback process of another user are refused, though everything else is right', async (t) => {
    if (!runsAsRoot()) return t.skip('needs root to run a client as another user');
    verifier = tailscaleVerifier();
    const script = `
      const req = require('node:http').request({ host: '127.0.0.1', port: ${port}, headers: { 'tailscale-user-login': '${ALICE}', 'x-forwarded-for': '${ALICE_ADDRESS}' } }, (res) => {
        let t = ''; res.on('data', (c) => (t += c)); res.on('end', () => { process.stdout.write(res.statusCode + ' ' + t); });
      });
      req.on('error', (e) => { process.stdout.write('error ' + e.message); });
      req.end();`;
    const child = spawn(process.execPath, ['-e', script], { uid: OTHER_USER.uid, gid: OTHER_USER.gid, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    await new Promise<void>((resolve) => child.on('close', () => resolve()));
    const space = out.indexOf(' ');
    const answer: Answer = { status: Number(out.slice(0, space)), verdict: JSON.parse(out.slice(space + 1)) as IdentityVerdict };
    expectRefused('forged Tailscale headers from another local user', answer, new RegExp(`from a process of uid ${OTHER_USER.uid} on this machine`));
  });
});

describe('tailscale identity: pieces', () => {
  test('tailnet ranges are 100.64.0.0/10 and fd7a:115c:a1e0::/48 exactly', () => {
    for (const a of ['100.64.0.0', '100.127.255.255', 'fd7a:115c:a1e0::1', 'fd7a:115c:a1e0:ffff::1']) assert.ok(isTailnetAddress(a), a);
    for (const a of ['100.63.255.255', '100.128.0.0', '127.0.0.1', 'fd7a:115c:a1e1::1', '::ffff:100.64.0.1x', 'not an address']) assert.ok(!isTailnetAddress(a), a);
  });

  test('RFC 2047 Q-encoded logins decode as Go writes them; plain values pass unchanged', () => {
    assert.equal(decodeHeaderWords(ALICE), ALICE);
    assert.equal(qEncode(JORG), '=?utf-8?q?j=C3=B6rg_=C3=BCmlaut@example.com?=');
    assert.equal(decodeHeaderWords(qEncode(JORG)), JORG);
    assert.equal(decodeHeaderWords('=?utf-8?q?j=C3=B6rg?= =?utf-8?q?_x?='), 'jörg x');
    assert.equal(decodeHeaderWords('=?iso-8859-1?q?j=F6rg?='), null);
    assert.equal(decodeHeaderWords('=?utf-8?q?=C3?='), null);
  });
});
