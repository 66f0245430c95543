// Waiting on conditions instead of sleeping: poll until the condition holds
// (returns a value other than false/undefined/null), or fail with a message
// that says what was awaited and what was last seen.

export interface WaitForOptions {
  /** Generous by default: the suite must pass on a loaded 2-core machine. */
  timeoutMs?: number;
  intervalMs?: number;
  /** Named in the timeout error: "timed out after 20000 ms waiting for <what>". */
  what?: string;
  /** Extra context for the timeout error, evaluated then. */
  describe?: () => string;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 20_000;
const DEFAULT_POLL_INTERVAL_MS = 20;

export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, false | undefined | null>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await condition();
      if (value !== false && value !== undefined && value !== null) {
        return value as Exclude<T, false | undefined | null>;
      }
      lastError = null;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const parts = [`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}`];
      if (options.describe) parts.push(options.describe());
      if (lastError) parts.push(`last error: ${(lastError as Error).message ?? String(lastError)}`);
      throw new Error(parts.join('; '));
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves with the first value passed to the one-shot subscription, or rejects after timeoutMs. */
export function nextEvent<T>(
  subscribe: (listener: (value: T) => void) => { dispose(): void },
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${options.what ?? 'an event'}`));
    }, timeoutMs);
    const sub = subscribe((value) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}

/** Rejects after timeoutMs unless the promise settles first. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
