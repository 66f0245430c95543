// Throughput PTY -> holder -> a draining client, against the raw PTY drain of
// the same stream in the same round (issue target: >= 0.9 of direct). The C
// client (ptytool holder-drain) measures the holder itself; the Node client
// (HolderConnection) measures what the server will see before it parses.

import { rmSync } from 'node:fs';
import { BenchHolder, gatedCat, holderMissing, makeGoFifo } from '../lib/bench-holder.js';
import { nodeDrain } from '../lib/node-holder-client.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import type { StreamFile } from '../lib/streams.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

interface Sample {
  mbPerS: number;
  bytes: number;
}

const SIDES = ['raw PTY', 'holder → C client', 'holder → Node client'] as const;

/** A holder whose child is held at a FIFO until the client has its stream set up. */
async function withGatedHolder<T>(ctx: BenchContext, s: StreamFile, run: (h: BenchHolder, fifo: string) => Promise<T>): Promise<T> {
  const fifo = makeGoFifo(ctx);
  const holder = await BenchHolder.start(ctx, gatedCat(fifo, s.path));
  try {
    return await run(holder, fifo);
  } finally {
    holder.dispose();
    rmSync(fifo, { force: true });
  }
}

function sides(ctx: BenchContext, s: StreamFile): Side<Sample>[] {
  const mbPerS = (ms: number): number => s.bytes / 1e6 / (ms / 1e3);
  return [
    {
      name: `${s.name}/raw PTY`,
      async run() {
        const r = await ctx.ptytool.drain(['cat', s.path]);
        return { mbPerS: mbPerS(r.elapsed_ms), bytes: r.bytes };
      },
    },
    {
      name: `${s.name}/holder → C client`,
      run: () => withGatedHolder(ctx, s, async (h, fifo) => {
        const r = await ctx.ptytool.holderDrain(h.socket, fifo);
        if (r.holes > 0) throw new Error(`holder stream had ${r.holes} offset holes`);
        return { mbPerS: mbPerS(r.elapsed_ms), bytes: r.bytes };
      }),
    },
    {
      name: `${s.name}/holder → Node client`,
      run: () => withGatedHolder(ctx, s, async (h, fifo) => {
        const r = await nodeDrain(h.socket, fifo);
        return { mbPerS: mbPerS(r.elapsedMs), bytes: r.bytes };
      }),
    },
  ];
}

export const holderThroughputSuite: Suite = {
  name: 'holder-throughput',
  title: 'Holder throughput: PTY → holder → client vs raw PTY, MB/s',
  async run(ctx): Promise<SuiteReport> {
    const missing = holderMissing(ctx.root);
    if (missing) return skipped(missing);
    const samples = await alternate(ctx.rounds, ctx.streams.flatMap((s) => sides(ctx, s)), (side, round, x) =>
      ctx.log(`  round ${round + 1} ${side}: ${x.mbPerS.toFixed(1)} MB/s`));
    const mb = (stream: string, side: string): number[] => field(samples, `${stream}/${side}`, (x) => x.mbPerS);
    const bytes = (stream: string, side: string): number[] => field(samples, `${stream}/${side}`, (x) => x.bytes);
    const notes = ['raw PTY: `ptytool drain -- cat FILE` (spawn until EIO).',
      'holder: the child waits on a FIFO; the clock starts when the client, streaming from offset 0, lets it go, and stops at EXIT.'];
    for (const s of ctx.streams) {
      for (const side of SIDES.slice(1)) {
        const mismatched = bytes(s.name, side).filter((b, i) => b !== bytes(s.name, 'raw PTY')[i]).length;
        if (mismatched) notes.push(`${s.name}, ${side}: byte count differed from the raw drain in ${mismatched} round(s).`);
      }
    }
    return {
      tables: [
        {
          title: 'Holder throughput, MB/s (80x24)',
          columns: ['stream', ...SIDES],
          rows: ctx.streams.map((s) => [s.name, ...SIDES.map((side) => formatSummary(summarize(mb(s.name, side))))]),
        },
        {
          title: 'Same-round ratios to the raw PTY',
          columns: ['stream', 'C client / raw', 'Node client / raw'],
          rows: ctx.streams.map((s) => [s.name,
            formatSummary(summarize(roundRatios(mb(s.name, SIDES[1]), mb(s.name, 'raw PTY')))),
            formatSummary(summarize(roundRatios(mb(s.name, SIDES[2]), mb(s.name, 'raw PTY'))))]),
          notes,
        },
      ],
      data: Object.fromEntries(samples),
    };
  },
};
