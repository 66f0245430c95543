// Throughput from a program's writes to a drained viewer: the raw PTY (the
// ceiling), tmux with no client (its parse into the grid) and tmux attached
// (parse, then paint to a client on a PTY that ptytool drains). MB/s is
// 10^6 bytes of the stream file per second, for every side alike.

import { alternate, field, type Side } from '../lib/rounds.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import type { BenchContext, Suite, SuiteReport } from '../lib/suite.js';
import { endTmuxServer, TMUX_HISTORY_ROWS, tmuxArgv, TmuxServer, uniqueTmuxName } from '../lib/tmux.js';
import type { StreamFile } from '../lib/streams.js';

interface Sample {
  mbPerS: number;
  /** bytes the measuring side saw (after ONLCR for PTY sides; the file for tmux detached) */
  bytes: number;
}

const SIDES = ['raw PTY', 'tmux detached', 'tmux attached'] as const;

function rawSide(ctx: BenchContext, s: StreamFile): Side<Sample> {
  return {
    name: `${s.name}/raw PTY`,
    async run() {
      const r = await ctx.ptytool.drain(['cat', s.path]);
      return { mbPerS: s.bytes / 1e6 / (r.elapsed_ms / 1e3), bytes: r.bytes };
    },
  };
}

function tmuxDetachedSide(ctx: BenchContext, s: StreamFile, server: TmuxServer): Side<Sample> {
  let n = 0;
  return {
    name: `${s.name}/tmux detached`,
    async run() {
      const id = `${s.name}-${n++}`;
      // the pane signals when cat is done; wait-for returns at once if it already has
      const start = performance.now();
      await server.run(['new-session', '-d', '-s', id, `cat '${s.path}'; tmux wait-for -S ${id}`]);
      await server.run(['wait-for', id]);
      const ms = performance.now() - start;
      // the session ends by itself once its pane's command has exited
      return { mbPerS: s.bytes / 1e6 / (ms / 1e3), bytes: s.bytes };
    },
  };
}

function tmuxAttachedSide(ctx: BenchContext, s: StreamFile): Side<Sample> {
  return {
    name: `${s.name}/tmux attached`,
    async run() {
      // the attaching client creates the session, so cat starts when the drain's clock does;
      // the drain ends when the client exits after the pane has died and been painted
      const name = uniqueTmuxName();
      try {
        const r = await ctx.ptytool.drain(tmuxArgv(name, 'set', '-g', 'history-limit', String(TMUX_HISTORY_ROWS), ';',
          'new-session', `cat '${s.path}'`));
        return { mbPerS: s.bytes / 1e6 / (r.elapsed_ms / 1e3), bytes: r.bytes };
      } finally {
        await endTmuxServer(name, ctx.env);
      }
    },
  };
}

export const throughputSuite: Suite = {
  name: 'throughput',
  title: 'Throughput: raw PTY vs tmux, MB/s',
  async run(ctx): Promise<SuiteReport> {
    const server = ctx.owned.add(await TmuxServer.start(ctx.env));
    const sides = ctx.streams.flatMap((s) => [rawSide(ctx, s), tmuxDetachedSide(ctx, s, server), tmuxAttachedSide(ctx, s)]);
    const samples = await alternate(ctx.rounds, sides, (side, round, x) =>
      ctx.log(`  round ${round + 1} ${side}: ${x.mbPerS.toFixed(1)} MB/s`));
    server.dispose();

    const mb = (stream: string, side: string): number[] => field(samples, `${stream}/${side}`, (x) => x.mbPerS);
    const rows = ctx.streams.map((s) => [s.name, `${(s.bytes / 1e6).toFixed(1)} MB`,
      ...SIDES.map((side) => formatSummary(summarize(mb(s.name, side))))]);
    const ratioRows = ctx.streams.map((s) => [s.name,
      formatSummary(summarize(roundRatios(mb(s.name, 'tmux detached'), mb(s.name, 'raw PTY')))),
      formatSummary(summarize(roundRatios(mb(s.name, 'tmux attached'), mb(s.name, 'raw PTY')))),
      formatSummary(summarize(field(samples, `${s.name}/tmux attached`, (x) => x.bytes / 1e6)))]);
    const data = Object.fromEntries([...samples].map(([k, v]) => [k, v]));
    return {
      tables: [
        { title: 'Throughput, MB/s (80x24)', columns: ['stream', 'size', ...SIDES], rows },
        {
          title: 'Same-round ratios',
          columns: ['stream', 'tmux detached / raw', 'tmux attached / raw', 'tmux client painted, MB'],
          rows: ratioRows,
          notes: ['raw PTY: `ptytool drain -- cat FILE`, spawn until EIO.',
            'tmux detached: private server, `new-session -d "cat FILE; tmux wait-for -S id"`, timed until `wait-for id` returns.',
            'tmux attached: `ptytool drain -- tmux -L NAME -f /dev/null set -g history-limit 10000 \\; new-session "cat FILE"`.'],
        },
      ],
      data,
    };
  },
};
