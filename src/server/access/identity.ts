// What the access gate (gate.ts) and the proxy-identity checks hand each other
// (issue 28; DESIGN.md "Access"). A proxy in front of tend (`tailscale serve`,
// Cloudflare Access) says who the caller is in headers; a header is a claim,
// never proof, so each method checks it its own way (tailscale.ts: the
// forwarded hop is a tailnet address and `tailscale whois` agrees;
// cloudflare.ts: the Access JWT's signature against the team's keys, with
// algorithm, issuer, audience and expiry pinned) and then the login must be
// on tend's own list. Only a verified identity earns the login cookie.
import type { IncomingMessage } from 'node:http';

/** Who is calling, before any credential is looked at. */
export type CallerClass =
  /** This user's own process on this machine, straight to 127.0.0.1 or the unix socket: trusted as before the gate. */
  | 'local'
  /** A browser on this machine reaching tend through a proxy on this machine (forwarded for a loopback address). */
  | 'local-proxy'
  /** Anyone else: another machine through a proxy, another address, or a loopback caller of another user. */
  | 'remote';

export type IdentityMethod = 'tailscale' | 'cloudflare';

/** The remote-access settings (TEND_HOME/remote/settings.json, mode 0600), changed only by local callers. */
export interface RemoteSettings {
  /** Off: every caller that is not local is refused, as before `tend remote enable`. */
  enabled: boolean;
  /** Addresses beyond 127.0.0.1 to listen on ("HOST:PORT"); empty when reached only through a proxy on this machine. */
  listen: string[];
  /** Host header values (a name, or name:port) that a caller that is not local may use; any other is refused. */
  allowedHosts: string[];
  /** Tailscale logins (e.g. "alice@example.com") let in on `tailscale whois`'s word; empty turns the method off. */
  tailscaleLogins: string[];
  /** Cloudflare Access; null turns the method off. */
  cloudflare: CloudflareSettings | null;
}

export interface CloudflareSettings {
  /** The team's issuer, e.g. "https://myteam.cloudflareaccess.com"; keys are fetched from `${issuer}/cdn-cgi/access/certs`. */
  issuer: string;
  /** The Access application's AUD tag. */
  audience: string;
  /** Emails let in. */
  emails: string[];
}

export type IdentityVerdict =
  /** The request carries nothing for this method (no such headers): try the next. */
  | { kind: 'absent' }
  | { kind: 'verified'; method: IdentityMethod; login: string }
  /** It claimed an identity that did not hold; reason is for the log and the caller, with no secret in it. */
  | { kind: 'refused'; method: IdentityMethod; reason: string };

export interface IdentityVerifier {
  readonly method: IdentityMethod;
  /** Judges one request that is not local; never throws (a failure to check is a refusal). */
  verify(req: IncomingMessage, settings: RemoteSettings): Promise<IdentityVerdict>;
}
