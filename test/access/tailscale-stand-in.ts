// Test support: a stand-in `tailscale` program, and a stand-in `tailscale
// serve`, for the Tailscale identity tests (issue 28).
//
// The program is a shell script written to a temp dir that the test puts on
// PATH. It answers `tailscale whois --json ADDR` the way the real one does:
// an apitype.WhoIsResponse (Node, UserProfile, CapMap) for a peer it knows,
// an error on stderr and exit status 1 for an address it does not. What it
// knows is configurable per address (a file each), and each call is appended
// to a log, so a test can count the processes the verifier started.
//
// The serve stand-in is an HTTP proxy on 127.0.0.1 that does to a request
// what `tailscale serve` does (ipn/ipnlocal/serve.go): deletes incoming
// Tailscale-User-* headers, sets X-Forwarded-For to the tailnet address the
// request came from, and sets Tailscale-User-Login (RFC 2047 Q-encoded when
// not ASCII) for a user, none for a tagged node. The tailnet address is
// the one a test says the client has, as no real tailnet exists here.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { startRewritingProxy, type RewritingProxy } from './reverse-proxy.js';
import { join } from 'node:path';

export interface WhoisPeer {
  login: string;
  displayName?: string;
  /** Tags make it a tagged node: whois then names the "tagged-devices" pseudo-user. */
  tags?: string[];
  nodeName?: string;
}

export interface TailscaleStandIn {
  /** The folder holding the program, to put first on PATH. */
  readonly binDir: string;
  readonly program: string;
  /** Makes whois answer for `address` (or, with null, forget it: an error as for an unknown peer). */
  setPeer(address: string, peer: WhoisPeer | null): void;
  /** Makes whois print `text` as its answer for `address` (a broken or odd answer). */
  setRawAnswer(address: string, text: string): void;
  /** Makes whois for `address` take this long before answering. */
  setDelay(address: string, seconds: number): void;
  /** The addresses whois was asked about, in order. */
  calls(): string[];
}

const SCRIPT = (dataDir: string): string => `#!/bin/sh
# A stand-in for tailscale(1): only \`whois --json ADDR\`, from files a test writes.
data='${dataDir}'
if [ "$1" != whois ] || [ "$2" != --json ] || [ $# -ne 3 ]; then
  echo "usage: tailscale whois [--json] ip[:port]" >&2
  exit 2
fi
printf '%s\\n' "$3" >> "$data/calls"
f="$data/whois/$3"
if [ -f "$f.delay" ]; then sleep "$(cat "$f.delay")"; fi
if [ -f "$f.json" ]; then cat "$f.json"; exit 0; fi
echo "no match for IP:port" >&2
exit 1
`;

export function writeTailscaleStandIn(dir: string): TailscaleStandIn {
  const binDir = join(dir, 'bin');
  const dataDir = join(dir, 'tailscale-data');
  mkdirSync(binDir, { recursive: true });
  mkdirSync(join(dataDir, 'whois'), { recursive: true });
  writeFileSync(join(dataDir, 'calls'), '');
  const program = join(binDir, 'tailscale');
  writeFileSync(program, SCRIPT(dataDir));
  chmodSync(program, 0o755);
  let nodeId = 1000;
  const file = (address: string, ext: string) => join(dataDir, 'whois', `${address}.${ext}`);
  return {
    binDir,
    program,
    setPeer(address, peer) {
      if (peer === null) {
        rmSync(file(address, 'json'), { force: true });
        return;
      }
      writeFileSync(file(address, 'json'), whoisJson(address, peer, nodeId++));
    },
    setRawAnswer(address, text) {
      writeFileSync(file(address, 'json'), text);
    },
    setDelay(address, seconds) {
      writeFileSync(file(address, 'delay'), String(seconds));
    },
    calls() {
      const text = existsSync(join(dataDir, 'calls')) ? readFileSync(join(dataDir, 'calls'), 'utf8') : '';
      return text.split('\n').filter((l) => l !== '');
    },
  };
}

