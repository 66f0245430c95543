// The screen host's thread parses at a lower priority than the loop's.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Parsing is background work: the host's thread runs at nice 10, so that
 * when the cores are busy the loop's thread (every key, every byte to a
 * viewer) and the programs themselves go first, and parsing takes what is
 * left. Beside 20 floods on 2 cores (docs/performance.md) it took the echo
 * p99 from 19–22 ms to 10–12 ms; a flood parsed 2.1 MB/s instead of 2.4–2.7.
 */
export const PARSE_THREAD_NICE = 10;
/**
 * A user's regular expression runs at the lowest priority there is: a
 * pattern that backtracks spins a core until it is stopped
 * (pattern-thread.ts), and meanwhile parsing and the loop go first.
 */
export const PATTERN_THREAD_NICE = 19;

/** Sets the calling thread's nice value (Linux: it is per thread); elsewhere does nothing. */
export function lowerThisThreadsPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or no /proc: parse at the process's priority.
  }
}
