// Remote access, put together for the server: the settings, the signed-in
// browsers, the one-time links, the identity verifiers and the gate that
// uses them all, over one clock (clock.ts) and one log.
import type { Logger } from '../log.js';
import { accessClock } from './clock.js';
import { RemoteSettingsStore } from './settings.js';
import { LoginStore } from './logins.js';
import { LoginLinks } from './links.js';
import { AccessGate } from './gate.js';
import { GateLog } from './refusal-log.js';
import { hostAllowed } from './hosts.js';
import { tailscaleVerifier } from './tailscale.js';
import { cloudflareVerifier } from './cloudflare.js';
import { RemoteSockets } from './remote-sockets.js';

export interface Access {
  readonly settings: RemoteSettingsStore;
  readonly logins: LoginStore;
  readonly links: LoginLinks;
  readonly gate: AccessGate;
  readonly gateLog: GateLog;
  readonly sockets: RemoteSockets;
}

export interface OpenAccessOptions {
  home: string;
  log: Logger;
}

export function openAccess(options: OpenAccessOptions): Access {
  const now = accessClock();
  const settings = new RemoteSettingsStore({ home: options.home, log: options.log });
  const logins = new LoginStore({ home: options.home, log: options.log, now });
  const links = new LoginLinks(now);
  const gateLog = new GateLog(options.log, now);
  const verifiers = [tailscaleVerifier({ now }), cloudflareVerifier({ now })];
  const sockets = new RemoteSockets();
  const gate = new AccessGate({ settings, logins, verifiers, log: gateLog, sockets });
  // A change of settings ends the open terminals it no longer lets in.
  settings.onChange((next) => {
    const ended = sockets.cutWhere((host) => !next.enabled || !hostAllowed(host, next.allowedHosts));
    if (ended > 0) options.log.info(`remote access: ended ${ended} terminal socket${ended === 1 ? '' : 's'} the new settings do not let in`);
  });
  return { settings, logins, links, gate, gateLog, sockets };
}
