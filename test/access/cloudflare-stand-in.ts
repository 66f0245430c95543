// Test support: a stand-in Cloudflare Access team for the Access identity
// tests (issue 28). It serves the team's signing keys at
// /cdn-cgi/access/certs as Access does (a `keys` JWK set of RS256 keys) from
// a real HTTP server on 127.0.0.1, with keys the test made, counting the
// fetches; and it mints application tokens (compact JWS) with any header,
// payload and key a test wants, including the forged ones.
import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TeamKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface AccessTeam {
  /** The issuer: https://127.0.0.1:PORT with `tls`, else http://127.0.0.1:PORT (the verifier allows plain HTTP on loopback only). */
  readonly issuer: string;
  readonly audience: string;
  /** The keys served now; a test may push, remove or replace them (a rotation). */
  keys: TeamKey[];
  /** How many times the key set was fetched. */
  fetches(): number;
  /** What the certs endpoint answers instead of the keys, until set back to null. */
  answerWith(answer: { status: number; body: string; headers?: Record<string, string> } | null): void;
  close(): Promise<void>;
}

export function makeTeamKey(kid: string, modulusLength = 2048): TeamKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength });
  return { kid, privateKey, publicKey };
}

/** A certificate for 127.0.0.1 and localhost, signed by itself, made with openssl in `dir`: what a tend server is told to trust (NODE_EXTRA_CA_CERTS) to fetch keys over HTTPS. */
export function makeSelfSignedCert(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'team-key.pem');
  const certFile = join(dir, 'team-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

export async function startAccessTeam(audience: string, keys: TeamKey[], options: { tls?: { key: string; cert: string } } = {}): Promise<AccessTeam> {
  let fetches = 0;
  let override: { status: number; body: string; headers?: Record<string, string> } | null = null;
  let current = keys;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url !== '/cdn-cgi/access/certs') {
      res.writeHead(404).end();
      return;
    }
    fetches++;
    if (override !== null) {
      res.writeHead(override.status, { 'content-type': 'application/json', ...override.headers });
      res.end(override.body);
      return;
    }
    const jwks = current.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, alg: 'RS256', use: 'sig' }));
    const first = jwks[0];
    // Access also lists PEM certificates; the verifier reads `keys` only.
    const body = { keys: jwks, public_cert: first === undefined ? undefined : { kid: first.kid, cert: '(not read)' }, public_certs: jwks.map((k) => ({ kid: k.kid, cert: '(not read)' })) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = options.tls === undefined ? createHttpServer(handle) : createHttpsServer(options.tls, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    issuer: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    audience,
    get keys() {
      return current;
    },
    set keys(next: TeamKey[]) {
      current = next;
    },
    fetches: () => fetches,
    answerWith(answer) {
      override = answer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const b64url = (value: Buffer | string): string => Buffer.from(value).toString('base64url');

/** The claims of an Access application token for `email`, valid from `nowSeconds` for an hour. */
export function accessClaims(team: { issuer: string; audience: string }, email: string, nowSeconds: number): Record<string, unknown> {
  return {
    aud: [team.audience],
    email,
    exp: nowSeconds + 3600,
    iat: nowSeconds,
    nbf: nowSeconds,
    iss: team.issuer,
    type: 'app',
    identity_nonce: 'nonce-6ei6ba2ufAzKj6gw',
    sub: '7335d417-61da-459d-899c-0a01c76a2f94',
    country: 'NL',
  };
}

/** A compact JWS signed RS256 with `key`, its header naming `kid`, plus any header fields given. */
export function signToken(payload: Record<string, unknown>, key: { kid: string; privateKey: KeyObject }, header: Record<string, unknown> = {}): string {
  const head = b64url(JSON.stringify({ alg: 'RS256', kid: key.kid, typ: 'JWT', ...header }));
  const body = b64url(JSON.stringify(payload));
  const signature = sign('sha256', Buffer.from(`${head}.${body}`), key.privateKey);
  return `${head}.${body}.${b64url(signature)}`;
}

/** `alg: none`: no signature at all. */
export function unsignedToken(payload: Record<string, unknown>, kid: string): string {
  return `${b64url(JSON.stringify({ alg: 'none', kid, typ: 'JWT' }))}.${b64url(JSON.stringify(payload))}.`;
}

/** HS256 keyed with the team's public key as PEM text: the key confusion a verifier that follows `alg` falls for. */
export function publicKeyHmacToken(payload: Record<string, unknown>, key: TeamKey): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', kid: key.kid, typ: 'JWT' }));
  const body = b64url(JSON.stringify(payload));
  const pem = key.publicKey.export({ format: 'pem', type: 'spki' });
  const mac = createHmac('sha256', pem).update(`${head}.${body}`).digest();
  return `${head}.${body}.${b64url(mac)}`;
}
