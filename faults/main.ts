// `npm run faults [-- --short] [--part crash|disk|soak|hostile|fuzz] [--seed N]`:
// the fault suite. Each part runs against real servers, holders and sockets
// of its own (its own TEND_HOME), prints its figures and the targets they
// meet or miss; a full run (no --short, every part) also writes them to
// docs/reliability.md. Exits 1 when a target was missed, 2 on bad arguments.

import { randomInt } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from './lib/fault-server.js';
import { owned } from './lib/owned-processes.js';
import { missedTargets, type Part, type PartResult } from './lib/part.js';
import { formatPart, writeReliabilityDoc } from './lib/report.js';
import { PARTS } from './parts.js';

const USAGE = `usage: npm run faults -- [--short] [--part NAME[,NAME...]] [--seed N]
  --short   CI's short run of each part (under 3 minutes in all)
  --part    run only these parts: ${PARTS.map((p) => p.name).join(', ')}
  --seed    replay a run's random choices (a run prints its seed)
  --kills   the crash loop's number of kills (a run with it writes no figures to the docs)`;

function parseOptions(): { short: boolean; parts: Part[]; seed: number; all: boolean; kills?: number } {
  const { values } = parseArgs({
    options: {
      short: { type: 'boolean', default: false },
      part: { type: 'string' },
      seed: { type: 'string' },
      kills: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
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
  const seed = values.seed === undefined ? randomInt(1, 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 1) {
    console.error(`tend faults: --seed wants a whole number >= 1, not '${values.seed}'`);
    process.exit(2);
  }
  const kills = values.kills === undefined ? undefined : Number(values.kills);
  if (kills !== undefined && (!Number.isInteger(kills) || kills < 1)) {
    console.error(`tend faults: --kills wants a whole number >= 1, not '${values.kills}'`);
    process.exit(2);
  }
  return { short: values.short, parts: PARTS.filter((p) => names.includes(p.name)), seed, all: names.length === PARTS.length && kills === undefined, ...(kills ? { kills } : {}) };
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
      const r = await part.run({ short: opts.short, seed: opts.seed, log, ...(opts.kills ? { kills: opts.kills } : {}) });
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
    writeFileSync(doc, writeReliabilityDoc(readFileSync(doc, 'utf8'), results, { seed: opts.seed, seconds }));
    log(`figures written to docs/reliability.md`);
  }
  return missed.length === 0 ? 0 : 1;
}

process.on('SIGINT', () => {
  owned.killAllNow();
  process.exit(130);
});
main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(`tend faults: ${(err as Error).stack ?? String(err)}`);
    await owned.endAll();
    process.exit(1);
  },
);
