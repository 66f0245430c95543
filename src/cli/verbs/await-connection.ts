// `tend await`'s calls to the server, which ride through a server restart or
// crash: a command outlives the server that typed it (the await is kept in
// the store, bound to its command), so a lost connection is not the await's
// end. The call is made again, starting the server as every verb does, until
// the server answers or RIDE_THROUGH_MS pass. Every call names the await by
// an id the CLI chose, so a start whose answer was lost is asked again by
// that id, and the server answers the await it started instead of typing
// the command a second time.
import { randomBytes } from 'node:crypto';
import { CliError, apiErrorMessage, isNoServer, type TendClient } from '../client.js';

/** How long a server that went away is waited for (a recovery of many sessions takes seconds). */
export const RIDE_THROUGH_MS = 60_000;
/** Between attempts while the server is away. */
const RETRY_PAUSE_MS = 200;

/** A fresh await id, in the form the server accepts. */
export function newAwaitId(): string {
  return `w${randomBytes(6).toString('hex')}`;
}

/** The connection broke or could not be made: the server stopped, restarted or crashed. */
function isConnectionLost(err: unknown): boolean {
  if (isNoServer(err)) return true;
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || (err as Error).message === 'socket hang up';
}

export class AwaitConnection {
  private toldAway = false;

  constructor(private readonly client: TendClient, private readonly awaitId: string, private readonly stderr: NodeJS.WriteStream) {}

  /** One call; API errors become CliError, a lost server is waited for. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const giveUpAt = Date.now() + RIDE_THROUGH_MS;
    for (;;) {
      let res;
      try {
        res = await this.client.raw<T>(method, path, body);
      } catch (err) {
        if (!isConnectionLost(err)) throw new CliError(`cannot talk to the tend server: ${(err as Error).message}`);
        if (Date.now() > giveUpAt) throw new CliError(`the tend server went away and did not come back within ${RIDE_THROUGH_MS / 1000} s (${(err as Error).message}); nothing was cancelled: collect the result later with \`tend await --resume ${this.awaitId}\``);
        this.noteAway();
        await this.reconnect(err);
        continue;
      }
      if (res.status >= 400) throw new CliError(apiErrorMessage(res.body), res.status === 400 ? 2 : 1);
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
    this.stderr.write('tend: the server went away; waiting for it to come back (the command keeps running)…\n');
  }
}
