// The access gate (DESIGN.md "Access", docs/remote.md): every request and
// WebSocket upgrade that is not local (classify.ts) passes here, in this
// order, and the first check that fails refuses it:
//   1. remote access is on (`tend remote enable`);
//   2. its Host is one of the allowed hosts (`tend remote allow`): any other
//      is refused, which is what stops DNS rebinding;
//   3. a write or an upgrade names no other Origin than this Host (origin.ts);
//   4. the login page and the exchange of a one-time link are open from here;
//   5. a login cookie good for this Host lets it in;
//   6. else each proxy identity (Tailscale, Cloudflare Access) is asked:
//      verified → a login cookie is issued and it is let in; refused → it is
//      refused with the verifier's reason; nothing claimed → it must sign in
//      (a page gets the login page, the API a refusal saying how).
// An upgrade is judged by its cookie alone (steps 1-5): a browser loads the
// page, and so gets its cookie, before it opens a terminal's socket.
import type { IncomingMessage } from 'node:http';
import type { IdentityVerifier, RemoteSettings } from './identity.js';
import type { Classification } from './classify.js';
import type { RemoteSettingsStore } from './settings.js';
import type { LoginStore } from './logins.js';
import type { GateLog } from './refusal-log.js';
import { API_ROUTES, LOGIN_COOKIE_TTL_MS, type LoginMethod } from '../../protocol/api/index.js';
import { isLoginPageRequest } from './login-page.js';
import { canonicalHost, hostAllowed } from './hosts.js';
import { originRefusal } from './origin.js';
import { clearLoginCookieHeaders, loginCookieHeader, loginCookiesOf, requestIsHttps } from './cookie.js';
import type { RemoteSockets } from './remote-sockets.js';

export interface GateRefusal {
  message: string;
  /** The caller only needs to sign in: a page request gets the login page. */
  signIn: boolean;
  /** Set-Cookie values to send with the refusal (a stale cookie cleared). */
  setCookie: string[];
}

export type GateVerdict = { pass: true; setCookie: string[] } | { pass: false; refusal: GateRefusal };

/** What the first checks came to: a verdict, a pass by a login's cookie, or the verifiers to ask (with why cookies failed). */
type FirstChecks = GateVerdict | { pass: true; setCookie: string[]; loginId: string } | { ask: string[] };

export interface AccessGateOptions {
  settings: RemoteSettingsStore;
  logins: LoginStore;
  verifiers: readonly IdentityVerifier[];
  log: GateLog;
  /** Where the terminals' sockets let in by a cookie are kept, to be ended when that sign-in is. */
  sockets: RemoteSockets;
}

const SIGN_IN_HINT = 'sign in first: on the machine tend runs on, `tend remote link` prints a one-time link to open here';

function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?')[0] ?? '/';
}

/** Routes and pages a caller may reach before signing in (after the Host and Origin checks). */
function isOpenBeforeSignIn(req: IncomingMessage): boolean {
  if (req.headers.upgrade !== undefined) return false;
  if (isLoginPageRequest(req)) return true;
  return pathOf(req) === API_ROUTES.exchangeLoginLink.path && req.method === API_ROUTES.exchangeLoginLink.method;
}

export class AccessGate {
  constructor(private readonly options: AccessGateOptions) {}

