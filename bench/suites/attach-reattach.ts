// Reattach: from spawning a viewer to its first byte and to its last byte
// before a quiet spell (ptytool attach), on sessions holding 3 000 and 10 000
// rows of scrollback, `tend attach` against `tmux attach` on panes with the
// same history (tmux-reattach's method), alternating in each round. Node's
// own start-up is measured in the same rounds (`node -e` writing one byte,
// and `tend --version`), so the reader can tell start-up from the attach.

import { readFileSync } from 'node:fs';
import type { AttachResult } from '../lib/ptytool.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import { BenchServer, serverMissing, type BenchSession } from '../lib/server-instance.js';
import { formatSummary, roundRatios, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { tmuxArgv, TmuxServer } from '../lib/tmux.js';
import { tendArgv, tendAttachArgv, tendCliArgv } from '../lib/attach-viewer.js';

const HISTORY_ROWS = [3000, 10_000] as const;
/** room for the largest history plus the screen, on both sides */
const SCROLLBACK_ROWS = 20_000;
const QUIET_MS = 200;
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

export const attachReattachSuite: Suite = {
  name: 'attach-reattach',
  title: 'Reattach: tend attach vs tmux attach to a session with history, ms',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const rounds = ctx.quick ? 1 : ctx.rounds;
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
      const tendName = (rows: number): string => `tend attach, ${rows} rows`;
      const tmuxName = (rows: number): string => `tmux attach, ${rows} rows`;
      const tendAttach = (rows: number): Promise<AttachResult> =>
        ctx.ptytool.attach(tendAttachArgv(ctx, server, tendSessions.get(rows)!.id), QUIET_MS);
      // a long-running server has its snapshot path compiled: one unmeasured attach each
      for (const rows of HISTORY_ROWS) await tendAttach(rows);

      const sides: Side<AttachResult>[] = [
        { name: NODE_START, run: () => ctx.ptytool.attach([process.execPath, '-e', 'process.stdout.write("x")'], QUIET_MS) },
        { name: TEND_VERSION, run: () => ctx.ptytool.attach(tendCliArgv(ctx, '--version'), QUIET_MS) },
        { name: TEND_LS, run: () => ctx.ptytool.attach(tendArgv(ctx, server, 'ls'), QUIET_MS) },
        ...HISTORY_ROWS.flatMap((rows): Side<AttachResult>[] => [
          { name: tendName(rows), run: () => tendAttach(rows) },
          { name: tmuxName(rows), run: () => ctx.ptytool.attach(tmuxArgv(tmux.name, 'attach', '-t', `h${rows}`), QUIET_MS) },
        ]),
      ];
      const samples = await alternate(rounds, sides, (side, round, r) =>
        ctx.log(`  round ${round + 1} ${side}: first ${r.first_byte_ms.toFixed(1)} ms, last ${r.last_byte_ms.toFixed(1)} ms, ${r.bytes} bytes`));

      const ms = (side: string, pick: (r: AttachResult) => number): number[] => field(samples, side, pick);
      const f = (xs: number[]): string => formatSummary(summarize(xs));
      const minus = (a: number[], b: number[]): number[] => a.map((x, i) => x - b[i]!);
      const version = ms(TEND_VERSION, (r) => r.first_byte_ms);
      const rows = sides.map((s) => [s.name,
        f(ms(s.name, (r) => r.first_byte_ms)), f(ms(s.name, (r) => r.last_byte_ms)), f(ms(s.name, (r) => r.bytes))]);
      const compareRows = HISTORY_ROWS.flatMap((n) => {
        const tendFirst = ms(tendName(n), (r) => r.first_byte_ms);
        const tendLast = ms(tendName(n), (r) => r.last_byte_ms);
        return [[`${n} rows`,
          f(roundRatios(tendFirst, ms(tmuxName(n), (r) => r.first_byte_ms))),
          f(roundRatios(tendLast, ms(tmuxName(n), (r) => r.last_byte_ms))),
          f(minus(tendFirst, version)),
          f(minus(tendLast, version))]];
      });
      return {
        tables: [
          {
            title: `Reattach at 80x24, ms from the viewer's spawn (${rounds} round${rounds > 1 ? 's' : ''})`,
            columns: ['viewer', 'first byte', `last byte before ${QUIET_MS} ms quiet`, 'bytes painted'],
            rows,
          },
          {
            title: 'Reattach, same-round comparisons',
            columns: ['history', 'tend / tmux, first byte', 'tend / tmux, last byte', 'tend first byte − tend --version, ms', 'tend last byte − tend --version, ms'],
            rows: compareRows,
            notes: [
              `tend: private server (scrollback ${SCROLLBACK_ROWS} rows), a session that ran \`head -n N fill-80.bin; exec cat\`, every row parsed; \`ptytool attach -q ${QUIET_MS} -- tend attach ID\` (\`node bin/tend.js\`). One unmeasured attach to each session first.`,
              `tmux: private server (history-limit ${SCROLLBACK_ROWS}), a pane that ran the same; \`ptytool attach -q ${QUIET_MS} -- tmux attach -t ID\`.`,
              `${NODE_START}: \`node -e 'process.stdout.write("x")'\`, bare Node start-up. ${TEND_VERSION}: \`node bin/tend.js --version\`, the CLI's start-up with no server call. ${TEND_LS}: the CLI plus one HTTP request (\`tend attach\` makes one, GET the session, before it opens its viewer socket). "− tend --version" is the attach's own share.`,
              'tend paints the screen and up to 1 000 rows of scrollback (the server\'s viewer snapshot), so the outer terminal\'s own scrollback holds them; tmux paints the screen only.',
              'Targets (issues 4, 7): under 100 ms at 10 000 rows; DESIGN goal for first paint ≤ 10 ms.',
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
