// Tailscale identity (issue 28; DESIGN.md "Access"). `tailscale serve`, in
// front of tend on 127.0.0.1, deletes any incoming Tailscale-User-* headers
// and sets Tailscale-User-Login to the tailnet user it proxies for. But any
// program that reaches 127.0.0.1 can send the same headers, so they are a
// claim, never proof. The claim holds only when
//   * the connection comes from loopback (serve proxies to 127.0.0.1), and on
//     Linux from a socket of root (tailscaled) or of this user (tailscaled in
//     userspace), so another user of this machine cannot forge it;
//   * the last X-Forwarded-For hop (the one serve appended) is a tailnet
//     address (100.64.0.0/10 or fd7a:115c:a1e0::/48);
//   * `tailscale whois --json` for that address names a user (a tagged node
//     has no user identity) whose LoginName is the header's login;
//   * that login is on tend's own list.
import { execFile } from 'node:child_process';
import { BlockList, isIP, isIPv4, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { loopbackPeerUid, peerLookupFor, type PeerLookup } from './peer-uid.js';
import { isLoopbackAddress } from './hosts.js';
import type { IdentityVerdict, IdentityVerifier, RemoteSettings } from './identity.js';

/** whois answers from tailscaled's memory in milliseconds; past this the caller is refused rather than held. */
const WHOIS_TIMEOUT_MS = 3000;
/** A tailnet address keeps its owner for a long time; a short cache spares a process per request of a page load. */
const WHOIS_CACHE_MS = 30_000;
/** A failed whois is remembered too, so forged requests cannot start a process each. */
const WHOIS_FAILURE_CACHE_MS = 5_000;
/** Entries kept at most; the oldest go first. */
const WHOIS_CACHE_ENTRIES = 256;
/** A whois answer is a few kilobytes (a node and a user); more is not a whois answer. */
const WHOIS_OUTPUT_BYTES = 256 * 1024;
/** Logins are email-like names; a longer header is not one `tailscale serve` set. */
const LOGIN_HEADER_BYTES = 1024;
/** X-Forwarded-For of a single proxy hop is one address; a chain of proxies a few. */
const FORWARDED_FOR_BYTES = 2048;

/** The headers `tailscale serve` sets for a tailnet user; any of them is a claim of identity. */
const IDENTITY_HEADERS = ['tailscale-user-login', 'tailscale-user-name', 'tailscale-user-profile-pic'];
/** Set by serve for Funnel traffic (the public internet), which never carries a user. */
const FUNNEL_HEADER = 'tailscale-funnel-request';

const TAILNET_ADDRESSES = new BlockList();
TAILNET_ADDRESSES.addSubnet('100.64.0.0', 10, 'ipv4');
TAILNET_ADDRESSES.addSubnet('fd7a:115c:a1e0::', 48, 'ipv6');

export interface TailscaleVerifierOptions {
  /** The program asked `whois --json ADDR`; "tailscale" from PATH by default. */
  tailscaleProgram?: string;
  whoisTimeoutMs?: number;
  /** How the loopback peer's user is found; this platform's means by default (only Linux's table is checked). */
  peerLookup?: PeerLookup;
  /** Users whose loopback sockets may carry the claim: root (tailscaled) and the server's own by default. */
  proxyUids?: number[];
  /** Milliseconds now, for the cache; Date.now by default. */
  now?: () => number;
}

/** What whois said about an address: a user's login, or why there is none. */
type WhoisAnswer = { ok: true; login: string } | { ok: false; reason: string };

export function tailscaleVerifier(options: TailscaleVerifierOptions = {}): IdentityVerifier {
  const program = options.tailscaleProgram ?? 'tailscale';
  const timeoutMs = options.whoisTimeoutMs ?? WHOIS_TIMEOUT_MS;
  const peerLookup = options.peerLookup ?? peerLookupFor(process.platform);
  const ownUid = process.getuid?.();
  const proxyUids = options.proxyUids ?? (ownUid === undefined ? [0] : [0, ownUid]);
  const now = options.now ?? Date.now;
  const cache = new Map<string, { answer: Promise<WhoisAnswer>; until: number }>();
  const proxyVerdicts = new WeakMap<Socket, string | null>();

  const whois = (address: string): Promise<WhoisAnswer> => {
    const t = now();
    const hit = cache.get(address);
    if (hit !== undefined && hit.until > t) return hit.answer;
    cache.delete(address);
    while (cache.size >= WHOIS_CACHE_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
    // In flight, the entry is shared (a page's requests ask once); once known,
    // a failure is kept for less time than an answer.
    const entry = { answer: runWhois(program, address, timeoutMs), until: t + WHOIS_CACHE_MS };
    cache.set(address, entry);
    void entry.answer.then((answer) => {
      if (!answer.ok) entry.until = Math.min(entry.until, now() + WHOIS_FAILURE_CACHE_MS);
    });
    return entry.answer;
  };

  const judge = async (req: IncomingMessage, settings: RemoteSettings): Promise<IdentityVerdict> => {
    const refuse = (reason: string): IdentityVerdict => ({ kind: 'refused', method: 'tailscale', reason });
    const claimed = IDENTITY_HEADERS.some((name) => req.headers[name] !== undefined);
    if (!claimed) return { kind: 'absent' };

    const logins = req.headersDistinct['tailscale-user-login'];
    if (logins === undefined) return refuse('Tailscale identity headers came without Tailscale-User-Login; `tailscale serve` sets it for every tailnet user');
    if (logins.length !== 1) return refuse('Tailscale-User-Login came more than once; `tailscale serve` sets it once');
    const rawLogin = logins[0] ?? '';
    if (rawLogin === '' || Buffer.byteLength(rawLogin) > LOGIN_HEADER_BYTES) return refuse('Tailscale-User-Login is empty or too long to be a login');
    if (req.headers[FUNNEL_HEADER] !== undefined) return refuse('the request came through Tailscale Funnel (the public internet), which carries no tailnet identity, yet names a user');
    const claimedLogin = decodeHeaderWords(rawLogin);
    if (claimedLogin === null) return refuse('Tailscale-User-Login is not a login `tailscale serve` would send (a malformed encoded word)');

    const peer = req.socket.remoteAddress;
    if (peer === undefined || !isLoopbackAddress(peer)) {
      return refuse(`Tailscale identity headers are believed only from \`tailscale serve\` on this machine; this request came straight from ${peer ?? 'an unknown address'}`);
    }
    // Once per connection: a socket cannot change owner, and the table costs
    // a read in proportion to every socket on the machine.
    let proxyRefusal = proxyVerdicts.get(req.socket);
    if (proxyRefusal === undefined) {
      proxyRefusal = proxyUserRefusal(req, peerLookup, proxyUids);
      proxyVerdicts.set(req.socket, proxyRefusal);
    }
    if (proxyRefusal !== null) return refuse(proxyRefusal);

    const hop = lastForwardedHop(req);
    if (!hop.ok) return refuse(hop.reason);
    if (!isTailnetAddress(hop.address)) {
      return refuse(`the last forwarded hop ${hop.address} is not a tailnet address (100.64.0.0/10 or fd7a:115c:a1e0::/48), so \`tailscale serve\` did not forward this request`);
    }

    const answer = await whois(hop.address);
    if (!answer.ok) return refuse(answer.reason);
    if (answer.login !== claimedLogin) {
      return refuse(`Tailscale-User-Login says ${JSON.stringify(claimedLogin)} but \`tailscale whois ${hop.address}\` says ${JSON.stringify(answer.login)}`);
    }
    const allowed = settings.tailscaleLogins.some((login) => login.toLowerCase() === answer.login.toLowerCase());
    if (!allowed) return refuse(`the Tailscale login ${JSON.stringify(answer.login)} is not on this tend's list (tend remote, on this machine, adds it)`);
    return { kind: 'verified', method: 'tailscale', login: answer.login };
  };

  return {
    method: 'tailscale',
    async verify(req, settings) {
      try {
        return await judge(req, settings);
      } catch (err) {
        return { kind: 'refused', method: 'tailscale', reason: `the Tailscale identity could not be checked (${(err as Error).message})` };
      }
    },
  };
}

export function isTailnetAddress(address: string): boolean {
  const type = isIP(address);
  if (type === 4) return TAILNET_ADDRESSES.check(address, 'ipv4');
  if (type === 6) return TAILNET_ADDRESSES.check(address, 'ipv6');
  return false;
}

/** The loopback peer's socket belongs to tailscaled (root) or to this user; checked where the system's table says so (Linux). */
function proxyUserRefusal(req: IncomingMessage, lookup: PeerLookup, proxyUids: number[]): string | null {
  // lsof (macOS) cannot see another user's sockets, root's included, so a
  // caller it cannot find is not evidence; only Linux's table is asked.
  if (lookup !== 'proc-net-tcp') return null;
  const { remoteAddress, remotePort } = req.socket;
  if (remoteAddress === undefined || remotePort === undefined) return 'the connection has no peer address';
  // /proc/net/tcp lists IPv4 sockets only; serve proxies to 127.0.0.1, and a
  // peer whose user cannot be looked up is not believed.
  if (!isIPv4(remoteAddress.replace(/^::ffff:/, ''))) return `Tailscale identity headers are believed only over 127.0.0.1, where the proxy's user can be checked, not from ${remoteAddress}`;
  const peer = loopbackPeerUid(remoteAddress, remotePort, lookup);
  if (!peer.known) return `the proxy's user could not be checked (${peer.reason})`;
  if (peer.uid === null) return 'the proxy on this machine could not be identified (its socket was not found)';
  if (!proxyUids.includes(peer.uid)) {
    return `Tailscale identity headers came from a process of uid ${peer.uid} on this machine; only tailscaled (root) or this user's own tailscaled is believed`;
  }
  return null;
}

/** The address the nearest proxy says it received the request from: the last entry of X-Forwarded-For. */
function lastForwardedHop(req: IncomingMessage): { ok: true; address: string } | { ok: false; reason: string } {
  const values = req.headersDistinct['x-forwarded-for'];
  if (values === undefined || values.length === 0) {
    return { ok: false, reason: 'Tailscale identity headers came without X-Forwarded-For; `tailscale serve` always names the tailnet address it forwards for' };
  }
  const last = values[values.length - 1] ?? '';
  if (Buffer.byteLength(last) > FORWARDED_FOR_BYTES) return { ok: false, reason: 'X-Forwarded-For is too long' };
  const hops = last.split(',');
  const address = (hops[hops.length - 1] ?? '').trim();
  if (isIP(address) === 0) return { ok: false, reason: `the last X-Forwarded-For hop ${JSON.stringify(address)} is not an IP address` };
  // Go's proxy writes an IPv4 client as a.b.c.d; a mapped form is read the same.
  const unmapped = address.toLowerCase().startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
  return { ok: true, address: unmapped };
}

function runWhois(program: string, address: string, timeoutMs: number): Promise<WhoisAnswer> {
  return new Promise((resolve) => {
    execFile(
      program,
      ['whois', '--json', address],
      { timeout: timeoutMs, maxBuffer: WHOIS_OUTPUT_BYTES, encoding: 'utf8', windowsHide: true },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') {
            resolve({ ok: false, reason: `\`${program}\` is not installed or not on the server's PATH, so Tailscale identities cannot be checked` });
          } else if (err.killed) {
            resolve({ ok: false, reason: `\`tailscale whois ${address}\` did not answer within ${timeoutMs} ms` });
          } else {
            const said = firstLine(stderr);
            resolve({ ok: false, reason: `\`tailscale whois ${address}\` knows no such tailnet peer${said === '' ? '' : ` (${said})`}` });
          }
          return;
        }
        resolve(parseWhois(stdout, address));
      },
    );
  });
}

