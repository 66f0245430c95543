// The coverage-guided loop, run inside a fuzz worker: take an input from the
// corpus, mutate it, run the target on it, and keep it if it took a branch
// (or a branch a new number of times, in AFL's power-of-two buckets) that no
// input before it took. Seeds go first. A target that throws is a finding;
// each distinct one is reported once, with the first input that caused it,
// and the loop goes on.
import { COVERAGE_GLOBAL, type CoverageRegistry, type ModuleConstants } from './instrument.js';
import { Mutator, Random, UTF8_TOKENS } from './mutate.js';
import type { CurrentInput } from './current-input.js';
import type { FuzzTarget } from './target.js';

/** Room for every edge of every module a target loads (the whole server has under 10 000). */
const MAX_EDGES = 1 << 18;
/** How often the loop looks at the clock and reports progress. */
const CLOCK_EVERY_EXECUTIONS = 1024;
const PROGRESS_EVERY_MS = 2000;
/** Inputs start at most this long (or as long as the longest seed)... */
const START_LENGTH_BYTES = 64;
/** ...and may grow by this much each time this many in a row found nothing new. */
const GROW_BY_BYTES = 64;
const GROW_AFTER_EXECUTIONS = 2000;

export interface Finding {
  /** What makes two findings the same: the error's kind, message shape and where it was thrown. */
  signature: string;
  message: string;
  input: Uint8Array;
}

export interface Progress {
  executions: number;
  corpus: number;
  edges: number;
  findings: number;
}

export interface LoopOptions {
  target: FuzzTarget;
  seeds: Uint8Array[];
  maxExecutions: number;
  maxMs: number;
  maxLength: number;
  randomSeed: number;
  current: CurrentInput;
  onFinding(finding: Finding): void;
  onProgress(progress: Progress): void;
}

/** Collects the counters and constants of instrumented modules as they load. */
export class Coverage implements CoverageRegistry {
  readonly counters = new Uint8Array(MAX_EDGES);
  /** Bucket bits seen per edge, over every input run so far. */
  readonly seen = new Uint8Array(MAX_EDGES);
  used = 0;
  readonly tokens: Uint8Array[] = [];
  private readonly tokenKeys = new Set<string>();

  edges(count: number, moduleUrl: string, constants: ModuleConstants): Uint8Array {
    if (this.used + count > MAX_EDGES) throw new Error(`${moduleUrl} brings the edges past ${MAX_EDGES}`);
    const mine = this.counters.subarray(this.used, this.used + count);
    this.used += count;
    for (const n of constants.numbers) this.addToken(littleEndian(n));
    for (const s of constants.strings) this.addToken(new TextEncoder().encode(s));
    return mine;
  }

  addToken(token: Uint8Array): void {
    const key = token.join(',');
    if (token.length === 0 || this.tokenKeys.has(key)) return;
    this.tokenKeys.add(key);
    this.tokens.push(token);
  }

  /** Clears the counters of the last run; true if it reached an edge, or an edge's count bucket, not seen before. */
  takeNew(): boolean {
    let found = false;
    const { counters, seen } = this;
    for (let i = 0; i < this.used; i++) {
      const c = counters[i]!;
      if (c === 0) continue;
      counters[i] = 0;
      const bit = BUCKET_BIT[c]!;
      if ((seen[i]! & bit) === 0) {
        seen[i]! |= bit;
        found = true;
      }
    }
    return found;
  }

  /** Edges taken by at least one input. */
  get edgesSeen(): number {
    let n = 0;
    for (let i = 0; i < this.used; i++) if (this.seen[i] !== 0) n++;
    return n;
  }
}

/** AFL's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128-255. */
const BUCKET_BIT = Uint8Array.from({ length: 256 }, (_, c) =>
  c === 0 ? 0 : c === 1 ? 1 : c === 2 ? 2 : c === 3 ? 4 : c < 8 ? 8 : c < 16 ? 16 : c < 32 ? 32 : c < 128 ? 64 : 128,
);

