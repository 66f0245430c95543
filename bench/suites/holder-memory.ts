// The holder's own memory (issue target: RSS ≤ 1.5 MB plus the ring's touched
// pages; design target: ≤ 0.2 MB private plus the ring). Idle right after
// start, and after more than a whole ring of output with no controller.

import { BENCH_RING_BYTES, BenchHolder, holderMissing } from '../lib/bench-holder.js';
import { readProcessMemory, type ProcessMemory } from '../lib/proc-memory.js';
import { formatSummary, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

interface Sample {
  idle: ProcessMemory;
  fullRing: ProcessMemory;
  bytesRead: number;
}

async function measureOnce(ctx: BenchContext): Promise<Sample> {
  const idleHolder = await BenchHolder.start(ctx, ['cat']);
  await idleHolder.waitForOffset(0); // one STATE round trip: the holder is up and serving
  const idle = readProcessMemory(idleHolder.holderPid);
  idleHolder.dispose();

  const text = ctx.streams[0]!;
  // at least 1.5 rings of output, so every ring page has been written
  const reps = Math.ceil((1.5 * BENCH_RING_BYTES) / text.bytes);
  const holder = await BenchHolder.start(ctx, ['sh', '-c', `for i in $(seq ${reps}); do cat "$0"; done; exec cat`, text.path]);
  const bytesRead = await holder.waitForOffset(reps * text.bytes);
  const fullRing = readProcessMemory(holder.holderPid);
  holder.dispose();
  return { idle, fullRing, bytesRead };
}

export const holderMemorySuite: Suite = {
  name: 'holder-memory',
  title: 'Holder memory',
  async run(ctx): Promise<SuiteReport> {
    const missing = holderMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : Math.min(ctx.rounds, 3);
    const samples: Sample[] = [];
    for (let r = 0; r < rounds; r++) {
      const s = await measureOnce(ctx);
      ctx.log(`  round ${r + 1}: idle ${s.idle.privateKb} kB private, full ring ${s.fullRing.privateKb} kB private`);
      samples.push(s);
    }
    const ringKb = BENCH_RING_BYTES / 1024;
    const f = (pick: (s: Sample) => number): string => formatSummary(summarize(samples.map(pick)));
    const row = (label: string, pick: (s: Sample) => ProcessMemory): string[] =>
      [label, f((s) => pick(s).rssKb), f((s) => pick(s).pssKb), f((s) => pick(s).privateKb)];
    return {
      tables: [{
        title: `Holder memory, kB (ring ${ringKb} KiB, ${rounds} round${rounds > 1 ? 's' : ''})`,
        columns: ['holder', 'RSS', 'PSS', 'private'],
        rows: [
          row('idle, child `cat`', (s) => s.idle),
          row('after 1.5 rings of output, no controller', (s) => s.fullRing),
          ['full ring minus the ring itself', f((s) => s.fullRing.rssKb - ringKb), f((s) => s.fullRing.pssKb - ringKb),
            f((s) => s.fullRing.privateKb - ringKb)],
        ],
        notes: ['/proc/PID/smaps_rollup of the holder process; private = Private_Clean + Private_Dirty. RSS counts shared libc pages.'],
      }],
      data: { ringBytes: BENCH_RING_BYTES, samples },
    };
  },
};
