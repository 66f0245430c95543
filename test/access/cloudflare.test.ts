// The Cloudflare Access identity check (src/server/access/cloudflare.ts,
// jwt.ts, jwks.ts) against real requests: a real HTTP server whose handler
// asks the verifier about each request, a stand-in Access team serving its
// keys over HTTP (keys the test made), and tokens minted by the test — the
// good ones and every forgery in the list. The verifier's clock is
// the test's, so expiry and the key cache's timing are exact. Each attack is
// recorded in the file's attack table.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { cloudflareVerifier } from '../../src/server/access/cloudflare.js';
import { decodeBase64url } from '../../src/server/access/jwt.js';
import type { IdentityVerdict, IdentityVerifier, RemoteSettings } from '../../src/server/access/identity.js';
import { attackTable } from './attack-table.js';
import { accessClaims, makeTeamKey, publicKeyHmacToken, signToken, startAccessTeam, unsignedToken, type AccessTeam, type TeamKey } from './cloudflare-stand-in.js';

const TEST_TIMEOUT_MS = 60_000;
const AUDIENCE = '4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2';
const ALICE = 'alice@example.com';
const table = attackTable('Cloudflare Access identity, verifier level');

interface Answer {
  status: number;
  verdict: IdentityVerdict;
}

let team: AccessTeam;
let teamKey: TeamKey;
let strangerKey: TeamKey;
let server: Server;
let port: number;
let verifier: IdentityVerifier;
let settings: RemoteSettings;
/** The verifier's clock, in milliseconds; tests move it. */
let clockMs = Date.UTC(2026, 11, 6, 12, 0, 0);
const nowSeconds = () => Math.floor(clockMs / 1000);

function freshVerifier(): IdentityVerifier {
  return cloudflareVerifier({ now: () => clockMs });
}

function statusOf(verdict: IdentityVerdict): number {
  return verdict.kind === 'verified' ? 200 : verdict.kind === 'absent' ? 401 : 403;
}

function ask(headers: Record<string, string | string[]>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, verdict: JSON.parse(text) as IdentityVerdict }));
    });
    req.on('error', reject);
    req.end();
  });
}

const withToken = (token: string) => ask({ 'cf-access-jwt-assertion': token });

function reasonOf(verdict: IdentityVerdict): string {
  return verdict.kind === 'refused' ? verdict.reason : verdict.kind;
}

function expectRefused(attack: string, answer: Answer, why: RegExp): void {
  table.record(attack, { status: 403, words: 'refused' }, { status: answer.status, note: reasonOf(answer.verdict) }, answer.status === 403 && why.test(reasonOf(answer.verdict)));
  assert.equal(answer.verdict.kind, 'refused', JSON.stringify(answer.verdict));
  assert.match(reasonOf(answer.verdict), why);
}

function expectVerified(answer: Answer, login = ALICE): void {
  assert.deepEqual(answer.verdict, { kind: 'verified', method: 'cloudflare', login });
}

const goodClaims = (email = ALICE) => accessClaims(team, email, nowSeconds());

