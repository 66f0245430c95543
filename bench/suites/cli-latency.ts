// Cold start of the CLI verbs scripts call in loops: `tend ls`, `tend send`,
// `tend screen`, `tend --version`, each a fresh process against a running
// private server, timed from spawn to exit. Bare Node start-up (`node -e 0`)
// and Node loading the CLI's modules without running a verb are measured in
// the same rounds, so tend's own cost can be told from Node's.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProcessTimer, tendCommand } from '../lib/cli-process.js';
import { figuresOf, interleave, roundMedianDifferences, type CliSide } from '../lib/cli-rounds.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatNumber, formatSummary, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const RUNS_PER_ROUND = 20;
const QUICK_RUNS_PER_ROUND = 2;
const TARGET_MS = 150;
const NODE_BARE = 'node -e 0';
const NODE_IMPORT = 'node: import the CLI, run nothing';

export const cliLatencySuite: Suite = {
  name: 'cli-latency',
  title: 'CLI cold start: tend ls / send / screen / --version against a running server, ms',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const runs = ctx.quick ? QUICK_RUNS_PER_ROUND : RUNS_PER_ROUND;
    const server = await BenchServer.start(ctx);
    const timer = ctx.owned.add(new ProcessTimer());
    try {
      // cat: what `tend send` types comes back on the screen, and nothing else happens
      const session = await server.createSession(['cat']);
      const env = server.env;
      const time = async (argv: string[]): Promise<number> => (await timer.run(argv, env, ctx.tmpDir)).ms;
      const mainUrl = pathToFileURL(join(ctx.root, 'dist', 'src', 'cli', 'main.js')).href;
      const sides: CliSide[] = [
        { name: NODE_BARE, run: () => time([process.execPath, '-e', '0']) },
        { name: NODE_IMPORT, run: () => time([process.execPath, '-e', `import(${JSON.stringify(mainUrl)})`]) },
        { name: 'tend --version', run: () => time(tendCommand(ctx.root, '--version')) },
        { name: 'tend ls', run: () => time(tendCommand(ctx.root, 'ls')) },
        { name: 'tend send ID x', run: () => time(tendCommand(ctx.root, 'send', session.id, 'x')) },
        { name: 'tend screen ID', run: () => time(tendCommand(ctx.root, 'screen', session.id)) },
      ];
      // one unmeasured run each: the page cache holds the modules, the server has compiled its routes
      for (const s of sides) await s.run();
      const samples = await interleave(ctx.rounds, runs, sides, (round, all) =>
        ctx.log(`  round ${round + 1}: ${sides.map((s) => `${s.name} ${formatNumber(figuresOf(all, s.name).roundMedians[round]!)}`).join(', ')} ms (medians of ${runs})`));

      const rows = sides.map((s) => {
        const f = figuresOf(samples, s.name);
        return [s.name, formatSummary(f.all), formatNumber(f.p90), formatSummary(summarize(f.roundMedians)),
          s.name === NODE_BARE ? '—' : formatSummary(summarize(roundMedianDifferences(samples, s.name, NODE_BARE)))];
      });
      const plural = ctx.rounds > 1 ? 's' : '';
      return {
        tables: [{
          title: `CLI cold start, spawn to exit, ms (${ctx.rounds} round${plural} × ${runs} runs of each)`,
          columns: ['process', 'all runs', 'p90, all runs', 'round medians', 'minus node -e 0 (round medians)'],
          rows,
          notes: [
            `Each run a fresh process with the private server's TEND_HOME and TEND_RUNTIME_DIR, timed by the bench from just before spawn to the exit event; in a round the sides take turns run by run (${runs} turns), and "minus node -e 0" is each round's median less the same round's \`node -e 0\` median.`,
            `tend VERB is \`node bin/tend.js VERB\`. \`${NODE_IMPORT}\` is \`node -e 'import("dist/src/cli/main.js")'\`: loading every verb's modules and nothing else; the verbs add one HTTP request on the unix socket (ls: GET /v1/sessions; screen: GET the screen as text; send: one POST of input) to a session running \`cat\`.`,
            `Target (issue 5): under ${TARGET_MS} ms per verb, as scripts call them in loops. One unmeasured run of each first.`,
          ],
        }],
        data: { runsPerRound: runs, samples: Object.fromEntries(samples) },
      };
    } finally {
      timer.dispose();
      await server.close();
    }
  },
};
