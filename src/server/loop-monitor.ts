// How long the server's event loop keeps callers waiting: a keystroke, an API
// call or a holder's output all wait for the loop, so its delay is the
// server's responsiveness. Reported by GET /v1/health (the bench reads it;
// `?reset-event-loop=1` starts a new window after the reading).
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Disposable } from '../common/lifecycle.js';

/**
 * How often the monitor's timer fires. Each sample is the time since the
 * previous one, so a sample is this much plus how late the timer was; the
 * figures reported are the lateness (the sample less this). A stall shorter
 * than this can fall between samples; 1 ms caught all but cost 2 % of a core
 * in an idle server, 2 ms costs a fraction of that.
 */
const RESOLUTION_MS = 2;

export interface EventLoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Milliseconds the figures cover (since the server started or the last reset). */
  windowMs: number;
}

export class LoopMonitor implements Disposable {
  private readonly histogram: IntervalHistogram;
  private since = performance.now();

  constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
  }

  read(options: { reset?: boolean } = {}): EventLoopDelay {
    const h = this.histogram;
    const ms = (ns: number) => Math.round(Math.max(0, ns / 1e6 - RESOLUTION_MS) * 100) / 100;
    const figures = {
      p50Ms: h.count > 0 ? ms(h.percentile(50)) : 0,
      p99Ms: h.count > 0 ? ms(h.percentile(99)) : 0,
      maxMs: h.count > 0 ? ms(h.max) : 0,
      windowMs: Math.round(performance.now() - this.since),
    };
    if (options.reset === true) {
      h.reset();
      this.since = performance.now();
    }
    return figures;
  }

  dispose(): void {
    this.histogram.disable();
  }
}
