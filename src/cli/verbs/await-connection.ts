// `tend await`'s calls to the server, which ride through a server restart or
// crash: a command outlives the server that typed it (the await is kept in
// the store, bound to its command), so a lost connection is not the await's
// end. Every call names the await by an id the CLI chose, so a start whose
// answer was lost is asked again by that id, and the server answers the
// await it started instead of typing the command a second time.
import { randomBytes } from 'node:crypto';
import type { TendClient } from '../client.js';
import { RIDE_THROUGH_MS, RideThroughConnection } from '../ride-through.js';

/** A fresh await id, in the form the server accepts. */
export function newAwaitId(): string {
  return `w${randomBytes(6).toString('hex')}`;
}

export class AwaitConnection extends RideThroughConnection {
  constructor(client: TendClient, awaitId: string, stderr: NodeJS.WriteStream) {
    super(client, {
      away: 'the server went away; waiting for it to come back (the command keeps running)…',
      gaveUp: (why) => `the tend server went away and did not come back within ${RIDE_THROUGH_MS / 1000} s (${why}); nothing was cancelled: collect the result later with \`tend await --resume ${awaitId}\``,
    }, stderr);
  }
}
