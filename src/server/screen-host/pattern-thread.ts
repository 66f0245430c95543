// A user's regular expression, run on a thread of its own. JavaScript's
// regular expressions backtrack: `(a+)+$` takes a minute on a line of 30
// "a"s and a "b", and while it runs, the thread running it does nothing
// else. Run in the screen host, that froze every session's screen. Here the
// screen host hands lines over in batches and waits for the answers
// (parsing other sessions meanwhile); a batch not answered within
// PATTERN_BATCH_DEADLINE_MS means the pattern backtracks, and its thread is
// stopped (V8 interrupts a running regular expression) and never used again.
// A thread whose search ended well waits a while for the next one: starting
// one took 50–80 ms, most of the time of a regex search of every session
// (GET /v1/search searches them one after another, each its own search).
// (V8's linear-time engine, flag 'l' behind --enable-experimental-regexp-engine,
// would need no thread, but on Node 20 it refuses every pattern with the 'u' or
// 'i' flag, and any count above 16.)
import { Worker } from 'node:worker_threads';
import { SearchStoppedError, type LineMatcher } from '../screen/index.js';
import type { PatternBatch, PatternHits } from './pattern-messages.js';

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
 * Searches with a pattern thread at once, server-wide: a burst of regex
 * searches waits its turn instead of starting a thread (and ~10 MB) each.
 * Threads waiting idle are among these: there are never more threads.
 */
export const MAX_PATTERN_THREADS = 4;
/**
 * How long a thread whose search ended waits for the next before it ends:
 * long enough for the next session of a search of every session, or a
 * person's next try at a pattern; short enough that its memory is soon
 * given back when no one searches.
 */
export const PATTERN_THREAD_IDLE_MS = 10_000;

/** Searches holding a thread, or about to: at most MAX_PATTERN_THREADS. */
let searchesHoldingThreads = 0;
const waitingForThread: Array<() => void> = [];
/** Threads whose last search ended well, waiting for the next (the most recent last). */
const idleThreads: PatternThread[] = [];

/**
 * A pattern thread for one search, once fewer than MAX_PATTERN_THREADS
 * searches hold one: an idle one if there is, else a new one. dispose() it
 * when the search is done.
 */
export async function openPatternThread(pattern: string, flags: string): Promise<PatternSearch> {
  if (searchesHoldingThreads < MAX_PATTERN_THREADS) searchesHoldingThreads++;
  else await new Promise<void>((resolve) => waitingForThread.push(resolve)); // a search that ends hands its place over
  try {
    return (idleThreads.pop() ?? new PatternThread()).lend(pattern, flags);
  } catch (err) {
    givePlaceBack();
    throw err;
  }
}

/** A search no longer holds a thread: the first waiting takes its place. */
function givePlaceBack(): void {
  const next = waitingForThread.shift();
  if (next !== undefined) next();
  else searchesHoldingThreads--;
}

/** One search's use of a pattern thread, made by openPatternThread: the matcher the screen's search is given. */
export class PatternSearch implements LineMatcher {
  private ended = false;

  constructor(private readonly thread: PatternThread, private readonly pattern: string, private readonly flags: string) {}

  /** The thread's id (Worker.threadId): a search that reused a thread has the id of the one before. */
  get threadId(): number {
    return this.thread.threadId;
  }

  test(lines: readonly string[]): Promise<Uint8Array> {
    if (this.ended) return Promise.reject(new Error('the search is over'));
    return this.thread.test(this.pattern, this.flags, lines);
  }

  /** The search is over: its thread waits for the next search, or is stopped if a batch is still out. */
  dispose(): void {
    if (this.ended) return;
    this.ended = true;
    this.thread.searchEnded();
  }
}

interface Waiting {
  resolve(hits: Uint8Array): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** One worker thread, lent to one search at a time. */
class PatternThread {
  readonly threadId: number;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private failure: Error | null = null;
  /** The pattern of the search it is lent to (or was last), for messages. */
  private pattern = '';
  /** Whether a search holds it (and so one of the MAX_PATTERN_THREADS places). */
  private lent = false;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor() {
    this.worker = new Worker(new URL('./pattern-worker.js', import.meta.url), {
      name: 'tend search pattern',
      resourceLimits: PATTERN_THREAD_LIMITS,
    });
    this.threadId = this.worker.threadId;
    this.worker.on('message', (answer: PatternHits) => this.answered(answer));
    this.worker.on('error', (err) => this.fail(err.message.includes('memory')
      ? new SearchStoppedError('pattern_too_slow', `the pattern ${JSON.stringify(this.pattern)} needed more memory than a search may use, so tend stopped it`)
      : new Error(`the search's pattern thread failed: ${err.message}`)));
    this.worker.on('exit', () => this.fail(new Error('the search\'s pattern thread stopped')));
  }

  lend(pattern: string, flags: string): PatternSearch {
    if (this.failure !== null) throw this.failure;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.pattern = pattern;
    this.lent = true;
    this.worker.ref();
    return new PatternSearch(this, pattern, flags);
  }

  test(pattern: string, flags: string, lines: readonly string[]): Promise<Uint8Array> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new SearchStoppedError('pattern_too_slow',
        `the pattern ${JSON.stringify(pattern)} backtracks: testing it on a few lines took more than ${PATTERN_BATCH_DEADLINE_MS / 1000} s, ` +
        'so tend stopped it. Nested repetition like (a+)+ or (a|a)* does this; write it without (e.g. a+)')), PATTERN_BATCH_DEADLINE_MS);
      this.waiting.set(id, { resolve, reject, timer });
      const batch: PatternBatch = { id, pattern, flags, lines };
      this.worker.postMessage(batch);
    });
  }

  /** Its search is over (PatternSearch.dispose). */
  searchEnded(): void {
    if (this.failure !== null || !this.lent) return; // stopped: its place was given back then
    // A batch still out may be one that backtracks: stop it rather than lend a busy thread.
    if (this.waiting.size > 0) {
      this.fail(new Error('the search is over'));
      return;
    }
    this.lent = false;
    idleThreads.push(this);
    givePlaceBack();
    // Idle, it keeps no process alive, and ends after a while unless lent again.
    this.worker.unref();
    this.idleTimer = setTimeout(() => this.fail(new Error('the pattern thread was idle')), PATTERN_THREAD_IDLE_MS);
    this.idleTimer.unref();
  }

  private answered(answer: PatternHits): void {
    const waiting = this.waiting.get(answer.id);
    if (waiting === undefined) return;
    this.waiting.delete(answer.id);
    clearTimeout(waiting.timer);
    waiting.resolve(answer.hits);
  }

  /** Stops the thread (at once, even in the middle of a line) for good. */
  private fail(error: Error): void {
    if (this.failure !== null) return;
    this.failure = error;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const idleAt = idleThreads.indexOf(this);
    if (idleAt >= 0) idleThreads.splice(idleAt, 1);
    if (this.lent) {
      this.lent = false;
      givePlaceBack();
    }
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    this.waiting.clear();
    void this.worker.terminate();
  }
}
