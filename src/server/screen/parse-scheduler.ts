// Who parses next. Every session's screen queues the bytes its holder sent;
// this one scheduler per server hands out parse time, so a session that
// floods output cannot hold the event loop (left to itself, xterm parses up
// to 12 ms per write slice per terminal, and twenty floods gave a 270 ms loop
// delay: a keystroke or an API call waited behind all of them).
//
// A turn runs from setImmediate, i.e. after the loop has read its sockets:
//   1. small jobs first: a screen with a few KiB queued (an echo, a prompt) is
//      parsed whole, so interactive output never waits behind a flood;
//   2. then round-robin: each screen with work gets a slice (SLICE_MS), the
//      next turn starts with the screen after the last one served, until the
//      turn's budget (TURN_MS) is spent.
// Then the loop goes round (input, viewers, timers) and the next turn starts.
// A flooding screen's queue grows while it waits; the session pauses its
// holder above a high-water mark, so the program is slowed by the kernel,
// never by the others' starvation.
import { performance } from 'node:perf_hooks';

/** Parse time one screen may take before the next one's turn (about one 16 KiB piece). */
export const SLICE_MS = 0.5;
/**
 * Parse time per loop turn, all screens together, before I/O gets its turn.
 * Short turns cost little: a loop round is tens of µs. Measured beside 20
 * floods (docs/performance.md): 8 ms turns gave a loop p99 of 26 ms, 4 ms 16
 * ms, 1 ms 7–8 ms with echo p50 3 ms instead of 9, and no less throughput;
 * 0.5 ms took 5–10 % off one flood's parse rate for half a ms of echo.
 */
export const TURN_MS = 1;
/** A queue this small is interactive output: parsed whole at the start of a turn. */
export const SMALL_BACKLOG_BYTES = 4096;

export interface ParseJob {
  /** Bytes waiting to be parsed (for the small-first rule). */
  readonly backlogBytes: number;
  /**
   * Parses queued input until `deadline` (performance.now() time) or until
   * nothing is left; returns whether more is ready now. A job that returns
   * false is forgotten until it calls wake() again.
   */
  parse(deadline: number): boolean;
}

export interface ParseSchedulerOptions {
  sliceMs?: number;
  turnMs?: number;
  smallBacklogBytes?: number;
}

export class ParseScheduler {
  /** Jobs with work, in round-robin order (a Set iterates in insertion order). */
  private readonly ready = new Set<ParseJob>();
  private scheduled = false;
  private readonly sliceMs: number;
  private readonly turnMs: number;
  private readonly smallBacklogBytes: number;

  constructor(options: ParseSchedulerOptions = {}) {
    this.sliceMs = options.sliceMs ?? SLICE_MS;
    this.turnMs = options.turnMs ?? TURN_MS;
    this.smallBacklogBytes = options.smallBacklogBytes ?? SMALL_BACKLOG_BYTES;
  }

  /** A job has work: it gets parse time from the next turn on. */
  wake(job: ParseJob): void {
    this.ready.add(job);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.turn());
    }
  }

  /** Forgets a job (its screen is disposed, or paused for a snapshot). */
  cancel(job: ParseJob): void {
    this.ready.delete(job);
  }

  /** Jobs waiting for parse time (for tests and health figures). */
  get readyCount(): number {
    return this.ready.size;
  }

  private turn(): void {
    this.scheduled = false;
    const turnEnd = performance.now() + this.turnMs;
    for (const job of [...this.ready]) {
      if (job.backlogBytes > this.smallBacklogBytes) continue;
      this.ready.delete(job);
      if (job.parse(performance.now() + this.sliceMs)) this.ready.add(job);
    }
    while (this.ready.size > 0) {
      const now = performance.now();
      if (now >= turnEnd) break;
      const job = this.ready.values().next().value as ParseJob;
      this.ready.delete(job);
      // Re-added at the back: the next screen goes first next time.
      if (job.parse(Math.min(now + this.sliceMs, turnEnd))) this.ready.add(job);
    }
    if (this.ready.size > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.turn());
    }
  }
}

let shared: ParseScheduler | undefined;

/** The scheduler screens use unless given one: one per process, as there is one event loop. */
export function defaultParseScheduler(): ParseScheduler {
  shared ??= new ParseScheduler();
  return shared;
}
