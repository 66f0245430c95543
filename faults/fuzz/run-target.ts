// Runs one fuzz target in a worker thread and watches it: an input that runs
// longer than the hang limit, a heap past its limit or a process grown past
// its resident limit ends the worker, and the input it was running (read from
// shared memory) is the finding.
import { Worker } from 'node:worker_threads';
import { CurrentInput } from './current-input.js';
import type { Finding, Progress } from './fuzz-loop.js';
import type { WorkerInput, WorkerMessage } from './fuzz-worker.js';

/** A decoder takes microseconds; one input that takes this long is a hang. */
export const DEFAULT_HANG_MS = 10_000;
/** The worker's heap; inputs are a few KiB, so a parser that needs more is running away. */
export const DEFAULT_HEAP_MB = 1024;
/**
 * The whole process's resident memory, as libFuzzer's -rss_limit_mb: catches
 * what the heap limit cannot see (array buffers live outside the V8 heap).
 */
export const DEFAULT_RSS_MB = 2048;
const WATCH_EVERY_MS = 250;

/** What the worker runs (its input but the shared buffer, made here), and how it is watched. */
export interface TargetRun extends Omit<WorkerInput, 'current'> {
  hangMs?: number;
  heapMb?: number;
  rssMb?: number;
  onFinding(finding: Finding): void;
  onProgress?(progress: Progress): void;
  onReady?(edges: number, tokens: number): void;
}

export interface TargetOutcome {
  progress: Progress;
  /** Why the run stopped early (a hang, the heap, a worker that failed), if it did. */
  stoppedBy?: string;
}

export function runTarget(run: TargetRun): Promise<TargetOutcome> {
  const current = CurrentInput.create(run.maxLength);
  const { hangMs: _hang, heapMb: _heap, rssMb: _rss, onFinding: _finding, onProgress: _progress, onReady: _ready, ...wanted } = run;
  const workerData: WorkerInput = { ...wanted, current: current.buffer };
  const hangMs = run.hangMs ?? DEFAULT_HANG_MS;
  const rssBytes = (run.rssMb ?? DEFAULT_RSS_MB) * 1024 * 1024;
  const worker = new Worker(new URL('./fuzz-worker.js', import.meta.url), {
    workerData,
    resourceLimits: { maxOldGenerationSizeMb: run.heapMb ?? DEFAULT_HEAP_MB },
    stdout: false,
    stderr: false,
  });
  let last: Progress = { executions: 0, corpus: 0, edges: 0, findings: 0 };
  let findings = 0;
  return new Promise<TargetOutcome>((resolve) => {
    let settled = false;
    let watch: NodeJS.Timeout | undefined;
    const finish = (outcome: TargetOutcome) => {
      if (settled) return;
      settled = true;
      clearInterval(watch);
      void worker.terminate();
      resolve(outcome);
    };
    const stopWith = (why: string, message: string) => {
      findings++;
      run.onFinding({ signature: why, message, input: current.input() });
      finish({ progress: { ...last, executions: Math.max(last.executions, current.executions), findings }, stoppedBy: message });
    };
    worker.on('message', (message: WorkerMessage) => {
      switch (message.kind) {
        case 'ready': {
          run.onReady?.(message.edges, message.tokens);
          // The clock starts once the target is loaded: loading is not running an input.
          let seen = current.executions;
          let since = Date.now();
          watch = setInterval(() => {
            const now = current.executions;
            if (now !== seen) {
              seen = now;
              since = Date.now();
            } else if (Date.now() - since > hangMs) {
              stopWith('hang', `hang: one input ran for more than ${hangMs / 1000} s`);
              return;
            }
            if (process.memoryUsage.rss() > rssBytes) stopWith('rss', `memory: the process grew past ${run.rssMb ?? DEFAULT_RSS_MB} MiB resident`);
          }, WATCH_EVERY_MS);
          break;
        }
        case 'finding':
          findings++;
          run.onFinding(message.finding);
          break;
        case 'progress':
          last = message.progress;
          run.onProgress?.(last);
          break;
        case 'done':
          finish({ progress: message.progress });
          break;
      }
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') stopWith('heap', `heap: one input took the worker's heap past ${run.heapMb ?? DEFAULT_HEAP_MB} MiB`);
      else stopWith(`worker: ${err.message}`, `the fuzz worker failed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      if (!settled) stopWith(`exit ${code}`, `the fuzz worker exited (code ${code}) before it was done`);
    });
  });
}
