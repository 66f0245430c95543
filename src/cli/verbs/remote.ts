// `tend remote ACTION`: remote access (docs/remote.md). Every action is a
// call to the server's remote routes (docs/api.md "Remote access"), which
// take it only from this machine: turn it on or off, the hosts browsers may
// use, the Tailscale logins and Cloudflare Access team let in, one-time
// links, and the signed-in browsers.
import type { Verb, VerbArgs } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import type { TendClient } from '../client.js';
import { usageError } from '../cli-error.js';
import { nearest } from '../../common/nearest.js';
import { API_ROUTES, type LoginLinkReply, type LoginView, type RemoteSettingsPatch, type RemoteStatus, type RevokeLoginReply } from '../../protocol/api/index.js';
import { loginsText, statusText } from '../remote/remote-text.js';

const ACTIONS = ['enable', 'disable', 'status', 'allow', 'disallow', 'tailscale', 'cloudflare', 'link', 'ls', 'revoke'] as const;
type Action = (typeof ACTIONS)[number];

const PLAIN_HTTP_WARNING =
  'warning: --listen serves plain HTTP on the network: anyone on the path can read your terminals and the login cookie. ' +
  'Prefer a proxy with TLS in front of 127.0.0.1 (tailscale serve, a Cloudflare tunnel).\n';

function strings(value: VerbArgs['values'][string]): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

function needWords(action: string, words: string[], what: string): void {
  if (words.length === 0) throw usageError(`tend remote ${action} needs ${what}`);
}

function noWords(action: string, words: string[]): void {
  if (words.length > 0) throw usageError(`tend remote ${action} takes no words (given ${words.map((w) => JSON.stringify(w)).join(' ')})`);
}

async function patch(client: TendClient, change: RemoteSettingsPatch): Promise<RemoteStatus> {
  return client.callRoute<RemoteStatus>(API_ROUTES.updateRemote, {}, change);
}

async function current(client: TendClient): Promise<RemoteStatus> {
  return client.callRoute<RemoteStatus>(API_ROUTES.getRemote);
}

