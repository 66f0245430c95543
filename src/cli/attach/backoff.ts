// When `tend attach` retries a lost server: exponential delays from a small
// base (a restart usually takes a few hundred ms, and the first retries should
// catch it), capped so a long outage is polled gently, and a deadline after
// which it gives up and says so.

export const RECONNECT_BASE_MS = 100;
export const RECONNECT_MAX_DELAY_MS = 2000;
export const RECONNECT_GIVE_UP_MS = 60_000;

export interface BackoffOptions {
  baseMs?: number;
  maxDelayMs?: number;
  giveUpMs?: number;
  now?: () => number;
}

export class Backoff {
  private readonly baseMs: number;
  private readonly maxDelayMs: number;
  private readonly giveUpMs: number;
  private readonly now: () => number;
  private attempts = 0;
  private since: number | null = null;

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? RECONNECT_BASE_MS;
    this.maxDelayMs = options.maxDelayMs ?? RECONNECT_MAX_DELAY_MS;
    this.giveUpMs = options.giveUpMs ?? RECONNECT_GIVE_UP_MS;
    this.now = options.now ?? Date.now;
  }

  /** Failures since the last success. */
  get failures(): number {
    return this.attempts;
  }

  /** The delay before the next attempt, or null when it is time to give up. */
  next(): number | null {
    const now = this.now();
    if (this.since === null) this.since = now;
    if (now - this.since >= this.giveUpMs) return null;
    const delay = Math.min(this.maxDelayMs, this.baseMs * 2 ** Math.min(this.attempts, 30));
    this.attempts++;
    return Math.min(delay, Math.max(0, this.since + this.giveUpMs - now));
  }

  /** Connected again: the next outage starts from the base delay. */
  reset(): void {
    this.attempts = 0;
    this.since = null;
  }
}
