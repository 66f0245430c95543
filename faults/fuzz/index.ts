// The fuzz part of the fault suite: each TypeScript parser that reads bytes
// from outside (viewer frames both ways, the holder's stream, the HTTP API's
// bodies and request targets) run under a coverage-guided fuzzer, its seeds
// from faults/fuzz/corpus/<target>/. A finding is an input the parser neither
// decoded nor refused with its own typed error (or one that hung it, or ran
// its heap away); each is logged with where its input was saved.
//
// Short (CI): a few seconds per target. Full: at least FULL_EXECUTIONS per target.
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTarget } from './run-target.js';
import { instrumentFiles } from './instrument.js';
import { TARGETS, type TargetEntry } from './targets/index.js';
import type { Finding } from './fuzz-loop.js';

export const FULL_EXECUTIONS = 1_000_000;
/** A full run that has not reached FULL_EXECUTIONS by then says so and stops. */
const FULL_MAX_MS_PER_TARGET = 10 * 60 * 1000;
/** Short runs share under a minute: this much fuzzing per target, plus a second or two to load it. */
const SHORT_MS_PER_TARGET = 8000;
/** Longest input tried: frames and bodies of a few KiB reach every branch of these parsers. */
export const MAX_INPUT_BYTES = 4096;
const FULL_PROGRESS_EVERY_MS = 30_000;
/** Targets fuzzed at once, at most one per core: the machines this runs on have two. */
const MAX_WORKERS = 2;

export interface FuzzOptions {
  short: boolean;
  log: (line: string) => void;
  /** Only these targets (by name); all when absent. */
  only?: string[];
  /** Repeats an earlier run's mutations (its seed is logged); random when absent. */
  randomSeed?: number;
}

export interface FuzzResult {
  target: string;
  executions: number;
  findings: number;
}

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));

export function corpusDir(target: string): string {
  return join(projectRoot, 'faults', 'fuzz', 'corpus', target);
}

export function readSeeds(target: string): Uint8Array[] {
  let names: string[];
  try {
    names = readdirSync(corpusDir(target)).sort();
  } catch {
    return [];
  }
  return names.map((name) => new Uint8Array(readFileSync(join(corpusDir(target), name))));
}

/** The compiled modules a target names (paths under dist/src; a folder: every module in it). */
function modulesNamed(paths: string[]): string[] {
  return paths.flatMap((path) => {
    const full = join(projectRoot, 'dist', 'src', path);
    if (!path.endsWith('/')) return [full];
    return readdirSync(full).filter((f) => f.endsWith('.js') && !f.endsWith('.test.js')).map((f) => join(full, f));
  });
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult[]> {
  const { log } = options;
  const targets = TARGETS.filter((t) => options.only === undefined || options.only.includes(t.name));
  const randomSeed = options.randomSeed ?? randomInt(1, 0x7fff_ffff);
  log(`fuzz: ${targets.length} targets, ${options.short ? `${SHORT_MS_PER_TARGET / 1000} s each (short)` : `${FULL_EXECUTIONS.toLocaleString('en')} executions each`}, random seed ${randomSeed}`);
  let findingsDir: string | undefined;
  const saveFinding = (target: string, finding: Finding, n: number): string => {
    findingsDir ??= mkdtempSync(join(tmpdir(), 'tend-fuzz-findings-'));
    const dir = join(findingsDir, target);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `finding-${n}.bin`);
    writeFileSync(file, finding.input);
    writeFileSync(`${file}.txt`, `${finding.message}\n`);
    return file;
  };
  // One worker per core: each target is single-threaded.
  const results: FuzzResult[] = new Array(targets.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < targets.length; i = next++) {
      const entry = targets[i]!;
      results[i] = await fuzzOne(entry, options, randomSeed, (finding, n) => saveFinding(entry.name, finding, n));
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), MAX_WORKERS) }, lane));
  const total = results.reduce((n, r) => n + r.executions, 0);
  const findings = results.reduce((n, r) => n + r.findings, 0);
  log(`fuzz: ${total.toLocaleString('en')} executions in all, ${findings} findings`);
  return results;
}

async function fuzzOne(entry: TargetEntry, options: FuzzOptions, randomSeed: number, saveFinding: (f: Finding, n: number) => string): Promise<FuzzResult> {
  const { log, short } = options;
  const seeds = readSeeds(entry.name);
  const started = Date.now();
  let findings = 0;
  let lastProgressLog = started;
  const outcome = await runTarget({
    targetModule: entry.module.href,
    targetExport: entry.exportName,
    instrumented: instrumentFiles(modulesNamed(entry.instrument)),
    seeds,
    maxExecutions: short ? Number.MAX_SAFE_INTEGER : FULL_EXECUTIONS,
    maxMs: short ? SHORT_MS_PER_TARGET : FULL_MAX_MS_PER_TARGET,
    maxLength: entry.maxInputBytes ?? MAX_INPUT_BYTES,
    randomSeed,
    onReady: (edges, tokens) => log(`fuzz: ${entry.name}: ${seeds.length} seeds, ${edges} edges instrumented, ${tokens} tokens`),
    onFinding: (finding) => {
      findings++;
      const file = saveFinding(finding, findings);
      log(`fuzz: ${entry.name}: FINDING ${finding.message.split('\n')[0]} (input of ${finding.input.length} bytes: ${file})`);
    },
    onProgress: (p) => {
      if (short || Date.now() - lastProgressLog < FULL_PROGRESS_EVERY_MS) return;
      lastProgressLog = Date.now();
      log(`fuzz: ${entry.name}: ${p.executions.toLocaleString('en')} executions, corpus ${p.corpus}, edges ${p.edges}`);
    },
  });
  const p = outcome.progress;
  const seconds = (Date.now() - started) / 1000;
  const rate = Math.round(p.executions / Math.max(seconds, 0.001));
  const shortOf = !short && p.executions < FULL_EXECUTIONS && outcome.stoppedBy === undefined ? ` (short of ${FULL_EXECUTIONS.toLocaleString('en')}: the time limit came first)` : '';
  log(
    `fuzz: ${entry.name}: ${p.executions.toLocaleString('en')} executions in ${seconds.toFixed(1)} s (${rate.toLocaleString('en')}/s)${shortOf}, ` +
      `corpus ${p.corpus}, edges ${p.edges}, findings ${findings}${outcome.stoppedBy ? `; stopped: ${outcome.stoppedBy}` : ''}`,
  );
  return { target: entry.name, executions: p.executions, findings };
}
