// What the screen host and a pattern's thread (pattern-worker.ts) say to each other.

/**
 * Lines to test, in order, against `pattern` (compiled with `flags`). The
 * pattern travels with each batch: a thread serves one search after
 * another (pattern-thread.ts), and recompiles only when it changes.
 */
export interface PatternBatch {
  id: number;
  pattern: string;
  flags: string;
  lines: readonly string[];
}

/** Per line of the batch `id`: 1 if it matches, else 0. */
export interface PatternHits {
  id: number;
  hits: Uint8Array;
}
