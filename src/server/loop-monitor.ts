// How long the server's event loop keeps callers waiting: a keystroke, an API
// call or a holder's output all wait for the loop, so its delay is the
// server's responsiveness. Reported by GET /v1/health while someone watches:
// `?reset-event-loop=1` starts a window (the bench does, before it measures),
// and the monitor stops by itself when no one has read it for a while. It
// samples with a timer every 2 ms, and an idle server should not wake 500
// times a second for a figure no one reads (0.8 % of a core with 80 idle
// sessions, 2 % with 1 000).
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Disposable } from '../common/lifecycle.js';

/**
 * How often the monitor's timer fires. Each sample is the time since the
 * previous one, so a sample is this much plus how late the timer was; the
 * figures reported are the lateness (the sample less this). A stall shorter
 * than this can fall between samples; 1 ms caught all but cost twice as much.
 */
const RESOLUTION_MS = 2;
/** A window no one has read for this long is closed and the timer stopped. */
export const WATCH_IDLE_MS = 5 * 60 * 1000;

export interface EventLoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Milliseconds the figures cover (since the window was opened or last reset). */
  windowMs: number;
}

export class LoopMonitor implements Disposable {
  private histogram: IntervalHistogram | null = null;
  private since = 0;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs: number = WATCH_IDLE_MS) {}

  /** Whether a window is open (the monitor's timer is running). */
  get watching(): boolean {
    return this.histogram !== null;
  }

  /**
   * The figures of the open window (null when none is open); `reset` starts
   * a new window after this reading, opening one if none is.
   */
  read(options: { reset?: boolean } = {}): EventLoopDelay | null {
    const h = this.histogram;
    const figures = h === null ? null : {
      p50Ms: h.count > 0 ? lateness(h.percentile(50)) : 0,
      p99Ms: h.count > 0 ? lateness(h.percentile(99)) : 0,
      maxMs: h.count > 0 ? lateness(h.max) : 0,
      windowMs: Math.round(performance.now() - this.since),
    };
    if (options.reset === true) this.open();
    if (this.histogram !== null) this.keepWatching();
    return figures;
  }

  dispose(): void {
    this.close();
  }

  private open(): void {
    if (this.histogram === null) {
      this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
      this.histogram.enable();
    } else {
      this.histogram.reset();
    }
    this.since = performance.now();
  }

  private keepWatching(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
    this.idleTimer.unref();
  }

  private close(): void {
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    this.histogram?.disable();
    this.histogram = null;
  }
}

function lateness(ns: number): number {
  return Math.round(Math.max(0, ns / 1e6 - RESOLUTION_MS) * 100) / 100;
}
