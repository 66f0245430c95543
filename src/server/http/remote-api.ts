// The remote-access routes (docs/api.md "Remote access"; `tend remote`):
// settings, one-time links and signed-in browsers, for local callers only
// (the unix socket, or this user's own process on 127.0.0.1: a browser that
// came through the gate may not widen it); and the exchange of a link's token
// for the login cookie, the one route open to a caller the gate has not let
// in yet (it has already checked the Host and the Origin).
import type { Router, Request } from './router.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { optString } from './validate.js';
import type { Access } from '../access/index.js';
import type { ExtraListeners } from '../access/extra-listeners.js';
import { SettingsError } from '../access/settings.js';
import { signInMethods } from '../access/gate.js';
import { callerOf } from '../access/caller-mark.js';
import { canonicalHost, hostAllowed, parseHost, parseListenAddress } from '../access/hosts.js';
import { loginCookieHeader, requestIsHttps } from '../access/cookie.js';
import {
  LOGIN_COOKIE_TTL_MS,
  LOGIN_PAGE_PATH,
  type ExchangeLoginLinkReply,
  type LoginLinkReply,
  type LoginView,
  type RemoteListener,
  type RemoteStatus,
  type RevokeLoginReply,
} from '../../protocol/api/index.js';

/** Bodies here are a few settings or a token. */
const REMOTE_BODY_LIMIT_BYTES = 64 * 1024;

export interface RemoteRoutesOptions {
  access: Access;
  extraListeners: ExtraListeners;
  /** The 127.0.0.1 listener's address, null when it is not listening. */
  loopbackAddress(): string | null;
}

function localOnly(req: Request): void {
  const caller = callerOf(req.raw);
  if (caller !== 'local') {
    throw new ApiError('forbidden', `remote-access settings and sign-ins change only from the machine tend runs on (this caller is ${caller}); run \`tend remote\` there`);
  }
}

function onlyFields(body: Record<string, unknown>, allowed: string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw badRequest(`unknown field ${unknown.map((k) => `"${k}"`).join(', ')}; this route takes ${allowed.length === 0 ? 'no fields' : allowed.map((k) => `"${k}"`).join(', ')}`);
}

export function addRemoteRoutes(router: Router, options: RemoteRoutesOptions): void {
  const { access, extraListeners } = options;

  const status = (): RemoteStatus => {
    const settings = access.settings.current;
    const loopback = options.loopbackAddress();
    const listeners: RemoteListener[] = loopback === null ? [] : [{ address: loopback, kind: 'loopback' }];
    return {
      settings,
      listeners: [...listeners, ...extraListeners.status()],
      methods: signInMethods(settings),
      logins: access.logins.count,
      pendingLinks: access.links.pendingCount,
      settingsProblem: access.settings.problem,
    };
  };

  router.add('getRemote', (req) => {
    localOnly(req);
    return { status: 200, json: status() };
  });

  router.add('updateRemote', async (req) => {
    localOnly(req);
    const body = await req.json(REMOTE_BODY_LIMIT_BYTES);
    try {
      access.settings.update(body);
    } catch (err) {
      if (err instanceof SettingsError) throw badRequest(err.message);
      throw err;
    }
    await extraListeners.sync(access.settings.current);
    return { status: 200, json: status() };
  });

  router.add('createLoginLink', async (req) => {
    localOnly(req);
    const body = await req.json(REMOTE_BODY_LIMIT_BYTES);
    onlyFields(body, ['host']);
    const settings = access.settings.current;
    if (!settings.enabled) throw badRequest('remote access is off, so a link would let nobody in: `tend remote enable` first');
    const asked = optString(body, 'host', { max: 260 });
    const host = asked ?? settings.allowedHosts[0];
    if (host === undefined) throw badRequest('no host is allowed yet: `tend remote allow HOST` names the one browsers will use (e.g. the tailscale serve name)');
    const canonical = canonicalHost(host);
    if (canonical === null || !hostAllowed(canonical, settings.allowedHosts)) {
      throw badRequest(`"host" must be one of the allowed hosts (${settings.allowedHosts.join(', ')}), not ${JSON.stringify(host)}`);
    }
    const { token, expiresAt } = access.links.create(canonical);
    // A --listen address is plain HTTP; anything else is reached through a proxy, over HTTPS.
    const port = parseHost(canonical)?.port ?? null;
    const plain = port !== null && settings.listen.some((l) => parseListenAddress(l)?.port === port);
    const url = `${plain ? 'http' : 'https'}://${canonical}${LOGIN_PAGE_PATH}#t=${token}`;
    return { status: 201, json: { url, host: canonical, expiresAt } satisfies LoginLinkReply };
  });

  router.add('listLogins', (req) => {
    localOnly(req);
    return { status: 200, json: access.logins.list() satisfies LoginView[] };
  });

  router.add('revokeLogin', (req) => {
    localOnly(req);
    const id = req.params.id ?? '';
    const revoked = access.logins.revoke(id);
    if (revoked === 0 && id !== 'all') throw notFound(`no signed-in browser has the id ${JSON.stringify(id)}; \`tend remote ls\` lists them`);
    // Its open terminals end too: the gate judged them when they opened.
    access.sockets.cutLogin(id);
    return { status: 200, json: { revoked } satisfies RevokeLoginReply };
  });

  router.add('exchangeLoginLink', async (req) => {
    const body = await req.json(REMOTE_BODY_LIMIT_BYTES);
    onlyFields(body, ['token']);
    const token = optString(body, 'token', { max: 100 });
    if (token === undefined) throw badRequest('"token" is required: the t= part of the link\'s #fragment');
    const host = canonicalHost(req.headers.host);
    const exchange = access.links.exchange(token, host);
    if (exchange.kind === 'refused') {
      access.gateLog.refused(req.raw, callerOf(req.raw), `login link exchange: ${exchange.why}`);
      throw new ApiError('forbidden', exchange.why);
    }
    const secure = requestIsHttps(req.raw);
    const issued = access.logins.issue({ host: exchange.host, method: 'link', login: null, userAgent: req.headers['user-agent'] });
    access.gateLog.signedIn(req.raw, callerOf(req.raw), `by a one-time link (login ${issued.login.id})`);
    return {
      status: 200,
      json: { ok: true, expiresAt: issued.login.expiresAt } satisfies ExchangeLoginLinkReply,
      headers: { 'set-cookie': loginCookieHeader(issued.cookie, { secure, maxAgeMs: LOGIN_COOKIE_TTL_MS }) },
    };
  });
}
