// The HTTP API as the page uses it: the contract's routes and shapes
// (src/protocol/api/, docs/api.md), same origin, JSON in and out, and an
// error that carries the server's own code and one-line message.

import { API_ROUTES, routePath, type ApiRoute, type CreateSessionRequest, type KilledSession, type ListedSession, type SessionInfo as ApiSession } from '../../../src/protocol/api/index.js';

import { leaveWhenSignedOut } from './signed-out.js';

export type { SessionStatus } from '../../../src/protocol/api/index.js';
/** A session as the page holds it: the API's, with its `tend ls` index when it came from the list. */
export type SessionInfo = ApiSession & { index?: number };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'unreachable', 'the tend server is not answering');
  }
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    leaveWhenSignedOut(res.status, error?.code ?? '');
    throw new ApiError(res.status, error?.code ?? 'http', error?.message ?? `${method} ${path}: HTTP ${res.status}`);
  }
  return parsed as T;
}

/** A call to a route of the contract, its parameters filled in. */
export function call<T>(route: ApiRoute, params: Record<string, string> = {}, body?: unknown): Promise<T> {
  return api<T>(route.method, routePath(route, params), body);
}

export const sessionsApi = {
  list: () => call<ListedSession[]>(API_ROUTES.listSessions),
  get: (target: string) => call<ApiSession>(API_ROUTES.getSession, { target }),
  create: (body: CreateSessionRequest) => call<ApiSession>(API_ROUTES.createSession, {}, body),
  rename: (target: string, name: string | null) => call<ApiSession>(API_ROUTES.renameSession, { target }, { name }),
  kill: (target: string) => call<KilledSession>(API_ROUTES.killSession, { target }),
  revive: (target: string) => call<ApiSession>(API_ROUTES.reviveSession, { target }, {}),
};

/** A session's label: its name when it has one, else its id. */
export function sessionLabel(s: Pick<SessionInfo, 'id' | 'name'>): string {
  return s.name ?? s.id;
}
