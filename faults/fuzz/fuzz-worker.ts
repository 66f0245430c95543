// A fuzz worker's entry: installs the coverage hooks, loads one target (whose
// project imports then come instrumented) and runs the loop, reporting to the
// supervisor in run-target.ts.
import { register } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { CoverageLoaderData } from './coverage-loader.js';
import { CurrentInput } from './current-input.js';
import { installCoverage, runLoop, type Finding, type Progress } from './fuzz-loop.js';
import type { FuzzTarget } from './target.js';

export interface WorkerInput {
  /** URL of a compiled module, and the name it exports the target under. */
  targetModule: string;
  targetExport: string;
  /** Instrumented sources by file URL (see coverage-loader.ts). */
  instrumented: Record<string, string>;
  seeds: Uint8Array[];
  maxExecutions: number;
  maxMs: number;
  maxLength: number;
  randomSeed: number;
  current: SharedArrayBuffer;
}

export type WorkerMessage =
  | { kind: 'ready'; edges: number; tokens: number }
  | { kind: 'finding'; finding: Finding }
  | { kind: 'progress'; progress: Progress }
  | { kind: 'done'; progress: Progress };

const input = workerData as WorkerInput;
const port = parentPort!;
const send = (message: WorkerMessage) => port.postMessage(message);

const data: CoverageLoaderData = { instrumented: input.instrumented };
register(new URL('./coverage-loader.js', import.meta.url), { data });
const coverage = installCoverage();
const target = ((await import(input.targetModule)) as Record<string, FuzzTarget | undefined>)[input.targetExport];
if (target === undefined) throw new Error(`${input.targetModule} exports no target "${input.targetExport}"`);
send({ kind: 'ready', edges: coverage.used, tokens: coverage.tokens.length });
const progress = runLoop(coverage, {
  target,
  seeds: input.seeds,
  maxExecutions: input.maxExecutions,
  maxMs: input.maxMs,
  maxLength: input.maxLength,
  randomSeed: input.randomSeed,
  current: new CurrentInput(input.current),
  onFinding: (finding) => send({ kind: 'finding', finding }),
  onProgress: (p) => send({ kind: 'progress', progress: p }),
});
send({ kind: 'done', progress });
