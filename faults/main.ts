// `npm run faults [-- --short] [--part crash|disk|soak|hostile|fuzz] [--seed N]`:
// the fault suite. Each part runs against real servers, holders and sockets
// of its own (its own TEND_HOME), prints its figures and the targets they
// meet or miss; a full run (no --short, every part) also writes them to
// docs/reliability.md. Exits 1 when a target was missed, 2 on bad arguments.

import { randomInt } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lib/fault-server.js';
import { owned } from './lib/owned-processes.js';
import { missedTargets, type Part, type PartResult, type RunOptions } from './lib/part.js';
import { formatPart, writeReliabilityDoc } from './lib/report.js';
import { PARTS } from './parts.js';
import { FULL_KILLS } from './crash/crash-loop.js';
import { FULL_SOAK_MINUTES } from './soak/soak-part.js';

/** The seed of every short run unless --seed says otherwise. */
const SHORT_RUN_SEED = 23;

const USAGE = `usage: npm run faults -- [--short] [--part NAME[,NAME...]] [--seed N]
  --short   CI's short run of each part (about 3 minutes in all on 2 cores)
  --part    run only these parts: ${PARTS.map((p) => p.name).join(', ')}
  --seed    replay a run's random choices (a run prints its seed; a short run's is 23 unless given)
  --kills N          the crash loop's number of kills (full run: ${FULL_KILLS})
  --soak-minutes M   the soak's length (full run: ${FULL_SOAK_MINUTES})
  --fuzz-short       the fuzz part's short run inside a longer one
  TEND_FAULTS_TRACE=1 prints each crash-loop kill's timings (kill and restart, checks).
  A run of every part without --short writes its figures to docs/reliability.md,
  naming any of these it was given (a run smaller than the full one says so).`;

function parseOptions(): { short: boolean; parts: Part[]; seed: number; all: boolean; scale: Pick<RunOptions, 'kills' | 'soakMinutes' | 'fuzzShort'> } {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        short: { type: 'boolean', default: false },
        part: { type: 'string' },
        seed: { type: 'string' },
        kills: { type: 'string' },
        'soak-minutes': { type: 'string' },
        'fuzz-short': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    // A mistyped option is the person's, not a bug: say which and how it goes, no stack.
    console.error(`tend faults: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const names = values.part ? values.part.split(',').map((s) => s.trim()) : PARTS.map((p) => p.name);
  const unknown = names.filter((n) => !PARTS.some((p) => p.name === n));
  if (unknown.length > 0) {
    console.error(`tend faults: no part named ${unknown.join(', ')} (parts: ${PARTS.map((p) => p.name).join(', ')})`);
    process.exit(2);
  }
  // The short run is CI's: the same random choices every time, so that it judges the code, not the
  // draw (the full run draws afresh to explore, and prints its seed to replay).
  const seed = values.seed !== undefined ? Number(values.seed) : values.short ? SHORT_RUN_SEED : randomInt(1, 2 ** 31);
  if (!Number.isInteger(seed) || seed < 1) {
    console.error(`tend faults: --seed wants a whole number >= 1, not '${values.seed}'`);
    process.exit(2);
  }
  const kills = values.kills === undefined ? undefined : Number(values.kills);
  if (kills !== undefined && (!Number.isInteger(kills) || kills < 1)) {
    console.error(`tend faults: --kills wants a whole number >= 1, not '${values.kills}'`);
    process.exit(2);
  }
  const soakMinutes = values['soak-minutes'] === undefined ? undefined : Number(values['soak-minutes']);
  if (soakMinutes !== undefined && !(soakMinutes > 0)) {
    console.error(`tend faults: --soak-minutes wants a number of minutes > 0, not '${values['soak-minutes']}'`);
    process.exit(2);
  }
  const scale = { ...(kills ? { kills } : {}), ...(soakMinutes ? { soakMinutes } : {}), ...(values['fuzz-short'] ? { fuzzShort: true } : {}) };
  return { short: values.short, parts: PARTS.filter((p) => names.includes(p.name)), seed, all: names.length === PARTS.length, scale };
}

/** How this run differs from the full one, for the docs: '' for a full run. */
function scaleNote(scale: Pick<RunOptions, 'kills' | 'soakMinutes' | 'fuzzShort'>): string {
  const notes: string[] = [];
  if (scale.kills !== undefined) notes.push(`${scale.kills} crash-loop kills (the full run: ${FULL_KILLS})`);
  if (scale.soakMinutes !== undefined) notes.push(`a soak of ${scale.soakMinutes} minutes (the full run: ${FULL_SOAK_MINUTES})`);
  if (scale.fuzzShort) notes.push('the fuzz part\'s short run (the full run: its full one)');
  return notes.length === 0 ? '' : `A smaller run than the full one: ${notes.join(', ')}.`;
}

async function main(): Promise<number> {
  const opts = parseOptions();
  const log = (line: string): void => console.log(line);
  log(`tend faults: ${opts.short ? 'short' : 'full'} run of ${opts.parts.map((p) => p.name).join(', ')}, seed ${opts.seed}`);
  const started = Date.now();
  const results: PartResult[] = [];
  for (const part of opts.parts) {
    log(`\n== ${part.name}: ${part.title}`);
    const partStarted = Date.now();
    let result: PartResult;
    try {
      const r = await part.run({ short: opts.short, seed: opts.seed, log, ...opts.scale });
      result = { part: part.name, title: part.title, seconds: (Date.now() - partStarted) / 1000, ...r };
    } catch (err) {
      // A part that could not finish is a missed target, with the reason: the other parts still run.
      result = {
        part: part.name,
        title: part.title,
        seconds: (Date.now() - partStarted) / 1000,
        figures: [{ name: 'finished', value: 'no', target: 'yes', met: false }],
        findings: [`the part stopped: ${(err as Error).message}`],
      };
    }
    await owned.endAll();
    results.push(result);
    log(formatPart(result));
  }
  const seconds = (Date.now() - started) / 1000;
  const missed = results.flatMap((r) => missedTargets(r).map((f) => `${r.part}: ${f.name} = ${f.value} (target ${f.target})`));
  log(`\ntend faults: ${results.length} parts in ${Math.round(seconds)} s, seed ${opts.seed}; ${missed.length === 0 ? 'every target met' : `${missed.length} targets missed:\n  ${missed.join('\n  ')}`}`);
  if (!opts.short && opts.all) {
    const doc = join(repoRoot, 'docs', 'reliability.md');
    writeFileSync(doc, writeReliabilityDoc(existsSync(doc) ? readFileSync(doc, 'utf8') : '', results, { seed: opts.seed, seconds, scale: scaleNote(opts.scale) }));
    log(`figures written to docs/reliability.md`);
  }
  return missed.length === 0 ? 0 : 1;
}

// However the run ends, what it started ends with it: an interrupt, a kill,
// or an exception thrown outside any part (xterm.js throws from its timers).
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.on(signal, () => {
    owned.killAllNow();
    process.exit(code);
  });
}
process.on('uncaughtException', (err) => {
  console.error(`tend faults: stopped by an exception outside any part: ${err.stack ?? err.message}`);
  owned.killAllNow();
  process.exit(1);
});
main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(`tend faults: ${(err as Error).stack ?? String(err)}`);
    await owned.endAll();
    process.exit(1);
  },
);
