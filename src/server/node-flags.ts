// The Node flags the server process starts with. Whoever starts a server (the
// CLI, the bench) passes these, as they must be on the command line: V8's
// thread pool is sized before any of the server's code runs.
import { availableParallelism } from 'node:os';

/**
 * V8 runs concurrent marking, sweeping and parallel scavenges on a pool of
 * background threads, 4 by default. On 2 cores those threads take turns with
 * the event loop itself (they share the server's scheduling group), and while
 * the server parses 20 floods a keystroke can wait behind them: loop delay
 * p99 8.6–10.4 ms with 4, 5.4–6.5 ms with 1 (docs/performance.md). One
 * thread per core beyond the loop's, at most V8's 4.
 */
export function serverNodeFlags(cores: number = availableParallelism()): string[] {
  return [`--v8-pool-size=${Math.max(1, Math.min(4, cores - 1))}`];
}
