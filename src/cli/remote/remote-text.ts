// What `tend remote` prints for a person: the status (what is reachable, how,
// and who may sign in) and the signed-in browsers. --json prints the API's
// answers instead (docs/api.md "Remote access").
import type { LoginView, RemoteStatus } from '../../protocol/api/index.js';
import { ago, table } from '../format.js';

export function statusText(status: RemoteStatus): string {
  const { settings } = status;
  const lines: string[] = [];
  if (status.settingsProblem !== null) lines.push(`warning: ${status.settingsProblem}`);
  if (!settings.enabled) {
    lines.push('remote access: off: only your own programs on this machine get in (`tend remote enable` turns it on)');
  } else {
    lines.push('remote access: on');
  }
  for (const l of status.listeners) {
    const what = l.error !== undefined
      ? `not listening: ${l.error}`
      : l.kind === 'loopback'
        ? 'this machine only; a proxy here (tailscale serve, a Cloudflare tunnel, a reverse proxy) reaches tend on it'
        : 'plain HTTP on the network: anyone on the path can read it';
    lines.push(`  ${l.kind === 'loopback' ? 'listening on' : '     and on'} ${l.address}: ${what}`);
  }
  if (status.listeners.length === 0) lines.push('  not listening on 127.0.0.1: browsers and proxies cannot reach tend (`tend logs` says why; TEND_PORT picks another port)');
  if (settings.listen.length > 0 && !settings.enabled) lines.push(`  --listen ${settings.listen.join(', ')} is kept for when remote access is on`);
  lines.push(`  allowed hosts: ${settings.allowedHosts.length > 0 ? settings.allowedHosts.join(', ') : 'none: browsers from afar are refused until `tend remote allow HOST`'}`);
  const ways: string[] = ['one-time links (`tend remote link`)'];
  ways.push(settings.tailscaleLogins.length > 0 ? `Tailscale: ${settings.tailscaleLogins.join(', ')}` : 'Tailscale: off (`tend remote tailscale LOGIN...`)');
  ways.push(settings.cloudflare !== null ? `Cloudflare Access: ${settings.cloudflare.issuer}, ${settings.cloudflare.emails.join(', ')}` : 'Cloudflare Access: off (`tend remote cloudflare ...`)');
  lines.push(`  sign-in: ${ways.join('; ')}`);
  lines.push(`  signed-in browsers: ${status.logins}${status.logins > 0 ? ' (`tend remote ls`)' : ''}; unused links: ${status.pendingLinks}`);
  return `${lines.join('\n')}\n`;
}

export function loginsText(logins: LoginView[], now: number = Date.now()): string {
  if (logins.length === 0) return 'no browser is signed in\n';
  const rows = logins.map((l) => [l.id, l.host, l.login === null ? l.method : `${l.method} ${l.login}`, ago(l.lastUsedAt, now), (l.userAgent ?? '').slice(0, 60)]);
  return table([['ID', 'HOST', 'SIGNED IN BY', 'LAST USED', 'BROWSER'], ...rows]);
}