export const remoteVerb: Verb = {
  name: 'remote',
  summary: 'reach your terminals from another machine: the access gate, sign-ins, links',
  usage: `tend remote ACTION [...] [--json]

tend always listens on 127.0.0.1 (and its unix socket), where only your own
programs on this machine get in. Remote access lets browsers elsewhere in,
through a proxy on this machine (tailscale serve, a Cloudflare tunnel, a
reverse proxy), each one passing the gate: an allowed Host, a login cookie,
or a proxy identity tend checks itself. docs/remote.md says how to set it up.

  enable [--listen HOST:PORT]  turns remote access on; --listen also listens
                               on that address (plain HTTP: warned about)
  disable                      turns it off: every caller that is not local
                               is refused again (sign-ins are kept)
  status                       what is reachable and how, who may sign in
  allow HOST                   a Host browsers may use (the proxy's name,
                               e.g. box.tailnet.ts.net; name:port for one port)
  disallow HOST                takes one out
  tailscale LOGIN...           lets these Tailscale logins in on
                               \`tailscale whois\`'s word (--off: none)
  cloudflare --issuer URL --audience AUD --email EMAIL...
                               lets these emails in by their Cloudflare Access
                               token (--off: none)
  link [--host HOST]           prints a one-time link (10 minutes, one use)
                               that signs one browser in
  ls                           the signed-in browsers
  revoke ID | --all            signs one browser (or every one) out

  --listen HOST:PORT   (enable) also listen here; may be given again
  --host HOST          (link) the allowed host the link is for (default: the first)
  --issuer URL         (cloudflare) the team, https://TEAM.cloudflareaccess.com
  --audience AUD       (cloudflare) the Access application's AUD tag
  --email EMAIL        (cloudflare) an email let in; may be given again
  --off                (tailscale, cloudflare) turn that way of signing in off
  --all                (revoke) every signed-in browser
  -j, --json           print the server's answer as JSON (docs/api.md)`,
  options: {
    listen: { type: 'string', multiple: true },
    host: { type: 'string' },
    issuer: { type: 'string' },
    audience: { type: 'string' },
    email: { type: 'string', multiple: true },
    off: { type: 'boolean' },
    all: { type: 'boolean' },
    ...jsonOption,
  },
  async run({ args, client, stdout, stderr }) {
    const [word = 'status', ...words] = args.positionals;
    if (!(ACTIONS as readonly string[]).includes(word)) {
      const close = nearest(word, [...ACTIONS]);
      throw usageError(`no action "${word}"${close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : ''}; remote takes ${ACTIONS.join(', ')}`);
    }
    const action = word as Action;
    const json = args.values.json === true;
    const misplaced = optionsOutsideTheirAction(action, args);
    if (misplaced !== null) throw usageError(misplaced);
    const show = (status: RemoteStatus) => (json ? printJson(stdout, status) : stdout.write(statusText(status)));

    switch (action) {
      case 'status':
        noWords(action, words);
        show(await current(client));
        return 0;
      case 'enable': {
        noWords(action, words);
        const listen = strings(args.values.listen);
        const change: RemoteSettingsPatch = { enabled: true };
        if (listen.length > 0) change.listen = listen;
        const status = await patch(client, change);
        if (status.settings.listen.length > 0) stderr.write(PLAIN_HTTP_WARNING);
        if (status.settings.allowedHosts.length === 0) stderr.write('note: no host is allowed yet; `tend remote allow HOST` names the one browsers will use\n');
        show(status);
        return status.listeners.some((l) => l.error !== undefined) ? 1 : 0;
      }
      case 'disable':
        noWords(action, words);
        show(await patch(client, { enabled: false }));
        return 0;
      case 'allow':
      case 'disallow': {
        needWords(action, words, 'a HOST');
        const hosts = (await current(client)).settings.allowedHosts;
        const given = words.map((w) => w.toLowerCase());
        if (action === 'disallow') {
          const missing = given.filter((h) => !hosts.includes(h));
          if (missing.length > 0) throw usageError(`${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not allowed now (allowed: ${hosts.join(', ') || 'none'})`);
        }
        const next = action === 'allow' ? [...hosts, ...given.filter((h) => !hosts.includes(h))] : hosts.filter((h) => !given.includes(h));
        show(await patch(client, { allowedHosts: next }));
        return 0;
      }
      case 'tailscale':
        if (args.values.off === true) noWords(action, words);
        else needWords(action, words, 'the Tailscale logins to let in (e.g. alice@example.com), or --off');
        show(await patch(client, { tailscaleLogins: args.values.off === true ? [] : words }));
        return 0;
      case 'cloudflare': {
        noWords(action, words);
        if (args.values.off === true) {
          show(await patch(client, { cloudflare: null }));
          return 0;
        }
        const issuer = args.values.issuer;
        const audience = args.values.audience;
        const emails = strings(args.values.email);
        if (typeof issuer !== 'string' || typeof audience !== 'string' || emails.length === 0) {
          throw usageError('tend remote cloudflare needs --issuer https://TEAM.cloudflareaccess.com, --audience AUD and at least one --email (or --off)');
        }
        show(await patch(client, { cloudflare: { issuer, audience, emails } }));
        return 0;
      }
      case 'link': {
        noWords(action, words);
        const host = typeof args.values.host === 'string' ? args.values.host : undefined;
        const link = await client.callRoute<LoginLinkReply>(API_ROUTES.createLoginLink, {}, host === undefined ? {} : { host });
        if (json) printJson(stdout, link);
        else stdout.write(`${link.url}\n`);
        if (!json) stderr.write(`open it in the browser to sign in (once, within 10 minutes); it is for ${link.host} only\n`);
        return 0;
      }
      case 'ls': {
        noWords(action, words);
        const logins = await client.callRoute<LoginView[]>(API_ROUTES.listLogins);
        if (json) printJson(stdout, logins);
        else stdout.write(loginsText(logins));
        return 0;
      }
      case 'revoke': {
        const all = args.values.all === true;
        if (all) noWords(action, words);
        else if (words.length !== 1) throw usageError('tend remote revoke takes one ID (from `tend remote ls`), or --all');
        const reply = await client.callRoute<RevokeLoginReply>(API_ROUTES.revokeLogin, { id: all ? 'all' : words[0]! });
        if (json) printJson(stdout, reply);
        else stdout.write(`signed out ${reply.revoked} browser${reply.revoked === 1 ? '' : 's'}\n`);
        return 0;
      }
    }
  },
};

/** Options belong to one action each; one given to another is a mistake worth saying. */
function optionsOutsideTheirAction(action: Action, args: VerbArgs): string | null {
  const owners: Record<string, Action[]> = {
    listen: ['enable'],
    host: ['link'],
    issuer: ['cloudflare'],
    audience: ['cloudflare'],
    email: ['cloudflare'],
    off: ['tailscale', 'cloudflare'],
    all: ['revoke'],
  };
  for (const [option, actions] of Object.entries(owners)) {
    if (args.values[option] !== undefined && !actions.includes(action)) return `--${option} goes with tend remote ${actions.join(' or ')}, not ${action}`;
  }
  return null;
}
