// A compact JWS (the JWT Cloudflare Access sends) read strictly and checked
// with node:crypto. Only RS256 is accepted: a token names its own algorithm,
// and a verifier that follows it can be told "none" (no signature) or
// "HS256" (an HMAC keyed with the public key, which anyone has). Sizes are
// bounded before anything is decoded, base64url must be canonical (no
// padding, no stray characters, no second spelling of the same bytes), and
// the header may carry nothing the checker does not understand (`crit`).
import { verify, type KeyObject } from 'node:crypto';

/** Access tokens are one to two kilobytes (a few claims and a 2048-bit signature); far more is not one. */
export const JWT_MAX_BYTES = 8 * 1024;
/** A key id is a short hash; a longer one is not worth looking up. */
const KID_MAX_CHARS = 256;
/** The one algorithm Cloudflare Access signs with. */
export const JWT_ALGORITHM = 'RS256';
/** RSA keys shorter than this are refused (Access uses 2048-bit keys). */
const RSA_MIN_MODULUS_BITS = 2048;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface ParsedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  kid: string;
  /** The bytes signed: the first two parts as they came. */
  signingInput: Buffer;
  signature: Buffer;
}

export type JwtParse = { ok: true; jwt: ParsedJwt } | { ok: false; reason: string };

/** Parses a compact JWS whose header pins RS256 and names a key; never throws. */
export function parseJwt(token: string): JwtParse {
  const fail = (reason: string): JwtParse => ({ ok: false, reason });
  if (token.length === 0) return fail('the token is empty');
  if (token.length > JWT_MAX_BYTES) return fail(`the token is longer than ${JWT_MAX_BYTES} bytes`);
  const parts = token.split('.');
  if (parts.length !== 3) return fail('the token is not three base64url parts joined by dots');
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  // The header first: a token that names another algorithm is refused for
  // that, before its other parts are read.
  const header = decodeJsonPart(headerPart);
  if (header === null) return fail('the token header is not a base64url-encoded JSON object');
  const alg = header['alg'];
  if (alg !== JWT_ALGORITHM) return fail(`the token is signed with ${JSON.stringify(alg ?? null)}; only ${JWT_ALGORITHM} is accepted`);
  if (header['crit'] !== undefined) return fail('the token header has critical extensions this checker does not know');
  if (header['typ'] !== undefined && header['typ'] !== 'JWT') return fail(`the token's type is ${JSON.stringify(header['typ'])}, not "JWT"`);
  const kid = header['kid'];
  if (typeof kid !== 'string' || kid === '' || kid.length > KID_MAX_CHARS) return fail('the token header names no key (kid)');
  const payload = decodeJsonPart(payloadPart);
  if (payload === null) return fail('the token payload is not a base64url-encoded JSON object');
  const signature = decodeBase64url(signaturePart);
  if (signature === null) return fail('the token signature is not base64url');
  return { ok: true, jwt: { header, payload, kid, signingInput: Buffer.from(`${headerPart}.${payloadPart}`, 'ascii'), signature } };
}

/** Why `jwt` is not signed by RS256 with the private half of `key` (an RSA public key), or null when it is. */
export function signatureRefusal(jwt: ParsedJwt, key: KeyObject): string | null {
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.type !== 'public' || key.asymmetricKeyType !== 'rsa' || bits < RSA_MIN_MODULUS_BITS) {
    return `the team's key for this token is not an RSA key of at least ${RSA_MIN_MODULUS_BITS} bits`;
  }
  const mismatch = "the token's signature does not match the team's key";
  // An RS256 signature is exactly as long as the modulus.
  if (jwt.signature.length !== Math.ceil(bits / 8)) return mismatch;
  try {
    return verify('sha256', jwt.signingInput, key, jwt.signature) ? null : mismatch;
  } catch {
    return mismatch;
  }
}

/** Bytes of a canonical unpadded base64url string, or null. */
export function decodeBase64url(text: string): Buffer | null {
  if (text.length === 0 || !BASE64URL.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  // Node ignores stray low bits in the last character; a second spelling of
  // the same bytes is refused so a token has exactly one form.
  if (bytes.toString('base64url') !== text) return null;
  return bytes;
}

function decodeJsonPart(text: string): Record<string, unknown> | null {
  const bytes = decodeBase64url(text);
  if (bytes === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}