/** Reads `tailscale whois --json` (apitype.WhoIsResponse: Node, UserProfile, CapMap). */
export function parseWhois(output: string, address: string): WhoisAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return { ok: false, reason: `\`tailscale whois ${address}\` did not answer in JSON` };
  }
  if (!isObject(parsed) || !isObject(parsed['Node']) || !isObject(parsed['UserProfile'])) {
    return { ok: false, reason: `\`tailscale whois ${address}\` answered without a Node and a UserProfile` };
  }
  const tags = parsed['Node']['Tags'];
  if (Array.isArray(tags) && tags.length > 0) {
    return { ok: false, reason: `${address} is a tagged Tailscale node (${tags.filter((t) => typeof t === 'string').join(', ')}), which has no user identity` };
  }
  const login = parsed['UserProfile']['LoginName'];
  if (typeof login !== 'string' || login === '') {
    return { ok: false, reason: `\`tailscale whois ${address}\` names no user login` };
  }
  return { ok: true, login };
}

/**
 * A header value as `tailscale serve` writes it: plain, or (for a name that
 * is not plain ASCII) RFC 2047 Q-encoded words in UTF-8, as Go's
 * mime.QEncoding writes them. Null when an encoded word is malformed.
 */
export function decodeHeaderWords(value: string): string | null {
  if (!value.startsWith('=?')) return value;
  const words = value.split(/[ \t]+/);
  const bytes: number[] = [];
  for (const word of words) {
    const match = /^=\?([^?]+)\?([qQ])\?([^?]*)\?=$/.exec(word);
    if (match === null || (match[1] ?? '').toLowerCase() !== 'utf-8') return null;
    const text = match[3] ?? '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '_') bytes.push(0x20);
      else if (c === '=') {
        const hex = text.slice(i + 1, i + 3);
        if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else {
        const code = text.charCodeAt(i);
        if (code < 0x21 || code > 0x7e) return null;
        bytes.push(code);
      }
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim().slice(0, 200);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
