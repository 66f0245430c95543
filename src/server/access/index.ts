// Remote access, put together for the server: the settings, the signed-in
// browsers, the one-time links, the identity verifiers and the gate that
// uses them all, over one clock (clock.ts) and one log.
import type { Logger } from '../log.js';
import { accessClock, type Clock } from './clock.js';
import { RemoteSettingsStore } from './settings.js';
import { LoginStore } from './logins.js';
import { LoginLinks } from './links.js';
import { AccessGate } from './gate.js';
import { GateLog } from './refusal-log.js';
import { tailscaleVerifier } from './tailscale.js';
import { cloudflareVerifier } from './cloudflare.js';
import type { IdentityVerifier } from './identity.js';

export interface Access {
  readonly settings: RemoteSettingsStore;
  readonly logins: LoginStore;
  readonly links: LoginLinks;
  readonly gate: AccessGate;
  readonly gateLog: GateLog;
  readonly now: Clock;
}

export interface OpenAccessOptions {
  home: string;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** The proxy identities asked; Tailscale's and Cloudflare Access's by default. */
  verifiers?: IdentityVerifier[];
}

export function openAccess(options: OpenAccessOptions): Access {
  const now = accessClock(options.env ?? process.env);
  const settings = new RemoteSettingsStore({ home: options.home, log: options.log });
  const logins = new LoginStore({ home: options.home, log: options.log, now });
  const links = new LoginLinks(now);
  const gateLog = new GateLog(options.log, now);
  const verifiers = options.verifiers ?? [tailscaleVerifier({ now }), cloudflareVerifier({ now })];
  const gate = new AccessGate({ settings, logins, verifiers, log: gateLog });
  return { settings, logins, links, gate, gateLog, now };
}
