// What the access gate (gate.ts) and the proxy-identity checks hand each other
// (issue 28; DESIGN.md "Access"). A proxy in front of tend (`tailscale serve`,
// Cloudflare Access) says who the caller is in headers; a header is a claim,
// never proof, so each method checks it its own way (tailscale.ts: the
// forwarded hop is a tailnet address and `tailscale whois` agrees;
// cloudflare.ts: the Access JWT's signature against the team's keys, with
// algorithm, issuer, audience and expiry pinned) and then the login must be
// on tend's own list. Only a verified identity earns the login cookie.
import type { IncomingMessage } from 'node:http';
import type { RemoteCloudflare, RemoteSettingsView } from '../../protocol/api/index.js';

/** Who is calling, before any credential is looked at. */
export type CallerClass =
  /** This user's own process on this machine, straight to 127.0.0.1 or the unix socket: trusted as before the gate. */
  | 'local'
  /** A browser on this machine reaching tend through a proxy on this machine (forwarded for a loopback address). */
  | 'local-proxy'
  /** Anyone else: another machine through a proxy, another address, or a loopback caller of another user. */
  | 'remote';

export type IdentityMethod = 'tailscale' | 'cloudflare';

/**
 * The remote-access settings (TEND_HOME/remote/settings.json, mode 0600),
 * changed only by local callers: stored as the API shows them
 * (protocol/api/remote.ts says what each field means).
 */
export type RemoteSettings = RemoteSettingsView;
export type CloudflareSettings = RemoteCloudflare;

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
