// What the screen host and a pattern's thread (pattern-worker.ts) say to each other.

export interface PatternWorkerData {
  pattern: string;
  flags: string;
}

/** Lines to test, in order. */
export interface PatternBatch {
  id: number;
  lines: readonly string[];
}

/** Per line of the batch `id`: 1 if it matches, else 0. */
export interface PatternHits {
  id: number;
  hits: Uint8Array;
}