/** apitype.WhoIsResponse as `tailscale whois --json` prints it (Go's field names, two-space indent). */
function whoisJson(address: string, peer: WhoisPeer, id: number): string {
  const tagged = (peer.tags ?? []).length > 0;
  const prefix = address.includes(':') ? `${address}/128` : `${address}/32`;
  const response = {
    Node: {
      ID: id,
      StableID: `n${id}CNTRL`,
      Name: peer.nodeName ?? `node-${id}.tail1234.ts.net.`,
      User: tagged ? 0 : id + 1,
      Addresses: [prefix],
      AllowedIPs: [prefix],
      ...(tagged ? { Tags: peer.tags } : {}),
      Hostinfo: { OS: 'linux', Hostname: `node-${id}` },
    },
    UserProfile: tagged
      ? { ID: 0, LoginName: 'tagged-devices', DisplayName: 'Tagged Devices' }
      : { ID: id + 1, LoginName: peer.login, DisplayName: peer.displayName ?? peer.login, ProfilePicURL: '' },
    CapMap: {},
  };
  return `${JSON.stringify(response, null, 2)}\n`;
}

/** RFC 2047 Q-encoding as Go's mime.QEncoding.Encode("utf-8", v) writes it: unchanged when plain ASCII. */
export function qEncode(value: string): string {
  if (!/[^\x20-\x7e\t]/.test(value)) return value;
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (byte === 0x20) out += '_';
    else if (byte >= 0x21 && byte <= 0x7e && c !== '=' && c !== '?' && c !== '_') out += c;
    else out += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `=?utf-8?q?${out}?=`;
}

const SERVE_STRIPPED = ['tailscale-user-login', 'tailscale-user-name', 'tailscale-user-profile-pic', 'tailscale-funnel-request', 'tailscale-headers-info'];

export interface ServeStandIn {
  readonly port: number;
  /** The tailnet address (and who is there) the next requests come from. */
  setClient(client: { address: string; peer: WhoisPeer | null }): void;
  close(): Promise<void>;
}

/** A proxy on 127.0.0.1 to 127.0.0.1:targetPort that sets identity headers as `tailscale serve` does. */
export async function startServeStandIn(targetPort: number): Promise<ServeStandIn> {
  let client: { address: string; peer: WhoisPeer | null } = { address: '100.64.0.1', peer: null };
  const proxy = await startRewritingProxy(targetPort, (req) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    for (const name of SERVE_STRIPPED) delete headers[name];
    // Go's ReverseProxy (Rewrite) drops incoming X-Forwarded-* and
    // SetXForwarded writes the client's address alone.
    headers['x-forwarded-for'] = client.address;
    headers['x-forwarded-proto'] = 'https';
    headers['x-forwarded-host'] = req.headers.host;
    const peer = client.peer;
    if (peer !== null && (peer.tags ?? []).length === 0) {
      headers['tailscale-user-login'] = qEncode(peer.login);
      headers['tailscale-user-name'] = qEncode(peer.displayName ?? peer.login);
      headers['tailscale-user-profile-pic'] = '';
      headers['tailscale-headers-info'] = 'https://tailscale.com/s/serve-headers';
    }
    return headers;
  });
  return {
    ...proxy,
    setClient(next) {
      client = next;
    },
  };
}

/**
 * A plain reverse proxy on 127.0.0.1 (nginx's proxy_add_x_forwarded_for, or
 * cloudflared's): every header passes as the client sent it, X-Forwarded-For
 * gains the client's address. What an attacker's forged headers meet when
 * another proxy on the machine fronts tend.
 */
export function startPassThroughProxy(targetPort: number): Promise<RewritingProxy> {
  return startRewritingProxy(targetPort, (req) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    const from = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = req.headers['x-forwarded-for'] === undefined ? from : `${req.headers['x-forwarded-for']}, ${from}`;
    return headers;
  });
}
