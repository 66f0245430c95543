// The signing keys of a Cloudflare Access team, fetched from
// `${issuer}/cdn-cgi/access/certs` (a JWK set under `keys`) and kept a while.
// Access rotates its key every six weeks and keeps the old one valid for
// seven more days, so a token naming a key id not yet seen means the set has
// changed: it is fetched again, but at most once per cooldown, so a stream of
// tokens with made-up key ids cannot make tend hammer the team's endpoint.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { isLoopbackAddress } from './hosts.js';

/** Keys are kept this long before the set is fetched again. */
export const JWKS_CACHE_MS = 10 * 60 * 1000;
/** An unknown key id fetches the set again only if the last fetch is older than this. */
export const JWKS_REFETCH_COOLDOWN_MS = 30 * 1000;
/** Past this the fetch is abandoned and the token refused. */
export const JWKS_FETCH_TIMEOUT_MS = 5000;
/** A team's set is a few keys, a few kilobytes; more is not a key set. */
const JWKS_MAX_BYTES = 256 * 1024;
/** Keys kept from one set at most. */
const JWKS_MAX_KEYS = 32;

export interface JwksOptions {
  cacheMs?: number;
  refetchCooldownMs?: number;
  fetchTimeoutMs?: number;
  now?: () => number;
}

export type KeyLookup = { ok: true; key: KeyObject } | { ok: false; reason: string };

interface KeySet {
  keys: Map<string, KeyObject>;
  /** When the last fetch finished, successful or not. */
  fetchedAt: number;
  /** Why the last fetch failed, when it did. */
  failure: string | null;
}

export interface KeySets {
  /** The RS256 key with this id in the issuer's set, fetched or refetched as the cache rules allow; never throws. */
  keyFor(issuer: string, kid: string): Promise<KeyLookup>;
}

export function certsUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/cdn-cgi/access/certs`;
}

export function createKeySets(options: JwksOptions = {}): KeySets {
  const cacheMs = options.cacheMs ?? JWKS_CACHE_MS;
  const cooldownMs = options.refetchCooldownMs ?? JWKS_REFETCH_COOLDOWN_MS;
  const timeoutMs = options.fetchTimeoutMs ?? JWKS_FETCH_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const sets = new Map<string, KeySet>();
  const inFlight = new Map<string, Promise<KeySet>>();

  const refresh = (url: string): Promise<KeySet> => {
    const running = inFlight.get(url);
    if (running !== undefined) return running;
    const fetching = fetchKeySet(url, timeoutMs).then(
      (keys) => ({ keys, fetchedAt: now(), failure: null }),
      (err: unknown) => ({ keys: sets.get(url)?.keys ?? new Map<string, KeyObject>(), fetchedAt: now(), failure: (err as Error).message }),
    );
    const done = fetching.then((set) => {
      sets.set(url, set);
      inFlight.delete(url);
      return set;
    });
    inFlight.set(url, done);
    return done;
  };

  return {
    async keyFor(issuer, kid) {
      const url = certsUrl(issuer);
      const insecure = insecureUrlReason(url);
      if (insecure !== null) return { ok: false, reason: insecure };
      let set = sets.get(url);
      const t = now();
      if (set === undefined || t - set.fetchedAt >= cacheMs) set = await refresh(url);
      else if (!set.keys.has(kid) && t - set.fetchedAt >= cooldownMs) set = await refresh(url);
      const key = set.keys.get(kid);
      if (key !== undefined) return { ok: true, key };
      if (set.failure !== null) return { ok: false, reason: `the team's signing keys could not be fetched from ${url} (${set.failure})` };
      return { ok: false, reason: `the token names a key (kid ${JSON.stringify(kid)}) that is not among the team's keys at ${url}` };
    },
  };
}

/**
 * Keys fetched over plain HTTP could be anyone's: the issuer must be https,
 * except on a loopback address (a relay on this machine, or a test).
 */
function insecureUrlReason(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the Cloudflare issuer ${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.protocol === 'https:') return null;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || isLoopbackAddress(host);
  if (parsed.protocol === 'http:' && loopback) return null;
  return `the Cloudflare issuer must be an https URL (keys fetched over ${parsed.protocol} could be anyone's)`;
}

async function fetchKeySet(url: string, timeoutMs: number): Promise<Map<string, KeyObject>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error', headers: { accept: 'application/json' } }).catch((err: unknown) => {
    const name = (err as Error).name;
    throw new Error(name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `${(err as Error).message}${causeOf(err)}`);
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  const text = await readBounded(res, JWKS_MAX_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error('the answer is not JSON');
  }
  const list = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['keys'] : undefined;
  if (!Array.isArray(list)) throw new Error('the answer has no "keys" list');
  const keys = new Map<string, KeyObject>();
  for (const jwk of list.slice(0, JWKS_MAX_KEYS)) {
    const usable = rsaSigningKey(jwk);
    if (usable !== null && !keys.has(usable.kid)) keys.set(usable.kid, usable.key);
  }
  return keys;
}

/** An RSA public JWK meant for RS256 signatures, imported; null for anything else in the set. */
function rsaSigningKey(jwk: unknown): { kid: string; key: KeyObject } | null {
  if (typeof jwk !== 'object' || jwk === null) return null;
  const fields = jwk as Record<string, unknown>;
  if (fields['kty'] !== 'RSA' || typeof fields['kid'] !== 'string' || fields['kid'] === '') return null;
  if (fields['use'] !== undefined && fields['use'] !== 'sig') return null;
  if (fields['alg'] !== undefined && fields['alg'] !== 'RS256') return null;
  if (typeof fields['n'] !== 'string' || typeof fields['e'] !== 'string') return null;
  try {
    // Only the public members are passed, so a set that leaks a private
    // member still yields a public key.
    const key = createPublicKey({ key: { kty: 'RSA', n: fields['n'], e: fields['e'] }, format: 'jwk' });
    return { kid: fields['kid'], key };
  } catch {
    return null;
  }
}

async function readBounded(res: Response, limit: number): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause === undefined) return '';
  return ` (${cause.code ?? cause.message ?? 'unknown cause'})`;
}
