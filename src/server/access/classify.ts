// Who is calling, before any credential is looked at (identity.ts's
// CallerClass):
//   * local: this user's own process straight to tend: a loopback peer whose
//     socket this user owns, no forwarding header at all, and a Host that is
//     this listener's own 127.0.0.1:PORT or localhost:PORT. Trusted as before
//     the gate existed.
//   * local-proxy: a proxy on this machine (a loopback peer) that says it
//     forwards for a loopback address, with no proxy identity headers: a
//     browser on this machine behind `tailscale serve` or a reverse proxy.
//   * remote: anyone else: a forwarded caller from another address, any
//     caller on a --listen address that is not loopback, and a loopback
//     caller of another user (a port on 127.0.0.1 is open to every user).
// local-proxy and remote both pass the gate; the difference is for the log
// and `tend remote status`. `why` says what kept a caller from being local,
// for the refusal a caller gets while remote access is off.
import type { IncomingMessage } from 'node:http';
import type { CallerClass } from './identity.js';
import { isLoopbackAddress } from './hosts.js';

/** What the listener found out about the peer's user (loopback.ts, once per connection). */
export type PeerUser =
  | { kind: 'this-user' }
  /** Another user, no user found, or no way to tell: why, in words a person can act on. */
  | { kind: 'not-this-user'; why: string };

/** Headers a proxy adds; one of them on a request means it did not come straight from a local program. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'via'];
/** Identity headers of the proxies tend knows: their presence makes a caller remote whatever it forwards for. */
const IDENTITY_HEADER_PREFIXES = ['tailscale-', 'cf-'];

export interface Classification {
  caller: CallerClass;
  /** Why the caller is not local; null when it is. */
  why: string | null;
}

function forwardingHeaders(req: IncomingMessage): string[] {
  return Object.keys(req.headers).filter((h) => FORWARDING_HEADERS.includes(h) || IDENTITY_HEADER_PREFIXES.some((p) => h.startsWith(p)));
}

/** The addresses a request says it was forwarded for, from every header that can say so. */
export function forwardedFor(req: IncomingMessage): string[] {
  const out: string[] = [];
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')));
  for (const part of list(req.headers['x-forwarded-for'])) out.push(part.trim());
  for (const part of list(req.headers['x-real-ip'])) out.push(part.trim());
  for (const part of list(req.headers.forwarded)) {
    for (const pair of part.split(';')) {
      const [key, value] = pair.split('=');
      if (key?.trim().toLowerCase() === 'for' && value !== undefined) out.push(stripPort(value.trim().replace(/^"|"$/g, '')));
    }
  }
  return out.filter((a) => a !== '');
}

/** "[::1]:1234" → "::1", "127.0.0.1:1234" → "127.0.0.1"; a bare address stays. */
function stripPort(address: string): string {
  if (address.startsWith('[')) return address.slice(1, address.indexOf(']') === -1 ? undefined : address.indexOf(']'));
  const colons = address.split(':').length - 1;
  return colons === 1 ? address.slice(0, address.indexOf(':')) : address;
}

export function classifyCaller(req: IncomingMessage, peer: PeerUser, localHosts: readonly string[]): Classification {
  const peerIsLoopback = isLoopbackAddress(req.socket.remoteAddress);
  const forwarding = forwardingHeaders(req);
  if (forwarding.length > 0) {
    const claimed = forwardedFor(req);
    const identity = forwarding.some((h) => IDENTITY_HEADER_PREFIXES.some((p) => h.startsWith(p)));
    const why = `the request came through a proxy (it carries ${forwarding.join(', ')})`;
    if (peerIsLoopback && !identity && claimed.length > 0 && claimed.every((a) => isLoopbackAddress(stripPort(a)))) return { caller: 'local-proxy', why };
    return { caller: 'remote', why };
  }
  if (!peerIsLoopback) return { caller: 'remote', why: `the caller is at ${req.socket.remoteAddress ?? 'an unknown address'}, not on this machine's loopback` };
  if (peer.kind !== 'this-user') return { caller: 'remote', why: peer.why };
  const host = req.headers.host;
  if (host === undefined || !localHosts.includes(host.toLowerCase())) {
    return { caller: 'remote', why: `the Host header must be ${localHosts.join(' or ')}, not ${host === undefined ? 'missing' : JSON.stringify(host)}` };
  }
  return { caller: 'local', why: null };
}