/** A number as the smallest little-endian integer that holds it. */
function littleEndian(n: number): Uint8Array {
  const width = n <= 0xff ? 1 : n <= 0xffff ? 2 : 4;
  const out = new Uint8Array(width);
  for (let i = 0; i < width; i++) out[i] = (n >>> (8 * i)) & 0xff;
  return out;
}

/** Makes the registry the instrumented modules call at load; before they are imported. */
export function installCoverage(): Coverage {
  const coverage = new Coverage();
  (globalThis as Record<string, unknown>)[COVERAGE_GLOBAL] = coverage;
  return coverage;
}

export function findingSignature(err: unknown): { signature: string; message: string } {
  if (!(err instanceof Error)) return { signature: `thrown ${typeof err}`, message: `threw a non-error: ${String(err)}` };
  const where = (err.stack ?? '').split('\n').find((line) => line.trim().startsWith('at ')) ?? '';
  // The message's shape: what it says before the details (quoted values, numbers, a colon and what follows).
  const shape = err.message.split(':')[0]!.replace(/"[^"]*"/g, '""').replace(/[0-9]+/g, 'N').slice(0, 160);
  return { signature: `${err.name}: ${shape} ${where.trim()}`, message: `${err.name}: ${err.message}` };
}

export function runLoop(coverage: Coverage, options: LoopOptions): Progress {
  const { target, current } = options;
  const random = new Random(options.randomSeed);
  for (const token of target.tokens ?? []) coverage.addToken(token);
  for (const token of UTF8_TOKENS) coverage.addToken(token);
  const longestSeed = options.seeds.reduce((n, s) => Math.max(n, s.length), 0);
  // Short inputs first: they run fast and reach most branches; the limit grows while nothing new turns up.
  const mutator = new Mutator(random, coverage.tokens, Math.min(options.maxLength, Math.max(longestSeed, START_LENGTH_BYTES)));
  const corpus: Uint8Array[] = [];
  const signatures = new Set<string>();
  let executions = 0;

  const run = (input: Uint8Array): boolean => {
    current.begin(input);
    executions++;
    try {
      target.fuzz(input);
    } catch (err) {
      const { signature, message } = findingSignature(err);
      if (!signatures.has(signature)) {
        signatures.add(signature);
        options.onFinding({ signature, message, input: input.slice() });
      }
    }
    return coverage.takeNew();
  };

  for (const seed of options.seeds) {
    run(seed.subarray(0, options.maxLength));
    corpus.push(seed.subarray(0, options.maxLength));
  }
  if (corpus.length === 0) corpus.push(new Uint8Array(0));

  const progress = (): Progress => ({ executions, corpus: corpus.length, edges: coverage.edgesSeen, findings: signatures.size });
  const started = Date.now();
  let reported = started;
  const another = () => random.pick(corpus);
  let sinceNew = 0;
  while (executions < options.maxExecutions) {
    if (executions % CLOCK_EVERY_EXECUTIONS === 0) {
      const now = Date.now();
      if (now - started >= options.maxMs) break;
      if (now - reported >= PROGRESS_EVERY_MS) {
        reported = now;
        options.onProgress(progress());
      }
    }
    // Newer corpus entries are the frontier: half the picks come from the last eighth.
    const fromNewest = random.chance(2) && corpus.length > 8;
    const parent = fromNewest ? corpus[corpus.length - 1 - random.below(Math.ceil(corpus.length / 8))]! : random.pick(corpus);
    const input = mutator.mutate(parent, another);
    if (run(input)) {
      corpus.push(input);
      sinceNew = 0;
    } else if (++sinceNew % GROW_AFTER_EXECUTIONS === 0 && mutator.maxLength < options.maxLength) {
      mutator.maxLength = Math.min(options.maxLength, mutator.maxLength + GROW_BY_BYTES);
    }
  }
  return progress();
}
