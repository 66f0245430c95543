// The command line the server process starts with. Whoever starts a server
// (the CLI, the bench) builds it here: some flags must be on the command line,
// as V8's thread pool is sized before any of the server's code runs.
import { availableParallelism } from 'node:os';

/**
 * V8 runs concurrent marking, sweeping and parallel scavenges on a pool of
 * background threads, 4 by default. On 2 cores those threads take turns with
 * the event loop itself (they share the server's scheduling group), and while
 * the server parses 20 floods a keystroke can wait behind them: loop delay
 * p99 8.6–10.4 ms with 4, 5.7–6.5 ms with 1 (docs/performance.md). One
 * thread per core beyond the loop's, at most V8's 4.
 */
export function serverNodeFlags(cores: number = availableParallelism()): string[] {
  return [`--v8-pool-size=${Math.max(1, Math.min(4, cores - 1))}`, NO_MEMORY_REDUCER];
}

/**
 * V8's memory reducer makes full collections in an isolate that looks idle,
 * and the loop's isolate looks idle whenever someone is only typing: three
 * mark-compacts 0.6 s apart, each pausing the loop 2–13 ms, in the middle of
 * the keys' echo (docs/performance.md). Its heap is a few MB and has little
 * to give back; the screen host's, which holds every screen, keeps its
 * reducer (screen-host.ts turns the flag back on before making its thread:
 * V8 reads it when an isolate is made).
 */
export const NO_MEMORY_REDUCER = '--no-memory-reducer';

/**
 * Node's arguments for a server whose main is `main`: these flags, then
 * `extraNodeFlags` (so they can override them), and the ready pipe on fd 3.
 */
export function serverArgs(main: string, extraNodeFlags: readonly string[] = []): string[] {
  return [...serverNodeFlags(), ...extraNodeFlags, main, '--ready-fd', '3'];
}
