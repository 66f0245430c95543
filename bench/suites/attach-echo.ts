// Keystroke echo through `tend attach` against `tmux attach` and a raw PTY,
// alternating in each round: one byte in (ptytool echo), timed until anything
// comes back, with a quiet gap between keys. Every side has `cat` behind it,
// whose PTY echoes in canonical mode, so what differs is the path: the raw
// PTY is the kernel alone; tmux is client → server → pane and back; tend is
// the native viewer (C), alone on its session so it types straight to the
// holder (INPUT_ROUTE) → the pane, and the echo → the holder → the Node server
// → the viewer; in the same rounds the Node viewer (TEND_VIEWER=node), whose
// keys pass the server both ways, so the viewer's own share shows.

import type { EchoResult } from '../lib/ptytool.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatNumber, formatSummary, percentile, roundRatios, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { tmuxArgv, TmuxServer } from '../lib/tmux.js';
import {
  echoAfterPaint, viewersToMeasure, plainLaunch, tendAttachLaunch, VIEWER_SETTLE_MS, viewerLabel, type ViewerKind,
} from '../lib/attach-viewer.js';

const FULL_KEYS = 500;
const QUICK_KEYS = 100;
const KEY_GAP_MS = 3;
/** Keys slower than this are counted in the pooled table. */
const SLOW_KEY_US = 1000;

const RAW = 'raw PTY, cat';
const TMUX = 'tmux attach, cat';
const tendName = (viewer: ViewerKind): string => `${viewerLabel(viewer)}, cat`;
const TEND = tendName('native');
const NODE_VIEWER = tendName('node');

