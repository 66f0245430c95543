// When to checkpoint a session: after a short quiet (the screen has settled,
// so the checkpoint is cheap to replay from) and at most a fixed time apart
// while output keeps flowing (so the bytes to replay after a crash stay few).
import type { Disposable } from '../common/lifecycle.js';

export const CHECKPOINT_QUIET_MS = 2000;
export const CHECKPOINT_MAX_INTERVAL_MS = 30_000;

export class CheckpointSchedule implements Disposable {
  private quietTimer: NodeJS.Timeout | null = null;
  private maxTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    private readonly fire: () => void,
    private readonly quietMs = CHECKPOINT_QUIET_MS,
    private readonly maxIntervalMs = CHECKPOINT_MAX_INTERVAL_MS,
  ) {}

  /** Output arrived: push the quiet deadline back, and start the max-interval clock if idle. */
  noteOutput(): void {
    if (this.disposed) return;
    if (this.quietTimer) this.quietTimer.refresh();
    else this.quietTimer = setTimeout(() => this.run(), this.quietMs);
    this.quietTimer.unref();
    if (!this.maxTimer) {
      this.maxTimer = setTimeout(() => this.run(), this.maxIntervalMs);
      this.maxTimer.unref();
    }
  }

  private run(): void {
    this.clear();
    if (!this.disposed) this.fire();
  }

  private clear(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    if (this.maxTimer) clearTimeout(this.maxTimer);
    this.quietTimer = null;
    this.maxTimer = null;
  }

  dispose(): void {
    this.disposed = true;
    this.clear();
  }
}
