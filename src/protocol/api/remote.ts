// The remote-access routes (docs/remote.md; the gate itself is the server's
// src/server/access/): what `tend remote` reads and changes, and the one
// route a browser outside the gate may call, the exchange of a one-time
// link for the login cookie. Settings and sign-ins change only from local
// callers (the unix socket, or this user on 127.0.0.1).

/** How a browser signed in. */
export type LoginMethod = 'link' | 'tailscale' | 'cloudflare';

export interface RemoteCloudflare {
  /** The team's issuer, e.g. "https://myteam.cloudflareaccess.com"; keys are fetched from `${issuer}/cdn-cgi/access/certs`. */
  issuer: string;
  /** The Access application's AUD tag. */
  audience: string;
  /** Emails let in. */
  emails: string[];
}

/** The settings as stored (TEND_HOME/remote/settings.json). */
export interface RemoteSettingsView {
  /** Off: every caller that is not local is refused, as before `tend remote enable`. */
  enabled: boolean;
  /** Addresses beyond 127.0.0.1 to listen on ("HOST:PORT"); empty when reached only through a proxy on this machine. */
  listen: string[];
  /** Host header values (a name, or name:port) that a caller that is not local may use; any other is refused. */
  allowedHosts: string[];
  /** Tailscale logins (e.g. "alice@example.com") let in on `tailscale whois`'s word; empty turns the method off. */
  tailscaleLogins: string[];
  /** Cloudflare Access; null turns the method off. */
  cloudflare: RemoteCloudflare | null;
}

/** PATCH /v1/remote: each field given replaces the stored one; the rest stay. */
export type RemoteSettingsPatch = Partial<RemoteSettingsView>;

/** Limits on the settings, checked by the server (400 naming the field). */
export const REMOTE_LIMITS = {
  maxHosts: 32,
  maxListen: 8,
  maxLogins: 256,
  maxItemChars: 253,
} as const;

/** One address tend listens on. */
export interface RemoteListener {
  /** "127.0.0.1:7788", or a --listen address. */
  address: string;
  kind: 'loopback' | 'extra';
  /** Why it is not listening (a port in use, an address not on this machine); absent when it is. */
  error?: string;
}

/** GET /v1/remote (and PATCH's answer): the settings and what they come to right now. */
export interface RemoteStatus {
  settings: RemoteSettingsView;
  listeners: RemoteListener[];
  /** Sign-in methods a caller that is not local can use now: link always (when on), the others when set. */
  methods: LoginMethod[];
  /** Browsers signed in (login cookies not expired or revoked). */
  logins: number;
  /** One-time links made and not yet used or expired. */
  pendingLinks: number;
  /** Why settings.json could not be read, when it could not (remote is then off); null when it was fine. */
  settingsProblem: string | null;
}

/** POST /v1/remote/links body. */
export interface CreateLoginLinkRequest {
  /** The Host the link is for (one of allowedHosts); the first allowed host when left out. */
  host?: string;
}

/** POST /v1/remote/links answer. The token is only in the URL's fragment, which browsers never send. */
export interface LoginLinkReply {
  url: string;
  host: string;
  expiresAt: number;
}

/** A signed-in browser (GET /v1/remote/logins). No token or hash is ever shown. */
export interface LoginView {
  id: string;
  /** The Host the cookie was issued for: it is good there only. */
  host: string;
  method: LoginMethod;
  /** The Tailscale login or Cloudflare email; null for a one-time link. */
  login: string | null;
  userAgent: string | null;
  createdAt: number;
  lastUsedAt: number;
  expiresAt: number;
}

/** DELETE /v1/remote/logins/:id (":id" = "all" revokes every one). */
export interface RevokeLoginReply {
  revoked: number;
}

/** POST /v1/remote/exchange body: the token from a link's fragment. */
export interface ExchangeLoginLinkRequest {
  token: string;
}

/** POST /v1/remote/exchange answer; the cookie is in Set-Cookie. */
export interface ExchangeLoginLinkReply {
  ok: true;
  expiresAt: number;
}

/** The gate's login page: a one-time link opens it (https://HOST/login#t=TOKEN), and a remote page that lost its sign-in goes there. */
export const LOGIN_PAGE_PATH = '/login';

/** How long a one-time link may be used. */
export const LOGIN_LINK_TTL_MS = 10 * 60 * 1000;
/** How long a login cookie is good for. */
export const LOGIN_COOKIE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
