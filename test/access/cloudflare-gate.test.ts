// Cloudflare Access identity end to end: a real tend server with `tend remote
// enable`, a Host allowed and an Access team set up (`tend remote cloudflare
// --issuer --audience --email`), the team's keys served over HTTPS by the
// test (a certificate it made, which the server is told to trust), and a
// plain reverse proxy standing in for the tunnel, which passes the
// Cf-Access-Jwt-Assertion header the test adds as Access would. The happy
// path signs in (a login cookie is issued) and opens a terminal with the
// cookie alone; every forged token is refused with the verifier's reason and
// earns no cookie. The server's clock is moved (TEND_TEST_CLOCK_FILE) to pass
// the key set's refetch cooldown. Each attack is a row of the file's table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { TEST_CLOCK_ENV } from '../../src/server/access/clock.js';
import { attackTable } from './attack-table.js';
import { startPassThroughProxy } from './tailscale-stand-in.js';
import { accessClaims, makeSelfSignedCert, makeTeamKey, publicKeyHmacToken, signToken, startAccessTeam, unsignedToken, type AccessTeam, type TeamKey } from './cloudflare-stand-in.js';
import { expectRefused, openTerminal, startRemoteTend, type RemoteTend } from './proxy-identity-harness.js';
import { call, cookieSet } from './http-client.js';

const TEST_TIMEOUT_MS = 120_000;
const HOST = 'tend.example.com';
const AUDIENCE = '9f5a1c0b7d3e4f2a8b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a';
const ALICE = 'alice@example.com';
const MARK = 'CLOUDFLARE-SIGNED-IN-4K8';
const table = attackTable('Cloudflare Access identity, end to end through the gate');

let dir: string;
let clockFile: string;
let team: AccessTeam;
let teamKey: TeamKey;
let tend: RemoteTend;
let tunnel: { port: number; close(): Promise<void> };
let sessionId: string;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const claims = (email = ALICE) => accessClaims(team, email, nowSeconds());

/** A request as the tunnel delivers it: the public Host, https, and the Access token. */
const viaAccess = (token: string, host = HOST) =>
  call(tunnel.port, { path: '/v1/sessions', host, headers: { 'x-forwarded-proto': 'https', 'cf-access-jwt-assertion': token } });

before(async () => {
  dir = makeTempDir('tend-cfg-');
  const cert = makeSelfSignedCert(dir);
  teamKey = makeTeamKey('access-key-1');
  team = await startAccessTeam(AUDIENCE, [teamKey], { tls: cert });
  clockFile = join(dir, 'clock-skew-ms');
  writeFileSync(clockFile, '0');
  tend = await startRemoteTend({ env: { NODE_EXTRA_CA_CERTS: cert.certFile, [TEST_CLOCK_ENV]: clockFile }, hosts: [HOST] });
  await tend.remote('cloudflare', '--issuer', team.issuer, '--audience', AUDIENCE, '--email', ALICE);
  sessionId = await tend.sessionShowing(MARK);
  tunnel = await startPassThroughProxy(tend.port);
});

after(async () => {
  await tunnel?.close();
  await tend?.dispose();
  await team?.close();
  if (dir !== undefined) removeTempDir(dir);
});

