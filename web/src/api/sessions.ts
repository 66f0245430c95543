// The HTTP API as the page uses it (docs/api.md): same origin, JSON in and
// out, and an error that carries the server's own one-line message.

export type SessionStatus = 'running' | 'exited' | 'cold' | 'elsewhere';

export interface SessionInfo {
  index?: number;
  id: string;
  name: string | null;
  status: SessionStatus;
  exitCode?: number | null;
  exitSignal?: number | null;
  pid?: number | null;
  cwd?: string | null;
  title?: string | null;
  cols: number;
  rows: number;
  argv?: string[];
  createdAt?: number;
  endedAt?: number | null;
  lastOutputAt?: number | null;
  viewers?: number;
  degraded?: boolean;
  /** Agent state, when the session runs an agent (started, working, waiting, stopped…). */
  agent?: { state?: string } | string | null;
}

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
    throw new ApiError(res.status, error?.code ?? 'http', error?.message ?? `${method} ${path}: HTTP ${res.status}`);
  }
  return parsed as T;
}

const target = (t: string) => encodeURIComponent(t);

export const sessionsApi = {
  list: () => api<SessionInfo[]>('GET', '/v1/sessions'),
  get: (t: string) => api<SessionInfo>('GET', `/v1/sessions/${target(t)}`),
  create: (body: { name?: string; argv?: string[]; cwd?: string; cols?: number; rows?: number }) => api<SessionInfo>('POST', '/v1/sessions', body),
  rename: (t: string, name: string | null) => api<SessionInfo>('PATCH', `/v1/sessions/${target(t)}`, { name }),
  kill: (t: string) => api<SessionInfo>('DELETE', `/v1/sessions/${target(t)}`),
  revive: (t: string) => api<SessionInfo>('POST', `/v1/sessions/${target(t)}/revive`, {}),
};

/** A session's label: its name when it has one, else its id. */
export function sessionLabel(s: Pick<SessionInfo, 'id' | 'name'>): string {
  return s.name ?? s.id;
}
