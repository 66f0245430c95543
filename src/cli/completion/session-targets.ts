// The session targets a shell offers while the user types: `:name` for a
// named session, the id for one without a name. Asked at every Tab, so it
// never starts a server, never waits long, and says nothing when there is
// no server to ask: a completion that prints errors garbles the command line.
import type { TendClient } from '../client.js';
import type { SessionView } from '../format.js';
import { API_ROUTES } from '../../protocol/api/index.js';

/** A server that does not answer this fast is not worth holding the user's Tab for. */
const TARGET_LIST_TIMEOUT_MS = 1000;

export async function sessionTargets(client: TendClient): Promise<string[]> {
  try {
    const res = await client.raw<SessionView[]>(API_ROUTES.listSessions.method, API_ROUTES.listSessions.path, undefined, TARGET_LIST_TIMEOUT_MS);
    if (res.status !== 200 || !Array.isArray(res.body)) return [];
    return res.body.map((s) => (s.name ? `:${s.name}` : s.id));
  } catch {
    return [];
  }
}
