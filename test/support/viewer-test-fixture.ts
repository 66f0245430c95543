// Pieces the viewer tests share: time that moves only when a test says so,
// a wait for awaited snapshots, and the default modes of a fake screen.
import type { ScreenModes } from '../../src/protocol/viewer-frames.js';
import type { Timers } from '../../src/server/viewers/flow-limits.js';

export const DEFAULT_MODES: ScreenModes = {
  cursorX: 0,
  cursorY: 0,
  cursorHidden: false,
  altScreen: false,
  applicationCursorKeys: false,
  applicationKeypad: false,
  bracketedPaste: false,
  sendFocus: false,
  originMode: false,
  insertMode: false,
  wraparound: true,
  mouseTracking: 'none',
  mouseEncoding: 'unknown',
};

/** Time that moves only when the test says so. */
export class SteppedTimers implements Timers {
  private now = 0;
  private pending: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.push({ at: this.now + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }
  get waiting(): number {
    return this.pending.length;
  }
  advance(ms: number): void {
    this.now += ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= this.now).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.pending = this.pending.filter((p) => p !== due);
      due.fn();
    }
  }
}

/** Lets awaited snapshots settle. */
export const settle = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
