// A process's RSS once it has stopped moving. A Node server allocates while it
// parses and frees on its own GC schedule (we cannot call gc() in it), so a
// single reading right after a burst of work is noise; waiting until two
// readings a while apart agree is the closest thing to "settled" from outside.

import { readRssKb } from './proc-memory.js';

const SETTLE_POLL_MS = 250;
/** Two readings this close (relative) count as settled. */
const SETTLE_TOLERANCE = 0.01;

export interface SettledRss {
  rssKb: number;
  /** false when the limit ran out first: the reading is the last one taken */
  settled: boolean;
  waitedMs: number;
}

export async function settledRssKb(pid: number, limitMs: number): Promise<SettledRss> {
  const started = performance.now();
  let last = readRssKb(pid);
  for (;;) {
    await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
    const now = readRssKb(pid);
    const waitedMs = performance.now() - started;
    if (Math.abs(now - last) <= SETTLE_TOLERANCE * last) return { rssKb: now, settled: true, waitedMs };
    if (waitedMs > limitMs) return { rssKb: now, settled: false, waitedMs };
    last = now;
  }
}