before(async () => {
  teamKey = makeTeamKey('team-key-1');
  strangerKey = makeTeamKey('team-key-1'); // same kid, another key: a forger's
  team = await startAccessTeam(AUDIENCE, [teamKey]);
  settings = { enabled: true, listen: [], allowedHosts: [], tailscaleLogins: [], cloudflare: { issuer: team.issuer, audience: AUDIENCE, emails: [ALICE, 'Carol@Example.com'] } };
  server = createServer((req, res) => {
    void verifier.verify(req, settings).then((verdict) => {
      res.writeHead(statusOf(verdict), { 'content-type': 'application/json' });
      res.end(JSON.stringify(verdict));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await team.close();
});

describe('cloudflare access identity: verifier', { timeout: TEST_TIMEOUT_MS }, () => {
  test('no Cf-Access-Jwt-Assertion header is absent; the CF_Authorization cookie alone is not read', async () => {
    verifier = freshVerifier();
    assert.deepEqual((await ask({})).verdict, { kind: 'absent' });
    const cookie = await ask({ cookie: `CF_Authorization=${signToken(goodClaims(), teamKey)}` });
    assert.deepEqual(cookie.verdict, { kind: 'absent' });
  });

  test("a token signed with the team's key, for this audience, by a listed email, is verified (email case aside)", async () => {
    verifier = freshVerifier();
    expectVerified(await withToken(signToken(goodClaims(), teamKey)));
    expectVerified(await withToken(signToken(goodClaims('carol@example.COM'), teamKey)), 'carol@example.COM');
    // aud as a single string, as the JWT spec allows.
    expectVerified(await withToken(signToken({ ...goodClaims(), aud: AUDIENCE }, teamKey)));
  });

  test('the key set is fetched once for many requests, and kept for 10 minutes', async () => {
    verifier = freshVerifier();
    const before = team.fetches();
    const answers = await Promise.all(Array.from({ length: 8 }, () => withToken(signToken(goodClaims(), teamKey))));
    for (const a of answers) expectVerified(a);
    assert.equal(team.fetches() - before, 1);
    clockMs += 9 * 60_000;
    expectVerified(await withToken(signToken(goodClaims(), teamKey)));
    assert.equal(team.fetches() - before, 1);
    clockMs += 2 * 60_000;
    expectVerified(await withToken(signToken(goodClaims(), teamKey)));
    assert.equal(team.fetches() - before, 2, 'the set was not fetched again after 10 minutes');
  });

  test('a token signed with another key (the same kid) is refused', async () => {
    verifier = freshVerifier();
    expectRefused('JWT signed with a wrong key', await withToken(signToken(goodClaims(), strangerKey)), /signature does not match the team's key/);
  });

  test('a token whose payload was changed after signing is refused', async () => {
    verifier = freshVerifier();
    const [head, , signature] = signToken(goodClaims('mallory@example.com'), teamKey).split('.');
    const swapped = Buffer.from(JSON.stringify(goodClaims())).toString('base64url');
    expectRefused('JWT payload swapped under a valid signature', await withToken(`${head}.${swapped}.${signature}`), /signature does not match/);
  });

  test('alg none is refused, and fetches no keys', async () => {
    verifier = freshVerifier();
    const before = team.fetches();
    expectRefused('JWT with alg none', await withToken(unsignedToken(goodClaims(), teamKey.kid)), /signed with "none"; only RS256/);
    assert.equal(team.fetches(), before);
  });

  test('HS256 keyed with the public key (key confusion) is refused', async () => {
    verifier = freshVerifier();
    expectRefused('JWT HS256 keyed with the public key', await withToken(publicKeyHmacToken(goodClaims(), teamKey)), /signed with "HS256"; only RS256/);
    // The same bytes claimed as RS256 are no RSA signature either.
    const confused = publicKeyHmacToken(goodClaims(), teamKey).split('.');
    const relabelled = [Buffer.from(JSON.stringify({ alg: 'RS256', kid: teamKey.kid })).toString('base64url'), confused[1], confused[2]].join('.');
    expectRefused('HMAC bytes relabelled RS256', await withToken(relabelled), /signature does not match/);
  });

  test('other algorithms are refused: RS512, PS256, ES256', async () => {
    verifier = freshVerifier();
    for (const alg of ['RS512', 'PS256', 'ES256']) {
      expectRefused(`JWT with alg ${alg}`, await withToken(signToken(goodClaims(), teamKey, { alg })), new RegExp(`signed with "${alg}"; only RS256`));
    }
  });

  test('an expired token is refused; one within the minute of leeway is taken', async () => {
    verifier = freshVerifier();
    const now = nowSeconds();
    expectRefused('expired JWT', await withToken(signToken({ ...goodClaims(), iat: now - 7200, nbf: now - 7200, exp: now - 61 }, teamKey)), /expired at/);
    expectVerified(await withToken(signToken({ ...goodClaims(), iat: now - 7200, nbf: now - 7200, exp: now - 30 }, teamKey)));
    expectRefused('JWT without exp', await withToken(signToken({ ...goodClaims(), exp: undefined }, teamKey)), /no expiry/);
  });

  test('a token not yet valid (nbf or iat in the future) is refused', async () => {
    verifier = freshVerifier();
    const now = nowSeconds();
    expectRefused('JWT not yet valid (nbf)', await withToken(signToken({ ...goodClaims(), nbf: now + 120 }, teamKey)), /not valid before/);
    expectRefused('JWT issued in the future (iat)', await withToken(signToken({ ...goodClaims(), iat: now + 120 }, teamKey)), /issued in the future/);
    expectVerified(await withToken(signToken({ ...goodClaims(), nbf: now + 30, iat: now + 30 }, teamKey)));
  });

  test('a wrong issuer and a wrong audience are refused', async () => {
    verifier = freshVerifier();
    expectRefused('JWT from another issuer', await withToken(signToken({ ...goodClaims(), iss: 'https://otherteam.cloudflareaccess.com' }, teamKey)), /issued by "https:\/\/otherteam/);
    expectRefused('JWT for another audience', await withToken(signToken({ ...goodClaims(), aud: ['0123abcd'] }, teamKey)), /another Access application/);
    expectRefused('JWT with no audience', await withToken(signToken({ ...goodClaims(), aud: undefined }, teamKey)), /another Access application/);
  });

  test('an email not on the list, and a service token without an email, are refused', async () => {
    verifier = freshVerifier();
    expectRefused('JWT email not on the list', await withToken(signToken(goodClaims('mallory@example.com'), teamKey)), /"mallory@example\.com" is not on this tend's list/);
    const service = { ...goodClaims(), email: undefined, common_name: 'a1b2c3.access' };
    expectRefused('service token (no email)', await withToken(signToken(service, teamKey)), /names no email/);
  });

  test('an unknown kid fetches the keys again once per cooldown, and a rotated key is then found', async () => {
    verifier = freshVerifier();
    expectVerified(await withToken(signToken(goodClaims(), teamKey)));
    const start = team.fetches();
    const unknown = makeTeamKey('team-key-2');
    expectRefused('JWT with an unknown kid', await withToken(signToken(goodClaims(), unknown)), /not among the team's keys/);
    // The set was fetched moments ago: no refetch within the cooldown.
    assert.equal(team.fetches(), start);
    clockMs += 31_000;
    expectRefused('JWT with an unknown kid, after the cooldown', await withToken(signToken(goodClaims(), unknown)), /not among the team's keys/);
    assert.equal(team.fetches(), start + 1);
    for (let i = 0; i < 5; i++) await withToken(signToken(goodClaims(), makeTeamKey(`made-up-${i}`)));
    assert.equal(team.fetches(), start + 1, 'made-up kids fetched the keys again within the cooldown');
    // Access rotates: the new key is published beside the old.
    team.keys = [teamKey, unknown];
    clockMs += 31_000;
    expectVerified(await withToken(signToken(goodClaims(), unknown)));
    assert.equal(team.fetches(), start + 2);
    expectVerified(await withToken(signToken(goodClaims(), teamKey)));
    team.keys = [teamKey];
  });

  test('malformed tokens are refused before any key is fetched', async () => {
    verifier = freshVerifier();
    const before = team.fetches();
    const good = signToken(goodClaims(), teamKey);
    const [head = '', body = '', signature = ''] = good.split('.');
    const cases: Array<[string, string, RegExp]> = [
      ['two parts', `${head}.${body}`, /three base64url parts/],
      ['four parts', `${good}.${signature}`, /three base64url parts/],
      ['padding in a part', `${head}=.${body}.${signature}`, /header is not a base64url-encoded JSON object/],
      ['standard base64 characters', `${head}.${body}.${signature.replace(/-/g, '+').replace(/_/g, '/')}+/`, /signature is not base64url/],
      ['header not JSON', `${Buffer.from('{"alg":"RS256",').toString('base64url')}.${body}.${signature}`, /header is not a base64url-encoded JSON object/],
      ['header a JSON array', `${Buffer.from('["RS256"]').toString('base64url')}.${body}.${signature}`, /header is not/],
      ['no kid', `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${body}.${signature}`, /names no key/],
      ['crit extension', signToken(goodClaims(), teamKey, { crit: ['exp'], exp: 1 }), /critical extensions/],
      ['oversized (10 KB)', signToken({ ...goodClaims(), pad: 'x'.repeat(10_000) }, teamKey), /longer than 8192 bytes/],
      ['empty', '', /the token is empty/],
    ];
    for (const [what, token, why] of cases) expectRefused(`malformed JWT: ${what}`, await withToken(token), why);
    const twice = await ask({ 'cf-access-jwt-assertion': [good, good] });
    expectRefused('Cf-Access-Jwt-Assertion sent twice', twice, /more than once/);
    assert.equal(team.fetches(), before);
  });

  test('a token, when Cloudflare Access is not set up, is refused', async () => {
    verifier = freshVerifier();
    const saved = settings;
    settings = { ...settings, cloudflare: null };
    try {
      expectRefused('Access token while Access is off', await withToken(signToken(goodClaims(), teamKey)), /Cloudflare Access is not set up/);
    } finally {
      settings = saved;
    }
  });

  test('keys that cannot be fetched (error, redirect, not JSON, too large, plain HTTP elsewhere, nobody listening) refuse the token', async () => {
    const cases: Array<[string, { status: number; body: string; headers?: Record<string, string> }, RegExp]> = [
      ['key endpoint answers 500', { status: 500, body: 'oops' }, /could not be fetched .*HTTP 500/],
      ['key endpoint redirects', { status: 302, body: '', headers: { location: 'http://127.0.0.1:1/keys' } }, /could not be fetched/],
      ['key endpoint not JSON', { status: 200, body: '<html>' }, /could not be fetched .*not JSON/],
      ['key endpoint too large', { status: 200, body: `{"keys":[],"pad":"${'x'.repeat(300 * 1024)}"}` }, /could not be fetched .*larger than/],
    ];
    for (const [what, answer, why] of cases) {
      verifier = freshVerifier();
      team.answerWith(answer);
      expectRefused(`JWT while the ${what}`, await withToken(signToken(goodClaims(), teamKey)), why);
    }
    team.answerWith(null);
    verifier = freshVerifier();
    const saved = settings;
    try {
      settings = { ...saved, cloudflare: { ...saved.cloudflare!, issuer: 'http://example.com' } };
      expectRefused('issuer over plain HTTP', await withToken(signToken({ ...goodClaims(), iss: 'http://example.com' }, teamKey)), /must be an https URL/);
      settings = { ...saved, cloudflare: { ...saved.cloudflare!, issuer: 'http://127.0.0.1:1' } };
      expectRefused('key endpoint with nobody listening', await withToken(signToken({ ...goodClaims(), iss: 'http://127.0.0.1:1' }, teamKey)), /could not be fetched/);
    } finally {
      settings = saved;
    }
  });

  test('a team key shorter than 2048 bits is not trusted', async () => {
    const weak = makeTeamKey('weak-key', 1024);
    team.keys = [teamKey, weak];
    try {
      verifier = freshVerifier();
      expectRefused('JWT signed with a 1024-bit team key', await withToken(signToken(goodClaims(), weak)), /not an RSA key of at least 2048 bits/);
    } finally {
      team.keys = [teamKey];
    }
  });
});

describe('cloudflare access identity: base64url', () => {
  test('only canonical unpadded base64url decodes', () => {
    assert.deepEqual(decodeBase64url('AQID'), Buffer.from([1, 2, 3]));
    assert.equal(decodeBase64url('AQI='), null);
    assert.equal(decodeBase64url('AQJ'), null, 'stray low bits: a second spelling of AQI');
    assert.equal(decodeBase64url('A'), null);
    assert.equal(decodeBase64url('A+/B'), null);
    assert.equal(decodeBase64url(''), null);
  });
});
