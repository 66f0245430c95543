// Every route of the HTTP API: the server registers exactly these (a route
// it serves that is not here, or one here it does not serve, fails a test),
// and docs/api.md documents each.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRoute {
  method: HttpMethod;
  /** Segments that start with ":" are parameters (":target" is a session target, docs/api.md "Targets"). */
  path: string;
}

const route = (method: HttpMethod, path: string): ApiRoute => ({ method, path });

export const API_ROUTES = {
  health: route('GET', '/v1/health'),
  stopServer: route('POST', '/v1/server/stop'),

  listSessions: route('GET', '/v1/sessions'),
  createSession: route('POST', '/v1/sessions'),
  getSession: route('GET', '/v1/sessions/:target'),
  renameSession: route('PATCH', '/v1/sessions/:target'),
  killSession: route('DELETE', '/v1/sessions/:target'),
  reviveSession: route('POST', '/v1/sessions/:target/revive'),
  sendInput: route('POST', '/v1/sessions/:target/input'),
  resizeSession: route('POST', '/v1/sessions/:target/resize'),
  signalSession: route('POST', '/v1/sessions/:target/signal'),
  readScreen: route('GET', '/v1/sessions/:target/screen'),
  searchSession: route('GET', '/v1/sessions/:target/search'),
  searchSessions: route('GET', '/v1/search'),

  listCommands: route('GET', '/v1/sessions/:target/commands'),
  commandOutput: route('GET', '/v1/sessions/:target/output'),
  startAwait: route('POST', '/v1/sessions/:target/await'),
  getAwait: route('GET', '/v1/awaits/:id'),

  agentEvent: route('POST', '/v1/sessions/:target/agent/events'),
  sleepAgent: route('POST', '/v1/sessions/:target/agent/sleep'),
  wakeAgent: route('POST', '/v1/sessions/:target/agent/wake'),

  listWorkspaces: route('GET', '/v1/workspaces'),
  getWorkspace: route('GET', '/v1/workspaces/:name'),
  putWorkspace: route('PUT', '/v1/workspaces/:name'),
  removeWorkspace: route('DELETE', '/v1/workspaces/:name'),
  addToWorkspace: route('POST', '/v1/workspaces/:name/sessions'),
  splitSession: route('POST', '/v1/sessions/:target/split'),

  // Upgrades (docs/upgrades.md): replace running holders' binaries in place.
  upgradeHolders: route('POST', '/v1/holders/upgrade'),

  // Remote access (docs/remote.md): settings and sign-ins change only from local callers;
  // exchangeLoginLink is the one route a caller outside the gate may reach.
  getRemote: route('GET', '/v1/remote'),
  updateRemote: route('PATCH', '/v1/remote'),
  createLoginLink: route('POST', '/v1/remote/links'),
  listLogins: route('GET', '/v1/remote/logins'),
  revokeLogin: route('DELETE', '/v1/remote/logins/:id'),
  exchangeLoginLink: route('POST', '/v1/remote/exchange'),
} as const satisfies Record<string, ApiRoute>;

export type ApiRouteName = keyof typeof API_ROUTES;

/** The WebSocket every viewer speaks (docs/viewer-protocol.md); not a JSON route. */
export const VIEWER_SOCKET_PATH = '/v1/viewer';

/**
 * A route's path with its parameters filled in, each URL-encoded
 * (`:build` is sent as `%3Abuild`).
 */
export function routePath(r: ApiRoute, params: Record<string, string> = {}): string {
  return r.path.replace(/:([a-z]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`route ${r.path} needs "${name}"`);
    return encodeURIComponent(value);
  });
}

/** Query parameters as a caller gives them: absent ones (undefined) are left out. */
export type RouteQuery = Record<string, string | number | boolean | undefined>;

/** A request to a route: its method, and its path with parameters filled in and the query appended. */
export function routeRequest(r: ApiRoute, params: Record<string, string> = {}, query: RouteQuery = {}): { method: HttpMethod; path: string } {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
  const q = search.toString();
  return { method: r.method, path: q === '' ? routePath(r, params) : `${routePath(r, params)}?${q}` };
}
