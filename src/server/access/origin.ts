// A write (anything but GET and HEAD) or a WebSocket upgrade that names an
// Origin must name the page's own: the Host it was sent to. Another site's
// page can make a browser send a request anywhere, cookies and all
// (SameSite=Lax keeps them off cross-site POSTs in today's browsers, not in
// every browser, and never off a WebSocket); this check is what stops it.
// Reads are left to the browser: no CORS header is ever sent, so another
// origin cannot read an answer. A request with no Origin is not a browser's
// cross-origin one.
import type { IncomingMessage } from 'node:http';
import { canonicalHost } from './hosts.js';

export function isWriteOrUpgrade(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET';
  return (method !== 'GET' && method !== 'HEAD') || req.headers.upgrade !== undefined;
}

/** Why this request's Origin may not change anything here, or null. */
export function originRefusal(req: IncomingMessage): string | null {
  if (!isWriteOrUpgrade(req)) return null;
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  const refused = `requests from the page at ${JSON.stringify(origin)} may not change anything here`;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return refused;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refused;
  const host = canonicalHost(req.headers.host);
  return host !== null && canonicalHost(url.host) === host ? null : refused;
}