export const attachEchoSuite: Suite = {
  name: 'attach-echo',
  title: 'Keystroke echo: tend attach vs tmux attach vs raw PTY, µs',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const { viewers, missing: nativeMissing } = viewersToMeasure(ctx.root);
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const keys = ctx.quick ? QUICK_KEYS : FULL_KEYS;
    const server = await BenchServer.start(ctx);
    const tmux = ctx.owned.add(await TmuxServer.start(ctx.env));
    try {
      let n = 0;
      const sides: Side<EchoResult>[] = [
        { name: RAW, run: () => ctx.ptytool.echo(['cat'], { keys, gapMs: KEY_GAP_MS, perKey: true }) },
        {
          name: TMUX,
          async run() {
            // a fresh pane each round, so every round types onto the same empty screen
            const id = `echo${n++}`;
            await tmux.run(['new-session', '-d', '-s', id, '-x', '80', '-y', '24', 'cat']);
            try {
              return await echoAfterPaint(ctx, plainLaunch(ctx, tmuxArgv(tmux.name, 'attach', '-t', id)), keys, KEY_GAP_MS, VIEWER_SETTLE_MS, true);
            } finally {
              await tmux.run(['kill-session', '-t', id]);
            }
          },
        },
        ...viewers.map((viewer): Side<EchoResult> => ({
          name: tendName(viewer),
          async run() {
            const session = await server.createSession(['cat']);
            try {
              return await echoAfterPaint(ctx, tendAttachLaunch(ctx, server, session.id, viewer), keys, KEY_GAP_MS, VIEWER_SETTLE_MS, true);
            } finally {
              await server.deleteSession(session.id);
            }
          },
        })),
      ];
      const samples = await alternate(rounds, sides, (side, round, r) =>
        ctx.log(`  round ${round + 1} ${side}: p50 ${r.p50_us} µs, p99 ${r.p99_us} µs, ${r.timeouts} timeouts`));

      const us = (side: string, pick: (r: EchoResult) => number): number[] => field(samples, side, pick);
      const f = (xs: number[]): string => formatSummary(summarize(xs));
      const rows = sides.map((s) => s.name).map((side) => [side,
        f(us(side, (r) => r.p50_us)), f(us(side, (r) => r.p99_us)), f(us(side, (r) => r.max_us)),
        String(us(side, (r) => r.timeouts).reduce((a, b) => a + b, 0))]);
      // Every key of every round together: a run's p99 is its 6th-slowest key of 500, and moves
      // with the machine from round to round; the keys of all rounds give the tail more keys.
      const pooled = new Map(sides.map((s) => [s.name, samples.get(s.name)!.flatMap((r) => r.latencies_us ?? [])]));
      for (const rs of samples.values()) for (const r of rs) delete r.latencies_us; // the figures, not every key, go to the results
      const pooledAt = (side: string, p: number): number => percentile(pooled.get(side)!, p);
      const slowKeys = (side: string): number => pooled.get(side)!.filter((x) => x > SLOW_KEY_US).length;
      const pooledRows = sides.map((s) => s.name).map((side) => [side, String(pooled.get(side)!.length),
        formatNumber(pooledAt(side, 50)), formatNumber(pooledAt(side, 99)), formatNumber(pooledAt(side, 99.9)), String(slowKeys(side))]);
      const pooledRatio = (a: string, b: string, p: number): string => formatNumber(pooledAt(a, p) / pooledAt(b, p));
      const p50 = (side: string): number[] => us(side, (r) => r.p50_us);
      const p99 = (side: string): number[] => us(side, (r) => r.p99_us);
      const minus = (a: number[], b: number[]): number[] => a.map((x, i) => x - b[i]!);
      return {
        tables: [
          {
            title: `Echo latency, µs (${keys} keys per run, ${KEY_GAP_MS} ms gap; ${rounds} round${rounds > 1 ? 's' : ''})`,
            columns: ['path', 'p50', 'p99', 'worst key', 'timeouts'],
            rows,
          },
          {
            title: `Echo latency, µs, every key of the ${rounds} round${rounds > 1 ? 's' : ''} together`,
            columns: ['path', 'keys', 'p50', 'p99', 'p99.9', `keys over ${SLOW_KEY_US / 1000} ms`],
            rows: [
              ...pooledRows,
              ...(nativeMissing ? [] : [['tend / tmux', '', pooledRatio(TEND, TMUX, 50), pooledRatio(TEND, TMUX, 99), pooledRatio(TEND, TMUX, 99.9), '']]),
            ],
          },
          {
            title: 'Echo, same-round comparisons',
            columns: ['comparison', 'p50', 'p99'],
            rows: [
              ...(nativeMissing ? [] : [
                ['tend − tmux, µs', f(minus(p50(TEND), p50(TMUX))), f(minus(p99(TEND), p99(TMUX)))],
                ['tend / tmux', f(roundRatios(p50(TEND), p50(TMUX))), f(roundRatios(p99(TEND), p99(TMUX)))],
                ['tend − raw, µs', f(minus(p50(TEND), p50(RAW))), f(minus(p99(TEND), p99(RAW)))],
                ['Node viewer − tend, µs', f(minus(p50(NODE_VIEWER), p50(TEND))), f(minus(p99(NODE_VIEWER), p99(TEND)))],
              ]),
              ['Node viewer / tmux', f(roundRatios(p50(NODE_VIEWER), p50(TMUX))), f(roundRatios(p99(NODE_VIEWER), p99(TMUX)))],
              ['tmux − raw, µs', f(minus(p50(TMUX), p50(RAW))), f(minus(p99(TMUX), p99(RAW)))],
            ],
            notes: [
              'raw PTY: `ptytool echo -- cat` (the kernel echoes).',
              `tmux: private server, a fresh \`new-session -d cat\` each round, \`ptytool echo --await-paint --settle-ms ${VIEWER_SETTLE_MS} -- tmux attach -t ID\`.`,
              `tend: private server, a fresh \`cat\` session each round, \`ptytool echo --await-paint --settle-ms ${VIEWER_SETTLE_MS} -- bin/tend attach ID\` (bin/tend links to the native viewer); "Node viewer": the same with TEND_VIEWER=node (\`node bin/tend.js attach ID\`). --await-paint: no key is sent before the viewer's first paint, so none is echoed by a still-cooked tty.`,
              'A key with no echo within 1 s is a timeout and is left out of the percentiles.',
              'Targets: issue 29, tend p50 ≤ 300 µs and p99 ≤ 2× tmux\'s in the same round (issue 7: p50 within 1 ms of tmux, p99 under 5 ms).',
              ...(nativeMissing ? [`The native viewer's rows are left out: ${nativeMissing}.`] : []),
            ],
          },
        ],
        data: Object.fromEntries(samples),
      };
    } finally {
      tmux.dispose();
      await server.close();
    }
  },
};
