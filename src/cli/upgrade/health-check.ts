// Whether a freshly started server is one to keep: its API answers, it is
// the build that was meant to start, every session that was running before
// the stop is running again (none came back cold), and a viewer that
// subscribes to one of them gets its screen. Each failure is said in words a
// person can act on; an upgrade that fails here is rolled back.
import { API_ROUTES, type HealthReply, type ListedSession, type SessionStatus } from '../../protocol/api/index.js';
import { CloseReason, VIEWER_PROTOCOL_VERSION, type FrameFromServer } from '../../protocol/viewer-frames.js';
import { ServerLink } from '../attach/server-link.js';
import type { TendClient } from '../client.js';

/** How long the API may take to answer once the server said it serves. */
const API_ANSWER_TIMEOUT_MS = 5_000;
/** How long a subscribing viewer may wait for its snapshot. */
const SNAPSHOT_TIMEOUT_MS = 10_000;
/** The size the checking viewer says it has; it is read-only, so no session takes it. */
const CHECK_VIEWER_COLS = 80;
const CHECK_VIEWER_ROWS = 24;

/** The sessions a server had before it was stopped: what the next one must bring back. */
export interface SessionsBefore {
  running: string[];
  all: number;
}

export function sessionsBefore(list: ListedSession[]): SessionsBefore {
  return { running: list.filter((s) => s.status === 'running').map((s) => s.id), all: list.length };
}

export interface HealthResult {
  ok: boolean;
  /** One line per check that failed. */
  problems: string[];
  health: HealthReply | null;
  /** Of the sessions that were running: back live (running, or ended with its exit status known). */
  recovered: number;
  /** Of the sessions that were running: cold, elsewhere or missing. */
  lost: Array<{ id: string; status: SessionStatus | 'missing' }>;
  /** The session a viewer got a snapshot of (null when there was none to try). */
  snapshotOf: string | null;
}

export async function checkServer(client: TendClient, expected: { build: string; before: SessionsBefore | null }): Promise<HealthResult> {
  const result: HealthResult = { ok: false, problems: [], health: null, recovered: 0, lost: [], snapshotOf: null };
  let health: HealthReply;
  let list: ListedSession[];
  try {
    health = await answer<HealthReply>(client, API_ROUTES.health.path);
    list = await answer<ListedSession[]>(client, API_ROUTES.listSessions.path);
  } catch (err) {
    result.problems.push(`its API did not answer (${(err as Error).message})`);
    return result;
  }
  result.health = health;
  if (health.build !== expected.build) result.problems.push(`it says it is build ${health.build}, not ${expected.build}`);
  const statusOf = new Map(list.map((s) => [s.id, s.status]));
  // Without the old server's list (none was running), its own account of what the store said was running.
  const running = expected.before?.running ?? null;
  if (running !== null) {
    for (const id of running) {
      const status = statusOf.get(id) ?? 'missing';
      // An ended program is taken back live too: its holder kept the exit status for the new server.
      if (status === 'running' || status === 'exited') result.recovered++;
      else result.lost.push({ id, status });
    }
  } else {
    result.recovered = health.recovery.recovered;
    if (health.recovery.cold > 0) result.problems.push(`${health.recovery.cold} of the ${health.recovery.total} sessions that were running came back cold`);
  }
  if (result.lost.length > 0) {
    const words = result.lost.slice(0, 5).map((l) => `${l.id} ${l.status}`).join(', ');
    result.problems.push(`${result.lost.length} of the ${running!.length} sessions that were running did not come back running (${words}${result.lost.length > 5 ? ', …' : ''})`);
  }
  const candidate = list.find((s) => s.status === 'running') ?? list[0];
  if (candidate !== undefined) {
    result.snapshotOf = candidate.id;
    let seen = await viewerGetsSnapshot(client.currentServerSocket(), candidate.id);
    // Its program ended while the viewer waited (the server closes every viewer of a session that
    // ends): not the server's fault. An ended session is shown too; the viewer asks once more.
    if (seen.ended) seen = await viewerGetsSnapshot(client.currentServerSocket(), candidate.id);
    if (seen.why !== null) result.problems.push(`a viewer got no screen of session ${candidate.id} (${seen.why})`);
  }
  result.ok = result.problems.length === 0;
  return result;
}

/**
 * The health of the server answering on this home's socket, whatever its
 * build and API (client.isRunning() would take a server that refuses this
 * tend's API for none); null when none answers.
 */
export async function healthOf(client: TendClient): Promise<HealthReply | null> {
  try {
    const res = await client.rawAnyVersion<HealthReply>(API_ROUTES.health.method, API_ROUTES.health.path, undefined, API_ANSWER_TIMEOUT_MS);
    return res.status === 200 ? res.body : null;
  } catch {
    return null;
  }
}

async function answer<T>(client: TendClient, path: string): Promise<T> {
  const res = await client.rawAnyVersion<T>('GET', path, undefined, API_ANSWER_TIMEOUT_MS);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  return res.body;
}

/**
 * Opens the viewer socket as `tend attach` does, read-only, subscribes to the
 * session and waits for its SNAPSHOT. `why` is null when one came, else why
 * not; `ended` says the session's program ended before it came.
 */
function viewerGetsSnapshot(socketPath: string, sessionId: string): Promise<{ why: string | null; ended: boolean }> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (why: string | null, ended = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      link.close();
      resolve({ why, ended });
    };
    const timer = setTimeout(() => settle(`no snapshot within ${SNAPSHOT_TIMEOUT_MS / 1000} s`), SNAPSHOT_TIMEOUT_MS);
    const link: ServerLink = new ServerLink(socketPath, {
      onOpen: () => link.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }),
      onFrame: (frame: FrameFromServer) => {
        if (frame.type === 'welcome') {
          link.send({ type: 'subscribe', channel: 1, sessionId, cols: CHECK_VIEWER_COLS, rows: CHECK_VIEWER_ROWS });
        } else if (frame.type === 'snapshot') {
          settle(null);
        } else if (frame.type === 'closed') {
          settle(`the server said: ${frame.message}`, frame.reason === CloseReason.SESSION_ENDED);
        } else if (frame.type === 'error') {
          settle(`the server said: ${frame.message}`);
        }
      },
      onClose: (why) => settle(`the socket closed: ${why}`),
    });
  });
}
