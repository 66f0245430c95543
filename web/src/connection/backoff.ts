// Delays between reconnect attempts to a lost server: exponential from 500 ms,
// capped at 10 s. A server restart takes a few hundred milliseconds, so the
// first retry usually lands; a long outage is then polled gently. A page never
// gives up: it is the thing a person is looking at.

export const RECONNECT_BASE_MS = 500;
export const RECONNECT_MAX_DELAY_MS = 10_000;

export class ReconnectBackoff {
  private attempts = 0;

  constructor(
    private readonly baseMs = RECONNECT_BASE_MS,
    private readonly maxDelayMs = RECONNECT_MAX_DELAY_MS,
  ) {}

  /** Failed attempts since the last success. */
  get failures(): number {
    return this.attempts;
  }

  /** The delay before the next attempt. */
  next(): number {
    const delay = Math.min(this.maxDelayMs, this.baseMs * 2 ** Math.min(this.attempts, 20));
    this.attempts++;
    return delay;
  }

  /** Connected again: the next outage starts from the base delay. */
  reset(): void {
    this.attempts = 0;
  }
}