describe('cloudflare access identity through the gate', { timeout: TEST_TIMEOUT_MS }, () => {
  test("a listed email with a token signed by the team's key signs in, and the cookie alone opens a terminal", async () => {
    const signedIn = await viaAccess(signToken(claims(), teamKey));
    assert.equal(signedIn.status, 200, signedIn.text);
    const cookie = cookieSet(signedIn);
    assert.ok(cookie !== null, `no login cookie: ${JSON.stringify(signedIn.headers['set-cookie'])}`);
    assert.match(cookie, /^__Host-tend_login=/);
    assert.equal(team.fetches(), 1, 'the keys were fetched once, over HTTPS');

    const opened = await openTerminal(tunnel.port, { host: HOST, cookie, origin: `https://${HOST}` }, sessionId, MARK);
    assert.equal(opened.opened, true, JSON.stringify(opened));
    const refused = await openTerminal(tunnel.port, { host: HOST, origin: `https://${HOST}` }, sessionId, MARK);
    assert.equal(refused.opened, false);
    table.record('terminal WebSocket without the cookie', { status: 403 }, { status: refused.opened ? 101 : refused.status, note: refused.opened ? 'opened' : refused.message });
  });

  test('forged tokens are refused: wrong key, alg none, HS256 keyed with the public key', async () => {
    const stranger = makeTeamKey(teamKey.kid);
    expectRefused(table, 'JWT signed with a wrong key', await viaAccess(signToken(claims(), stranger)), /^cloudflare: .*signature does not match the team's key/);
    expectRefused(table, 'JWT with alg none', await viaAccess(unsignedToken(claims(), teamKey.kid)), /^cloudflare: .*signed with "none"; only RS256/);
    expectRefused(table, 'JWT HS256 keyed with the public key', await viaAccess(publicKeyHmacToken(claims(), teamKey)), /^cloudflare: .*signed with "HS256"; only RS256/);
  });

  test('tokens outside their time window are refused: expired, not yet valid', async () => {
    const now = nowSeconds();
    expectRefused(table, 'expired JWT', await viaAccess(signToken({ ...claims(), iat: now - 7200, nbf: now - 7200, exp: now - 600 }, teamKey)), /^cloudflare: .*expired at/);
    expectRefused(table, 'JWT not yet valid', await viaAccess(signToken({ ...claims(), nbf: now + 600 }, teamKey)), /^cloudflare: .*not valid before/);
  });

  test('a wrong issuer, a wrong audience and an email not on the list are refused', async () => {
    expectRefused(table, 'JWT from another issuer', await viaAccess(signToken({ ...claims(), iss: 'https://otherteam.cloudflareaccess.com' }, teamKey)), /^cloudflare: .*issued by "https:\/\/otherteam/);
    expectRefused(table, 'JWT for another audience', await viaAccess(signToken({ ...claims(), aud: ['another-application'] }, teamKey)), /^cloudflare: .*another Access application/);
    expectRefused(table, 'JWT email not on the list', await viaAccess(signToken(claims('mallory@example.com'), teamKey)), /^cloudflare: the email "mallory@example\.com" is not on this tend's list/);
  });

  test('a malformed token is refused', async () => {
    expectRefused(table, 'malformed JWT', await viaAccess('not.a-token'), /^cloudflare: .*three base64url parts/);
    expectRefused(table, 'JWT with padding', await viaAccess(`${signToken(claims(), teamKey)}==`), /^cloudflare: .*not base64url/);
  });

  test('an unknown kid fetches the keys again only after the cooldown, once', async () => {
    const before = team.fetches();
    const unknown = makeTeamKey('access-key-2');
    expectRefused(table, 'JWT with an unknown kid', await viaAccess(signToken(claims(), unknown)), /^cloudflare: .*not among the team's keys/);
    assert.equal(team.fetches(), before, 'fetched again within the cooldown');
    writeFileSync(clockFile, String(31_000));
    expectRefused(table, 'JWT with an unknown kid, after the cooldown', await viaAccess(signToken(claims(), unknown)), /^cloudflare: .*not among the team's keys/);
    assert.equal(team.fetches(), before + 1);
    expectRefused(table, 'JWT with another unknown kid', await viaAccess(signToken(claims(), makeTeamKey('access-key-3'))), /not among the team's keys/);
    assert.equal(team.fetches(), before + 1, 'fetched again within the cooldown');
  });

  test('a valid token on a Host that is not allowed (DNS rebinding) is refused before the token is read', async () => {
    const before = team.fetches();
    expectRefused(table, 'Access token on a Host not allowed', await viaAccess(signToken(claims(), teamKey), 'rebind.attacker.example'), /the Host "rebind\.attacker\.example" is not one/);
    assert.equal(team.fetches(), before);
  });
});
