// A user's regular expression, run on a thread of its own for one search.
// JavaScript's regular expressions backtrack: `(a+)+$` takes a minute on a
// line of 30 "a"s and a "b", and while it runs, the thread running it does
// nothing else. Run in the screen host, that froze every session's screen.
// Here the screen host hands lines over in batches and waits for the
// answers (parsing other sessions meanwhile); a batch not answered within
// PATTERN_BATCH_DEADLINE_MS means the pattern backtracks, and its thread is
// stopped (V8 interrupts a running regular expression).
// (V8's linear-time engine, flag 'l' behind --enable-experimental-regexp-engine,
// would need no thread, but on Node 20 it refuses every pattern with the 'u' or
// 'i' flag, and any count above 16.)
import { Worker } from 'node:worker_threads';
import { SearchStoppedError, type LineMatcher } from '../screen/index.js';
import type { PatternBatch, PatternHits, PatternWorkerData } from './pattern-messages.js';

/**
 * How long one batch (at most SEARCH_BATCH_CHARS characters of lines) may
 * take. A pattern that runs in time linear in the line takes well under a
 * millisecond for one, so this is only ever reached by one that
 * backtracks, on a machine however busy.
 */
export const PATTERN_BATCH_DEADLINE_MS = 2000;
/** Memory a pattern's thread may use: the lines of one batch and the engine's own, with room to spare. */
const PATTERN_THREAD_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };
/**
 * Pattern threads running at once, server-wide: a burst of regex searches
 * waits its turn instead of starting a thread (and ~10 MB) each.
 */
export const MAX_PATTERN_THREADS = 4;

let running = 0;
const waitingForThread: Array<() => void> = [];

/** A pattern thread for one search, once fewer than MAX_PATTERN_THREADS run; dispose() it when done. */
export async function openPatternThread(pattern: string, flags: string): Promise<PatternThread> {
  if (running >= MAX_PATTERN_THREADS) await new Promise<void>((resolve) => waitingForThread.push(resolve));
  running++;
  try {
    return new PatternThread(pattern, flags, () => {
      running--;
      waitingForThread.shift()?.();
    });
  } catch (err) {
    running--;
    waitingForThread.shift()?.();
    throw err;
  }
}

interface Waiting {
  resolve(hits: Uint8Array): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Made by openPatternThread, which keeps count of them. */
export class PatternThread implements LineMatcher {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(private readonly pattern: string, flags: string, private readonly onEnd: () => void = () => {}) {
    const data: PatternWorkerData = { pattern, flags };
    this.worker = new Worker(new URL('./pattern-worker.js', import.meta.url), {
      workerData: data,
      name: 'tend search pattern',
      resourceLimits: PATTERN_THREAD_LIMITS,
    });
    this.worker.on('message', (answer: PatternHits) => this.answered(answer));
    this.worker.on('error', (err) => this.fail(err.message.includes('memory')
      ? new SearchStoppedError('pattern_too_slow', `the pattern ${JSON.stringify(this.pattern)} needed more memory than a search may use, so tend stopped it`)
      : new Error(`the search's pattern thread failed: ${err.message}`)));
    this.worker.on('exit', () => this.fail(new Error('the search\'s pattern thread stopped')));
  }

  test(lines: readonly string[]): Promise<Uint8Array> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SearchStoppedError('pattern_too_slow',
        `the pattern ${JSON.stringify(this.pattern)} backtracks: testing it on a few lines took more than ${PATTERN_BATCH_DEADLINE_MS / 1000} s, ` +
        'so tend stopped it. Nested repetition like (a+)+ or (a|a)* does this; write it without (e.g. a+)')), PATTERN_BATCH_DEADLINE_MS);
      this.waiting.set(id, { resolve, reject, timer });
      const batch: PatternBatch = { id, lines };
      this.worker.postMessage(batch);
    });
  }

  /** Stops the thread (at once, even in the middle of a line). */
  dispose(): void {
    this.fail(new Error('the search is over'));
  }

  private answered(answer: PatternHits): void {
    const waiting = this.waiting.get(answer.id);
    if (waiting === undefined) return;
    this.waiting.delete(answer.id);
    clearTimeout(waiting.timer);
    waiting.resolve(answer.hits);
  }

  private fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    this.onEnd();
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.waiting.clear();
    void this.worker.terminate();
  }
}
