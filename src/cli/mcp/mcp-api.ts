// The tend server as `tend mcp` reaches it: the CLI's client (one unix
// socket, the server started when none runs), with the calls that are safe to
// make twice riding through a server restart or crash the way `tend await`
// and `tend send` do. `tend mcp` lives as long as the agent that started it,
// so servers come and go under it: a call made after a restart just works.
import type { TendClient } from '../client.js';
import { RIDE_THROUGH_MS, RideThroughConnection } from '../ride-through.js';
import { API_ROUTES, type ApiRoute, type RouteQuery, type SessionInfo } from '../../protocol/api/index.js';

/** The server answers 503 input_interrupted when it went away while a holder took a write. */
const INTERRUPTED_STATUS = 503;

export class McpApi {
  private readonly riding: RideThroughConnection;

  constructor(readonly client: TendClient, stderr: NodeJS.WriteStream) {
    this.riding = new RideThroughConnection(client, {
      away: 'the tend server went away; waiting for it to come back…',
      gaveUp: (why) => `the tend server went away and did not come back within ${RIDE_THROUGH_MS / 1000} s (${why})`,
    }, stderr, [INTERRUPTED_STATUS]);
  }

  /**
   * A call made once (the server started first if none runs): for what must
   * not happen twice, such as creating or killing a session.
   */
  once<T>(route: ApiRoute, params: Record<string, string> = {}, body?: unknown, query?: RouteQuery): Promise<T> {
    return this.client.callRoute<T>(route, params, body, query);
  }

  /**
   * A call made again while the server is away (up to RIDE_THROUGH_MS): for
   * reads, input named by its key, and awaits named by their id.
   */
  again<T>(route: ApiRoute, params: Record<string, string> = {}, body?: unknown, query?: RouteQuery): Promise<T> {
    return this.riding.callRoute<T>(route, params, body, query);
  }

  /**
   * The session `target` names (an id, a unique prefix of it, :name, name or
   * index, as every verb takes it), read again through a restart. Tools look
   * a session up once and go on by its id, so an index or a name that moves
   * meanwhile cannot make one call act on two sessions.
   */
  session(target: string): Promise<SessionInfo> {
    return this.again<SessionInfo>(API_ROUTES.getSession, { target });
  }
}
