// Reattach: from spawning a viewer to its first byte and to its last byte
// before a quiet spell (ptytool attach), on sessions holding 3 000 and 10 000
// rows of scrollback: `tend attach` as a user types it (bin/tend, a link to
// the native viewer, which is the launcher too), the same with the Node viewer (TEND_VIEWER=node), and
// `tmux attach` on panes with the same history (tmux-reattach's method), all
// alternating in each round. The pieces in front of the attach are measured
// in the same rounds: the native viewer started directly with TEND_CLI_JS
// given (the launcher's share: finding its tree and the current build), Node's own start-up (`node -e` writing one byte),
// `tend --version` and `tend ls` (the CLI, and the CLI plus one API call).
// A start of a few ms is at the mercy of the machine's other work, so every
// side runs several times a round, interleaved, and a round's figure is the
// median of its runs.

import { readFileSync } from 'node:fs';
import type { AttachResult } from '../lib/ptytool.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import { BenchServer, serverMissing, type BenchSession } from '../lib/server-instance.js';
import { formatSummary, median, roundRatios, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { tmuxArgv, TmuxServer } from '../lib/tmux.js';
import {
  attachTimes, nativeViewerDirectLaunch, viewersToMeasure, plainLaunch, tendAttachLaunch, tendLaunch, viewerLabel, type ViewerKind,
} from '../lib/attach-viewer.js';

const HISTORY_ROWS = [3000, 10_000] as const;
/** The launcher's share is taken on the larger session only: it does not depend on the session. */
const DIRECT_ROWS = 10_000;
/** room for the largest history plus the screen, on both sides */
const SCROLLBACK_ROWS = 20_000;
const QUIET_MS = 200;
/** runs of every side in a round (A B C A B C …); the round's figure is their median */
const RUNS_PER_ROUND = 5;
const NODE_START = 'node -e (one byte out)';
const TEND_VERSION = 'tend --version';
const TEND_LS = 'tend ls (one API call)';

/** What the PTY hands the server for the first `rows` fill rows: each LF gains a CR (ONLCR). */
function ptyBytesOfRows(fill: Buffer, rows: number): number {
  let lf = 0;
  let i = 0;
  for (; i < fill.length && lf < rows; i++) if (fill[i] === 0x0a) lf++;
  return i + lf;
}

const tendName = (viewer: ViewerKind, rows: number): string => `${viewerLabel(viewer)}, ${rows} rows`;
const tmuxName = (rows: number): string => `tmux attach, ${rows} rows`;
const directName = (rows: number): string => `tend-attach without the launcher, ${rows} rows`;

export const attachReattachSuite: Suite = {
  name: 'attach-reattach',
  title: 'Reattach: tend attach vs tmux attach to a session with history, ms',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const { viewers, missing: nativeMissing } = viewersToMeasure(ctx.root);
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const runs = ctx.quick ? 1 : RUNS_PER_ROUND;
    const fill = readFileSync(ctx.fill80.path);
    const server = await BenchServer.start(ctx, { scrollbackRows: SCROLLBACK_ROWS });
    const tmux = ctx.owned.add(await TmuxServer.start(ctx.env, SCROLLBACK_ROWS));
    try {
      const tendSessions = new Map<number, BenchSession>();
      for (const rows of HISTORY_ROWS) {
        const session = await server.createSession(['sh', '-c', `head -n ${rows} '${ctx.fill80.path}'; exec cat`]);
        await server.waitForOffset(session.id, ptyBytesOfRows(fill, rows));
        await server.screen(session.id); // flushes: every row is parsed when it answers
        tendSessions.set(rows, session);
        await tmux.run(['new-session', '-d', '-s', `h${rows}`, '-x', '80', '-y', '24',
          `head -n ${rows} '${ctx.fill80.path}'; tmux wait-for -S filled${rows}; exec cat`]);
        await tmux.run(['wait-for', `filled${rows}`]);
      }
      const sessionId = (rows: number): string => tendSessions.get(rows)!.id;
      const tendAttach = (viewer: ViewerKind, rows: number): Promise<AttachResult> =>
        attachTimes(ctx, tendAttachLaunch(ctx, server, sessionId(rows), viewer), QUIET_MS);
      // a long-running server has its snapshot path compiled: one unmeasured attach each
      for (const rows of HISTORY_ROWS) for (const viewer of viewers) await tendAttach(viewer, rows);

      const sides: Side<AttachResult>[] = [
        { name: NODE_START, run: () => attachTimes(ctx, plainLaunch(ctx, [process.execPath, '-e', 'process.stdout.write("x")']), QUIET_MS) },
        { name: TEND_VERSION, run: () => attachTimes(ctx, tendLaunch(ctx, server, 'native', '--version'), QUIET_MS) },
        { name: TEND_LS, run: () => attachTimes(ctx, tendLaunch(ctx, server, 'native', 'ls'), QUIET_MS) },
        ...HISTORY_ROWS.flatMap((rows): Side<AttachResult>[] => [
          ...viewers.map((viewer): Side<AttachResult> => ({ name: tendName(viewer, rows), run: () => tendAttach(viewer, rows) })),
          ...(!nativeMissing && rows === DIRECT_ROWS
            ? [{ name: directName(rows), run: () => attachTimes(ctx, nativeViewerDirectLaunch(ctx, server, sessionId(rows)), QUIET_MS) }]
            : []),
          { name: tmuxName(rows), run: () => attachTimes(ctx, plainLaunch(ctx, tmuxArgv(tmux.name, 'attach', '-t', `h${rows}`)), QUIET_MS) },
        ]),
      ];
      const samples = await alternate(rounds * runs, sides, (side, pass, r) =>
        ctx.log(`  round ${Math.floor(pass / runs) + 1} run ${(pass % runs) + 1} ${side}: first ${r.first_byte_ms.toFixed(1)} ms, last ${r.last_byte_ms.toFixed(1)} ms, ${r.bytes} bytes`));

      /** One figure a round: the median of that round's runs. */
      const ms = (side: string, pick: (r: AttachResult) => number): number[] => {
        const all = field(samples, side, pick);
        return Array.from({ length: rounds }, (_, r) => median(all.slice(r * runs, (r + 1) * runs)));
      };
      const first = (side: string): number[] => ms(side, (r) => r.first_byte_ms);
      const last = (side: string): number[] => ms(side, (r) => r.last_byte_ms);
      const f = (xs: number[]): string => formatSummary(summarize(xs));
      const minus = (a: number[], b: number[]): number[] => a.map((x, i) => x - b[i]!);
      const rows = sides.map((s) => [s.name, f(first(s.name)), f(last(s.name)), f(ms(s.name, (r) => r.bytes))]);
      const both = (label: string, of: (pick: (side: string) => number[]) => number[]): string[] =>
        [label, f(of(first)), f(of(last))];
      const compareRows = HISTORY_ROWS.flatMap((n): string[][] => {
        const tend = tendName('native', n);
        const node = tendName('node', n);
        const out: string[][] = [];
        if (!nativeMissing) {
          out.push(both(`tend / tmux, ${n} rows`, (p) => roundRatios(p(tend), p(tmuxName(n)))));
          out.push(both(`tend − tmux, ${n} rows, ms`, (p) => minus(p(tend), p(tmuxName(n)))));
          out.push(both(`Node viewer / tend, ${n} rows`, (p) => roundRatios(p(node), p(tend))));
          if (n === DIRECT_ROWS) out.push(both(`the launcher's share: tend − tend-attach started directly, ${n} rows, ms`, (p) => minus(p(tend), p(directName(n)))));
        }
        out.push(both(`Node viewer / tmux, ${n} rows`, (p) => roundRatios(p(node), p(tmuxName(n)))));
        out.push(both(`Node viewer − tend --version, ${n} rows, ms`, (p) => minus(p(node), p(TEND_VERSION))));
        return out;
      });
      return {
        tables: [
          {
            title: `Reattach at 80x24, ms from the viewer's spawn (${rounds} round${rounds > 1 ? 's' : ''} of ${runs} run${runs > 1 ? 's' : ''} a side; each round's median)`,
            columns: ['viewer', 'first byte', `last byte before ${QUIET_MS} ms quiet`, 'bytes painted'],
            rows,
          },
          {
            title: 'Reattach, same-round comparisons',
            columns: ['comparison', 'first byte', 'last byte'],
            rows: compareRows,
            notes: [
              `tend: private server (scrollback ${SCROLLBACK_ROWS} rows), a session that ran \`head -n N fill-80.bin; exec cat\`, every row parsed; \`ptytool attach -q ${QUIET_MS} -- bin/tend attach ID\` with node's directory first on PATH and the server's TEND_HOME in the environment (no \`env\` in front), as a user's shell starts the \`tend\` on PATH: a link to the native viewer (viewer/build/tend-attach), which is the launcher too. "Node viewer": the same with TEND_VIEWER=node, which the launcher turns into \`node bin/tend.js attach ID\` (an exec). One unmeasured attach of each viewer to each session first.`,
              `tend-attach without the launcher: viewer/build/tend-attach started directly with TEND_CLI_JS naming the CLI, the same environment otherwise; the difference to \`tend attach\` is what the launcher's own work costs (resolving its path through the link, finding its tree, looking for TEND_HOME's current build).`,
              `tmux: private server (history-limit ${SCROLLBACK_ROWS}), a pane that ran the same; \`ptytool attach -q ${QUIET_MS} -- tmux attach -t ID\`.`,
              `${NODE_START}: \`node -e 'process.stdout.write("x")'\`, bare Node start-up. ${TEND_VERSION} and ${TEND_LS}: through bin/tend (the launcher, then \`node bin/tend.js\`), the CLI's start-up with no server call and with one HTTP request. "Node viewer − tend --version" is the Node viewer's own share.`,
              'tend paints the screen and up to 1 000 rows of scrollback (the server\'s first-attach snapshot), so the outer terminal\'s own scrollback holds them; tmux paints the screen only.',
              'Targets: issue 29, first paint ≤ 10 ms on a 10 000-row session, ≤ 1× tmux attach in the same round (issues 4, 7: under 100 ms).',
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
