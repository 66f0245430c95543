// The secrets of remote access (login cookies, one-time links) are 32 random
// bytes in base64url; only their sha256 is ever stored, and a token is
// compared by its hash in constant time, so neither a stolen file nor the
// time a comparison takes gives a usable token away.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_BYTES = 32;
/** base64url of 32 bytes. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether two hex hashes are equal, taking the same time wherever they differ. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A short id for a person to name a login by (`tend remote revoke ID`); not a secret. */
export function newLoginId(): string {
  return randomBytes(6).toString('hex');
}
