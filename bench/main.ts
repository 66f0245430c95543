// `npm run bench [-- --quick] [--rounds N] [--only a,b]`: every suite in
// bench/suites/index.ts, in one process tree, sides alternating within each
// round; prints the tables and writes bench/results/latest.{json,md}.
// Figures are printed, never asserted.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DisposableStore } from '../src/common/lifecycle.js';
import { killRunningHelpers } from './lib/child-process.js';
import { describeMachine, loadAverages } from './lib/machine.js';
import { PtyTool } from './lib/ptytool.js';
import { formatTextTable, writeResults, type RunReport } from './lib/results.js';
import { FULL_SIZES, generateFill, generateStreams, QUICK_SIZES } from './lib/streams.js';
import type { BenchContext, SuiteReport } from './lib/suite.js';
import { SUITES } from './suites/index.js';

const FULL_ROUNDS = 5;
// One round: --quick is CI's smoke run of every suite, with figures but no
// spread (most suites already ran one round under ctx.quick); figures worth
// quoting come from the full run.
const QUICK_ROUNDS = 1;
const FILL_ROWS = 10_000;

/**
 * Suites --quick leaves out, so that CI's quick run stays under a minute on a
 * 2-core machine; the reason is printed and written with the results. Each of
 * these already does its smallest version under ctx.quick and still costs
 * more than its share; the full run measures them.
 */
const QUICK_SKIPPED: Readonly<Record<string, string>> = {
  'server-loop': 'opens 100 sessions and floods 20 of them (~17 s even with --quick); run without --quick or with --only server-loop',
  'server-scale': 'opens hundreds of sessions on tend and on tmux and floods 20 (~10 s even with --quick); run without --quick or with --only server-scale',
  upgrade: 'copies a build and moves 20 sessions between two servers (~20 s even with --quick); run without --quick or with --only upgrade',
};

/** tmux is the reference side of most suites: without it they cannot compare. */
function tmuxMissingReason(tmuxVersion: string): string | undefined {
  return tmuxVersion === 'not installed'
    ? 'tmux is not installed (the reference side; .ci/run installs Debian\'s tmux package)'
    : undefined;
}

const USAGE = `usage: npm run bench -- [--quick] [--rounds N] [--only SUITE,...]
  --quick    ${QUICK_ROUNDS} rounds and smaller streams (under a minute); leaves out ${Object.keys(QUICK_SKIPPED).join(', ')}
  --rounds   rounds per suite (default ${FULL_ROUNDS})
  --only     run only these suites: ${SUITES.map((s) => s.name).join(', ')}`;

