// Calls that ride through a server restart or crash. Sessions outlive the
// server, so for some calls a lost connection is not the end: the call is
// made again, starting the server as every verb does, until the server
// answers or RIDE_THROUGH_MS pass. Only calls that are safe to make twice go
// through here: an await named by its id (the server answers the await it
// started instead of typing again), input named by its key (the session's
// holder drops what it already has).
import { CliError, isNoServer, unreachable, type TendClient } from './client.js';
import { errorFromApi } from './cli-error.js';
import { EXIT } from './exit-codes.js';
import { routeRequest, type ApiRoute, type RouteQuery } from '../protocol/api/index.js';

/** How long a server that went away is waited for (a recovery of many sessions takes seconds). */
export const RIDE_THROUGH_MS = 60_000;
/** Between attempts while the server is away. */
const RETRY_PAUSE_MS = 200;

export interface RideThroughMessages {
  /** Said once (on a terminal) when the server goes away. */
  away: string;
  /** The error when the server did not come back; `why` is the last connection error. */
  gaveUp(why: string): string;
}

/** The connection broke or could not be made: the server stopped, restarted or crashed. */
export function isConnectionLost(err: unknown): boolean {
  if (isNoServer(err)) return true;
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || (err as Error).message === 'socket hang up';
}

export class RideThroughConnection {
  private toldAway = false;

  constructor(
    private readonly client: TendClient,
    private readonly messages: RideThroughMessages,
    private readonly stderr: NodeJS.WriteStream,
    /** Answers with these statuses are the server going away mid-call, too: the call is made again. */
    private readonly retryStatuses: readonly number[] = [],
  ) {}

  /** A call to a route of the API's contract (see call). */
  callRoute<T>(route: ApiRoute, params: Record<string, string> = {}, body?: unknown, query?: RouteQuery): Promise<T> {
    const { method, path } = routeRequest(route, params, query);
    return this.call<T>(method, path, body);
  }

  /** One call; API errors become CliError, a lost server is waited for. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const giveUpAt = Date.now() + RIDE_THROUGH_MS;
    for (;;) {
      let res;
      try {
        res = await this.client.raw<T>(method, path, body);
      } catch (err) {
        if (!isConnectionLost(err)) throw unreachable(err);
        if (Date.now() > giveUpAt) throw new CliError(this.messages.gaveUp((err as Error).message), EXIT.failed, { code: 'server_unreachable' });
        this.noteAway();
        await this.reconnect(err);
        continue;
      }
      if (this.retryStatuses.includes(res.status) && Date.now() <= giveUpAt) {
        this.noteAway();
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
        continue;
      }
      if (res.status >= 400) throw errorFromApi(res.status, res.body);
      return res.body;
    }
  }

  private async reconnect(err: unknown): Promise<void> {
    if (isNoServer(err)) {
      try {
        await this.client.startServer();
        return;
      } catch {
        // Another start won the race, or the old server still holds its lock while it stops: try again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
  }

  private noteAway(): void {
    if (this.toldAway || !this.stderr.isTTY) return;
    this.toldAway = true;
    this.stderr.write(`tend: ${this.messages.away}\n`);
  }
}
