// Keystroke echo through the holder (INPUT frame in, OUTPUT frame back) vs a
// direct PTY, both with `cat` so the kernel echoes (issue target: added
// latency under 0.1 ms).

import { BenchHolder, holderMissing } from '../lib/bench-holder.js';
import { nodeEcho } from '../lib/node-holder-client.js';
import type { EchoResult } from '../lib/ptytool.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import { formatSummary, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const FULL_KEYS = 500;
const QUICK_KEYS = 200;
const KEY_GAP_MS = 3;
const RAW = 'direct PTY, cat';

async function throughHolder(ctx: BenchContext, run: (h: BenchHolder) => Promise<EchoResult>): Promise<EchoResult> {
  const holder = await BenchHolder.start(ctx, ['cat']);
  try {
    return await run(holder);
  } finally {
    holder.dispose();
  }
}

export const holderEchoSuite: Suite = {
  name: 'holder-echo',
  title: 'Holder echo: through the holder vs a direct PTY, µs',
  async run(ctx): Promise<SuiteReport> {
    const missing = holderMissing(ctx.root);
    if (missing) return skipped(missing);
    const keys = ctx.quick ? QUICK_KEYS : FULL_KEYS;
    const sides: Side<EchoResult>[] = [
      { name: RAW, run: () => ctx.ptytool.echo(['cat'], { keys, gapMs: KEY_GAP_MS }) },
      { name: 'holder, C client', run: () => throughHolder(ctx, (h) => ctx.ptytool.holderEcho(h.socket, { keys, gapMs: KEY_GAP_MS })) },
      { name: 'holder, Node client', run: () => throughHolder(ctx, (h) => nodeEcho(h.socket, keys, KEY_GAP_MS)) },
    ];
    const samples = await alternate(ctx.rounds, sides, (side, round, r) =>
      ctx.log(`  round ${round + 1} ${side}: p50 ${r.p50_us.toFixed(1)} µs, p99 ${r.p99_us.toFixed(1)} µs`));
    const raw50 = field(samples, RAW, (r) => r.p50_us);
    const raw99 = field(samples, RAW, (r) => r.p99_us);
    const rows = sides.map((s) => {
      const p50 = field(samples, s.name, (r) => r.p50_us);
      const p99 = field(samples, s.name, (r) => r.p99_us);
      const added = (a: number[], b: number[]): string =>
        s.name === RAW ? '' : formatSummary(summarize(a.map((v, i) => v - b[i]!)));
      return [s.name, formatSummary(summarize(p50)), formatSummary(summarize(p99)), added(p50, raw50), added(p99, raw99),
        String(field(samples, s.name, (r) => r.timeouts).reduce((a, b) => a + b, 0))];
    });
    return {
      tables: [{
        title: `Holder echo latency, µs (${keys} keys per run, ${KEY_GAP_MS} ms gap)`,
        columns: ['path', 'p50', 'p99', 'added p50 (same round)', 'added p99', 'timeouts'],
        rows,
      }],
      data: Object.fromEntries(samples),
    };
  },
};
