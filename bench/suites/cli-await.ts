// What `tend await` costs over the command it runs: `tend await ID -- true`
// in a bash that tend started (and injected its shell integration into, so
// the end mark arrives), against typing `true` into the same shell with
// `tend send --enter` and waiting for the command index to show it ended,
// against `bash -c true` run directly. The API routes behind each verb are
// also timed from inside the bench, to tell the CLI's start-up from the wait.

import { ProcessTimer, tendCommand } from '../lib/cli-process.js';
import { figuresOf, interleave, roundMedianDifferences, type CliSide } from '../lib/cli-rounds.js';
import { BenchServer, serverMissing, waitUntil } from '../lib/server-instance.js';
import { formatNumber, formatSummary, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const RUNS_PER_ROUND = 10;
const QUICK_RUNS_PER_ROUND = 3;
/** how often the index is read while waiting for a sent command to end: the resolution of the send sides */
const INDEX_POLL_MS = 2;
const COMMAND_END_TIMEOUT_MS = 30_000;
const BASH_DIRECT = 'bash -c true';
const TEND_AWAIT = 'tend await ID -- true';
const API_AWAIT = 'POST /await {input: true} (in the bench)';
const TEND_SEND = 'tend send ID --enter true, index shows it ended';
const API_SEND = 'POST /input "true\\r" (in the bench), index shows it ended';

interface CommandRow {
  number: number;
  running: boolean;
  exitCode: number | null;
}

interface AwaitReply {
  status: string;
  exitCode: number | null;
}

export const cliAwaitSuite: Suite = {
  name: 'cli-await',
  title: 'await overhead: tend await vs send + prompt vs bash -c, ms',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const runs = ctx.quick ? QUICK_RUNS_PER_ROUND : RUNS_PER_ROUND;
    const server = await BenchServer.start(ctx);
    const timer = ctx.owned.add(new ProcessTimer());
    try {
      // plain `bash`: the server injects its integration, so every command gets its D mark
      const session = await server.createSession(['bash']);
      const base = `/v1/sessions/${encodeURIComponent(session.id)}`;
      const env = server.env;

      const lastEnded = async (): Promise<number> => {
        const commands = await server.api<CommandRow[]>('GET', `${base}/commands`);
        const ended = commands.filter((c) => !c.running);
        return ended.length ? ended[ended.length - 1]!.number : 0;
      };
      const waitForEndAfter = (before: number): Promise<void> =>
        waitUntil(`a command after #${before} to end in session ${session.id}`,
          async () => (await lastEnded()) > before, COMMAND_END_TIMEOUT_MS, INDEX_POLL_MS);
      const apiAwait = async (): Promise<void> => {
        const reply = await server.api<AwaitReply>('POST', `${base}/await`, { input: 'true', timeoutMs: COMMAND_END_TIMEOUT_MS });
        if (reply.status !== 'done' || reply.exitCode !== 0) throw new Error(`await of true answered ${JSON.stringify(reply)}`);
      };
      const elapsed = async (work: () => Promise<unknown>): Promise<number> => {
        const started = performance.now();
        await work();
        return performance.now() - started;
      };

      // the first await waits for the new shell's first prompt (its integration loaded)
      await apiAwait();
      const sides: CliSide[] = [
        { name: BASH_DIRECT, run: async () => (await timer.run(['bash', '-c', 'true'], env, ctx.tmpDir)).ms },
        { name: TEND_AWAIT, run: async () => (await timer.run(tendCommand(ctx.root, 'await', session.id, '--', 'true'), env, ctx.tmpDir)).ms },
        { name: API_AWAIT, run: () => elapsed(apiAwait) },
        {
          name: TEND_SEND,
          run: async () => {
            const before = await lastEnded();
            return elapsed(async () => {
              await timer.run(tendCommand(ctx.root, 'send', session.id, '--enter', 'true'), env, ctx.tmpDir);
              await waitForEndAfter(before);
            });
          },
        },
        {
          name: API_SEND,
          run: async () => {
            const before = await lastEnded();
            return elapsed(async () => {
              await server.api('POST', `${base}/input`, { text: 'true\r' });
              await waitForEndAfter(before);
            });
          },
        },
      ];
      for (const s of sides) await s.run(); // unmeasured: modules in the page cache, routes compiled
      const samples = await interleave(ctx.rounds, runs, sides, (round, all) =>
        ctx.log(`  round ${round + 1}: ${sides.map((s) => `${s.name} ${formatNumber(figuresOf(all, s.name).roundMedians[round]!)}`).join('; ')} ms (medians of ${runs})`));

      const diff = (a: string, b: string): string => formatSummary(summarize(roundMedianDifferences(samples, a, b)));
      const rows = sides.map((s) => {
        const f = figuresOf(samples, s.name);
        return [s.name, formatSummary(f.all), formatNumber(f.p90), formatSummary(summarize(f.roundMedians)),
          s.name === BASH_DIRECT ? '—' : diff(s.name, BASH_DIRECT)];
      });
      const plural = ctx.rounds > 1 ? 's' : '';
      return {
        tables: [
          {
            title: `Running \`true\` and knowing it ended, ms (${ctx.rounds} round${plural} × ${runs} runs of each)`,
            columns: ['how', 'all runs', 'p90, all runs', 'round medians', 'minus bash -c true (round medians)'],
            rows,
          },
          {
            title: 'await, same-round comparisons (differences of round medians), ms',
            columns: ['comparison', 'ms'],
            rows: [
              ['tend await − tend send --enter + wait', diff(TEND_AWAIT, TEND_SEND)],
              ['POST /await − POST /input + wait (no CLI start-up)', diff(API_AWAIT, API_SEND)],
              ['tend await − POST /await (the CLI process)', diff(TEND_AWAIT, API_AWAIT)],
            ],
            notes: [
              `One private server, one session running plain \`bash\` (tend injects its shell integration: OSC 133 marks, D with the exit status), the user's rc files read as usual; every side runs \`true\` in that same shell except \`${BASH_DIRECT}\`, a fresh bash spawned by the bench. Sides take turns run by run; one unmeasured run of each first.`,
              `tend verbs are \`node bin/tend.js …\`, timed from spawn to exit. The send sides end when GET /commands (polled every ${INDEX_POLL_MS} ms from the bench) shows a command after the last one ended, so they include up to one poll interval and a few requests; \`tend send --enter\` makes two POSTs (text, then Enter).`,
              'The await route writes Enter 20 ms after the input, on purpose (input boxes take a newline that arrives with the text as more text): about 20 ms of every await figure is that pause.',
            ],
          },
        ],
        data: { runsPerRound: runs, samples: Object.fromEntries(samples) },
      };
    } finally {
      timer.dispose();
      await server.close();
    }
  },
};
