// The login cookie on the wire: `tend_login=ID.TOKEN`, HttpOnly (no script
// reads it), SameSite=Lax (another site's page cannot post with it), Path=/,
// 30 days, and Secure when the browser reached tend over HTTPS: a TLS socket,
// or X-Forwarded-Proto https from a proxy on this machine (a loopback peer;
// the header from anyone else is only a claim). A Secure cookie takes the
// __Host- prefix, which browsers keep from being set with a Domain or by
// plain HTTP. The Host the cookie was issued for is kept with its hash
// (logins.ts), so a cookie carried to another host is refused there.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { isLoopbackAddress } from './hosts.js';

export const COOKIE_NAME = 'tend_login';
export const SECURE_COOKIE_NAME = '__Host-tend_login';
/** A Cookie header longer than this is not read (the 16 KiB header limit bounds it anyway). */
const MAX_COOKIE_HEADER_CHARS = 8192;

export function requestIsHttps(req: IncomingMessage): boolean {
  if ((req.socket as TLSSocket).encrypted === true) return true;
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https' && isLoopbackAddress(req.socket.remoteAddress);
}

export function loginCookieHeader(value: string, options: { secure: boolean; maxAgeMs: number }): string {
  const name = options.secure ? SECURE_COOKIE_NAME : COOKIE_NAME;
  const parts = [`${name}=${value}`, `Max-Age=${Math.floor(options.maxAgeMs / 1000)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Headers that make the browser forget a cookie that no longer lets it in. */
export function clearLoginCookieHeaders(secure: boolean): string[] {
  const clear = [`${COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`];
  if (secure) clear.push(`${SECURE_COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure`);
  return clear;
}

/** The login cookies a request carries (either name; a browser may hold both). */
export function loginCookiesOf(req: IncomingMessage): string[] {
  const header = req.headers.cookie;
  if (header === undefined || header.length > MAX_COOKIE_HEADER_CHARS) return [];
  const found: string[] = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    const name = pair.slice(0, eq).trim();
    if (name === COOKIE_NAME || name === SECURE_COOKIE_NAME) found.push(pair.slice(eq + 1).trim());
  }
  return found;
}
