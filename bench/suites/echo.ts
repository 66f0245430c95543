// Keystroke echo: one byte written to the PTY, timed until something comes
// back, with a quiet gap between keys. `cat` in canonical mode means the
// kernel's line discipline echoes, so the raw side is the floor.

import { alternate, field, type Side } from '../lib/rounds.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import type { EchoResult } from '../lib/ptytool.js';
import type { Suite, SuiteReport } from '../lib/suite.js';
import { endTmuxServer, tmuxArgv, uniqueTmuxName } from '../lib/tmux.js';

const FULL_KEYS = 500;
const QUICK_KEYS = 200;
const KEY_GAP_MS = 3;

export const echoSuite: Suite = {
  name: 'echo',
  title: 'Keystroke echo: raw PTY vs tmux attach, µs',
  async run(ctx): Promise<SuiteReport> {
    const keys = ctx.quick ? QUICK_KEYS : FULL_KEYS;
    const sides: Side<EchoResult>[] = [
      { name: 'raw PTY, cat', run: () => ctx.ptytool.echo(['cat'], { keys, gapMs: KEY_GAP_MS }) },
      {
        name: 'tmux attach, cat',
        async run() {
          const name = uniqueTmuxName();
          try {
            return await ctx.ptytool.echo(tmuxArgv(name, 'new-session', 'cat'), { keys, gapMs: KEY_GAP_MS });
          } finally {
            // the session outlives its hung-up client: end the server by its PID
            await endTmuxServer(name, ctx.env);
          }
        },
      },
    ];
    const samples = await alternate(ctx.rounds, sides, (side, round, r) =>
      ctx.log(`  round ${round + 1} ${side}: p50 ${r.p50_us} µs, p99 ${r.p99_us} µs, ${r.timeouts} timeouts`));
    const rows = sides.map((s) => [s.name,
      formatSummary(summarize(field(samples, s.name, (r) => r.p50_us))),
      formatSummary(summarize(field(samples, s.name, (r) => r.p99_us))),
      formatSummary(summarize(field(samples, s.name, (r) => r.max_us))),
      String(field(samples, s.name, (r) => r.timeouts).reduce((a, b) => a + b, 0))]);
    const rawP50 = field(samples, 'raw PTY, cat', (r) => r.p50_us);
    const tmuxP50 = field(samples, 'tmux attach, cat', (r) => r.p50_us);
    const added = tmuxP50.map((t, i) => t - rawP50[i]!);
    return {
      tables: [{
        title: `Echo latency, µs (${keys} keys per run, ${KEY_GAP_MS} ms gap)`,
        columns: ['path', 'p50', 'p99', 'worst key', 'timeouts'],
        rows,
        notes: [`tmux adds ${formatSummary(summarize(added))} µs at p50 over the raw PTY (same round); ratio ${formatSummary(summarize(roundRatios(tmuxP50, rawP50)))}.`],
      }],
      data: Object.fromEntries(samples),
    };
  },
};
