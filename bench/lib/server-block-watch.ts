// How long the event loop was held up while some async work ran: the figure
// that matters for a server, since every other session waits that long. Two
// probes: a setImmediate chain (the gap between two of its turns is a block,
// at sub-millisecond resolution) and monitorEventLoopDelay (1 ms resolution),
// reported side by side because each misses what the other sees best.

import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface BlockWatch {
  /** Longest gap between two setImmediate turns, ms. */
  longestGapMs: number;
  /** monitorEventLoopDelay's maximum, ms. */
  histogramMaxMs: number;
}

export class LoopBlockWatch {
  private readonly histogram = monitorEventLoopDelay({ resolution: 1 });
  private longest = 0;
  private last = performance.now();
  private running = true;

  constructor() {
    this.histogram.enable();
    setImmediate(this.tick);
  }

  private readonly tick = (): void => {
    const now = performance.now();
    this.longest = Math.max(this.longest, now - this.last);
    this.last = now;
    if (this.running) setImmediate(this.tick);
  };

  /** The longest blocks so far, and a fresh start for the next phase. */
  lap(): BlockWatch {
    const now = performance.now();
    const r = { longestGapMs: Math.max(this.longest, now - this.last), histogramMaxMs: this.histogram.max / 1e6 };
    this.longest = 0;
    this.last = now;
    this.histogram.reset();
    return r;
  }

  stop(): BlockWatch {
    const r = this.lap();
    this.running = false;
    this.histogram.disable();
    return r;
  }
}