function parseOptions(): { quick: boolean; rounds: number; only: string[] | null } {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        quick: { type: 'boolean', default: false },
        rounds: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    // A mistyped option is the person's, not a bug: say which and how it goes, no stack.
    console.error(`tend bench: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const rounds = values.rounds === undefined ? (values.quick ? QUICK_ROUNDS : FULL_ROUNDS) : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error(`tend bench: --rounds wants a whole number >= 1, not '${values.rounds}'`);
    process.exit(2);
  }
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : null;
  const unknown = only?.filter((n) => !SUITES.some((s) => s.name === n)) ?? [];
  if (unknown.length) {
    console.error(`tend bench: no suite named ${unknown.join(', ')} (suites: ${SUITES.map((s) => s.name).join(', ')})`);
    process.exit(2);
  }
  return { quick: values.quick, rounds, only };
}

async function main(): Promise<number> {
  const opts = parseOptions();
  const runStarted = performance.now();
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const tmpDir = mkdtempSync(join(os.tmpdir(), 'tend-bench-'));
  const owned = new DisposableStore();
  const teardown = (): void => {
    try {
      owned.dispose();
    } finally {
      killRunningHelpers();
      rmSync(tmpDir, { recursive: true, force: true });
    }
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      teardown();
      process.exit(130);
    });
  }
  // tmux sockets go under our temp dir; a bench started inside tmux must not talk to that tmux
  const env: NodeJS.ProcessEnv = { ...process.env, TMUX_TMPDIR: tmpDir };
  delete env.TMUX;
  delete env.TMUX_PANE;

  try {
    const machine = describeMachine(root);
    const tmuxMissing = tmuxMissingReason(machine.tmux);
    const ptytool = PtyTool.build(root, env);
    const streams = await generateStreams(tmpDir, opts.quick ? QUICK_SIZES : FULL_SIZES);
    const fill80 = generateFill(tmpDir, 80, FILL_ROWS);
    const ctx: BenchContext = {
      quick: opts.quick, rounds: opts.rounds, root, tmpDir, env, ptytool, streams, fill80, owned,
      log: (line) => console.error(line),
    };
    const args = process.argv.slice(2).join(' ');
    const report: RunReport = {
      mode: opts.quick ? 'quick' : 'full', rounds: opts.rounds,
      command: `npm run bench${args ? ` -- ${args}` : ''}`, machine, suites: [],
    };
    console.error(`tend bench: ${report.mode}, ${opts.rounds} rounds; streams ${streams.map((s) => `${s.name} ${(s.bytes / 1e6).toFixed(1)} MB`).join(', ')}`);
    console.error(`tend ${machine.tendCommit}, Node ${machine.node}, ${machine.tmux}; load ${machine.loadAverageAtStart!.join(' / ')}`);
    if (tmuxMissing) console.error(`tend bench: ${tmuxMissing}; suites that need it are reported as skipped`);
    let failed = 0;
    for (const suite of SUITES.filter((s) => !opts.only || opts.only.includes(s.name))) {
      console.error(`\n${suite.title}`);
      // --only names a suite on purpose: it runs even when --quick would leave it out
      const quickReason = opts.quick && !opts.only ? QUICK_SKIPPED[suite.name] : undefined;
      if (quickReason) {
        const reason = `left out of --quick: ${quickReason}`;
        console.error(`  skipped: ${reason}`);
        report.suites.push({ name: suite.name, title: suite.title, tables: [], data: null, skipped: reason });
        continue;
      }
      const started = performance.now();
      const seconds = (): number => Math.round((performance.now() - started) / 100) / 10;
      try {
        let r: SuiteReport;
        try {
          r = await suite.run(ctx);
        } catch (first) {
          // A comparison that depends on another program's timing (tmux painting a marker
          // while it skips frames) can miss once on a busy machine: the suite gets one more go.
          if (tmuxMissing) throw first;
          console.error(`  failed once (${first instanceof Error ? first.message : String(first)}); running it again`);
          r = await suite.run(ctx);
        }
        report.suites.push({ name: suite.name, title: suite.title, seconds: seconds(), ...r });
        if (r.skipped) console.error(`  skipped: ${r.skipped}`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (tmuxMissing) {
          // a side that is not there is not a failure: say why and go on
          console.error(`  skipped: ${tmuxMissing} (${message})`);
          report.suites.push({ name: suite.name, title: suite.title, seconds: seconds(), tables: [], data: null, skipped: `${tmuxMissing}: ${message}` });
        } else {
          failed++;
          console.error(`  failed: ${message}`);
          report.suites.push({ name: suite.name, title: suite.title, seconds: seconds(), tables: [], data: null, skipped: `failed: ${message}` });
        }
      }
      console.error(`  (${seconds().toFixed(1)} s)`);
    }
    report.loadAverageAtEnd = loadAverages();
    report.loadAverageAtEnd1m = report.loadAverageAtEnd[0];
    report.elapsedSeconds = Math.round((performance.now() - runStarted) / 100) / 10;
    console.log(`\ntend bench (${report.mode}, ${opts.rounds} rounds): median [min–max] over rounds`);
    console.log(`${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.kernel}; tend ${machine.tendCommit}, Node ${machine.node}, ${machine.tmux}, ` +
      `@xterm/headless ${machine.packages?.['@xterm/headless']}; load ${machine.loadAverageAtStart!.join(' / ')} before, ` +
      `${report.loadAverageAtEnd.join(' / ')} after; ${report.elapsedSeconds} s\n`);
    for (const s of report.suites) {
      if (s.skipped) console.log(`${s.title}: ${s.skipped}\n`);
      for (const t of s.tables) console.log(formatTextTable(t) + '\n');
    }
    const written = writeResults(join(root, 'bench', 'results'), report);
    console.log(`written: ${written.md.slice(root.length + 1)}, ${written.json.slice(root.length + 1)}`);
    return failed ? 1 : 0;
  } finally {
    teardown();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`tend bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    process.exit(1);
  },
);
