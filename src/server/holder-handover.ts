// After a holder has exec'd its new binary (Session.handOverHolder): the
// connection to the new image, on the same socket, holding the lease. The
// socket stays open through the exec, so a connect made meanwhile waits in
// its backlog for the new image; a refused one means the new image could not
// resume and the holder is gone.
import { HolderConnection } from '../holder-client/index.js';
import type { HolderUpgradeOutcome } from '../protocol/api/index.js';

/** Each kind of outcome without the session's id and name (distributes over the union). */
type WithoutSession<T> = T extends unknown ? Omit<T, 'session' | 'name'> : never;
/** What became of one session's holder: the API's outcome, before the session is named in it. */
export type HandOverResult = WithoutSession<HolderUpgradeOutcome>;

/** How long the lease is asked for again while the old image's connections are still closing. */
const LEASE_RETRY_MS = 2000;
const LEASE_RETRY_INTERVAL_MS = 20;

export async function reconnectAfterHandover(
  socketPath: string,
  generation: string | null,
  opts: { readBuffer: Uint8Array; timeoutMs: number },
): Promise<{ holder: HolderConnection } | { error: string }> {
  let holder: HolderConnection;
  try {
    holder = await HolderConnection.connect(socketPath, { timeoutMs: opts.timeoutMs, readBuffer: opts.readBuffer });
  } catch (err) {
    return { error: `the new holder binary did not take over (${(err as Error).message})` };
  }
  const state = holder.lastState;
  if (generation !== null && state.generation !== generation) {
    holder.dispose();
    return { error: `the holder at ${socketPath} after the hand-over is another one (generation ${state.generation}, not ${generation})` };
  }
  const deadlineMs = performance.now() + LEASE_RETRY_MS;
  for (;;) {
    let lease;
    try {
      lease = await holder.acquire();
    } catch (err) {
      return { error: `the new holder closed its connection (${(err as Error).message})` };
    }
    if (lease === 'acquired') return { holder };
    if (performance.now() >= deadlineMs) {
      holder.dispose();
      return { error: `the new holder's lease is held by another controller: ${lease.denied}` };
    }
    await new Promise((r) => setTimeout(r, LEASE_RETRY_INTERVAL_MS));
  }
}