  /** Steps 1-5, which need no waiting: a refusal, 'open', a pass by cookie, or 'ask' the verifiers. */
  private firstChecks(req: IncomingMessage, c: Classification): FirstChecks {
    const settings = this.options.settings.current;
    const refuse = (message: string, setCookie: string[] = []): GateVerdict => ({ pass: false, refusal: { message, signIn: false, setCookie } });
    if (!settings.enabled) {
      const problem = this.options.settings.problem;
      return refuse(`${c.why ?? 'the caller is not local'}; remote access is off${problem === null ? ' (`tend remote enable` on the machine turns it on)' : ` (${problem})`}`);
    }
    if (!hostAllowed(req.headers.host, settings.allowedHosts)) {
      const host = req.headers.host;
      return refuse(`the Host ${host === undefined ? '(none)' : JSON.stringify(host)} is not one this tend server answers to from afar; \`tend remote allow HOST\` on the machine adds one`);
    }
    const origin = originRefusal(req);
    if (origin !== null) return refuse(origin);
    if (isOpenBeforeSignIn(req)) return { pass: true, setCookie: [] };
    const host = canonicalHost(req.headers.host);
    const stale: string[] = [];
    for (const cookie of loginCookiesOf(req)) {
      const check = this.options.logins.check(cookie, host);
      if (check.kind === 'valid') return { pass: true, setCookie: [], loginId: check.login.id };
      stale.push(check.why);
    }
    return { ask: stale };
  }

  /** Judges an upgrade (a terminal's socket): by its cookie alone. The refusal's message, or null to let it in. */
  upgradeRefusal(req: IncomingMessage, c: Classification): string | null {
    const first = this.firstChecks(req, c);
    if ('ask' in first) {
      const message = first.ask[0] ?? SIGN_IN_HINT;
      this.options.log.refused(req, c.caller, message);
      return message;
    }
    if (!first.pass) {
      this.options.log.refused(req, c.caller, first.refusal.message);
      return first.refusal.message;
    }
    if ('loginId' in first) this.options.sockets.track(req.socket, first.loginId, canonicalHost(req.headers.host) ?? '');
    return null;
  }

  /** Judges a request that is not local. Never throws: a check that fails to run refuses. */
  async check(req: IncomingMessage, c: Classification): Promise<GateVerdict> {
    let verdict: GateVerdict;
    try {
      verdict = await this.judge(req, c);
    } catch (err) {
      verdict = { pass: false, refusal: { message: `the access check failed (${(err as Error).message}); see the server log`, signIn: false, setCookie: [] } };
    }
    if (!verdict.pass) this.options.log.refused(req, c.caller, verdict.refusal.message);
    return verdict;
  }

  private async judge(req: IncomingMessage, c: Classification): Promise<GateVerdict> {
    const first = this.firstChecks(req, c);
    if (!('ask' in first)) return first.pass ? { pass: true, setCookie: first.setCookie } : first;
    const settings = this.options.settings.current;
    const secure = requestIsHttps(req);
    const clear = first.ask.length > 0 ? clearLoginCookieHeaders(secure) : [];
    const methods = signInMethods(settings);
    for (const verifier of this.options.verifiers) {
      if (!methods.includes(verifier.method)) continue;
      const verdict = await verifier.verify(req, settings);
      if (verdict.kind === 'absent') continue;
      if (verdict.kind === 'refused') {
        return { pass: false, refusal: { message: `${verdict.method}: ${verdict.reason}`, signIn: false, setCookie: clear } };
      }
      const host = canonicalHost(req.headers.host)!;
      const issued = this.options.logins.issue({ host, method: verdict.method, login: verdict.login, userAgent: req.headers['user-agent'] });
      this.options.log.signedIn(req, c.caller, `as ${verdict.login} by ${verdict.method} (login ${issued.login.id})`);
      return { pass: true, setCookie: [loginCookieHeader(issued.cookie, { secure, maxAgeMs: LOGIN_COOKIE_TTL_MS })] };
    }
    const why = first.ask.length > 0 ? `${first.ask[0]}; ${SIGN_IN_HINT}` : SIGN_IN_HINT;
    return { pass: false, refusal: { message: why, signIn: true, setCookie: clear } };
  }
}

/** The ways a caller that is not local can sign in under these settings: a link whenever remote access is on, a proxy identity once it is set up. */
export function signInMethods(settings: RemoteSettings): LoginMethod[] {
  if (!settings.enabled) return [];
  const methods: LoginMethod[] = ['link'];
  if (settings.tailscaleLogins.length > 0) methods.push('tailscale');
  if (settings.cloudflare !== null) methods.push('cloudflare');
  return methods;
}
