// Searching a screen's rows, history included: logical lines (a row and the
// rows wrapped onto it) handed to a matcher in batches. The matcher may
// answer later (a user's regular expression runs on a thread of its own,
// pattern-thread.ts), and the rows are read in slices, so the thread that
// parses every session is never held for long by one search. A search has
// a time budget; past it, it stops with a SearchStoppedError.
import type { IBufferLine } from '@xterm/headless';

import type { SearchMatch } from '../../protocol/api/index.js';
export type { SearchMatch };

export interface SearchResult {
  /** The last matches, oldest first. */
  matches: SearchMatch[];
  /** How many lines matched in all. */
  total: number;
  /** The rows searched: [firstRow, endRow). */
  firstRow: number;
  endRow: number;
  /** Rows a memory budget dropped below firstRow (not searched). */
  dropped: number;
}

/** Which of a batch of lines match: at once, or later. */
export interface LineMatcher {
  test(lines: readonly string[]): ArrayLike<boolean | number> | Promise<ArrayLike<boolean | number>>;
}

/** Why a search gave up, for a person: the pattern itself, or the size of what it had to read. */
export type SearchStopReason = 'pattern_too_slow' | 'search_too_long';

export class SearchStoppedError extends Error {
  constructor(readonly reason: SearchStopReason, message: string) {
    super(message);
    this.name = 'SearchStoppedError';
  }
}

/**
 * Longest a search may take in all. Reading rows runs at ~60 000 rows a
 * second (about 3 s for 200 000 rows of 100 characters), and this session's
 * parsing waits while its search runs, so one search of a history of
 * millions of rows stops here rather than holding the session for minutes.
 */
export const SEARCH_TIME_BUDGET_MS = 30_000;
/** Characters of lines given to the matcher at once: few messages to a pattern's thread, and each answered within milliseconds. */
export const SEARCH_BATCH_CHARS = 32 * 1024;
/** Rows read between clock checks. */
const ROWS_PER_CLOCK_CHECK = 64;

export interface RowSource {
  /** The rows to search: [from, end). */
  readonly from: number;
  readonly end: number;
  readonly dropped: number;
  lineAt(row: number): IBufferLine | undefined;
}

export interface SearchLimits {
  /** Longest the rows may be read without handing the thread back. */
  sliceMs: number;
  /** Longest the whole search may take. */
  budgetMs: number;
  /** True once the screen is gone: the search stops. */
  disposed(): boolean;
}

/** The last `max` logical lines of `rows` that `matcher` accepts, and how many did in all. */
export async function searchRows(rows: RowSource, matcher: LineMatcher, max: number, limits: SearchLimits): Promise<SearchResult> {
  const { from, end } = rows;
  const found: SearchMatch[] = [];
  let total = 0;
  let batch: string[] = [];
  let batchRows: number[] = [];
  let batchChars = 0;
  const started = performance.now();
  let sliceStart = started;

  const testBatch = async (): Promise<void> => {
    if (batch.length === 0) return;
    const lines = batch;
    const starts = batchRows;
    batch = [];
    batchRows = [];
    batchChars = 0;
    const hits = await matcher.test(lines);
    if (limits.disposed()) throw new Error('tend: screen disposed');
    for (let i = 0; i < lines.length; i++) {
      if (!hits[i]) continue;
      total++;
      found.push({ row: starts[i]!, line: lines[i]! });
      // Only the last `max` are kept: cut back now and then, not once per match.
      if (found.length >= 2 * max) found.splice(0, found.length - max);
    }
  };

  let start = from;
  let text = '';
  const endLine = (): void => {
    text = text.replace(/ +$/, '');
    if (text === '') return;
    batch.push(text);
    batchRows.push(start);
    batchChars += text.length;
  };
  // Each row is read once: the row after this one (is it wrapped onto it?) is the next turn's row.
  let next = from < end ? rows.lineAt(from) : undefined;
  for (let r = from; r < end; r++) {
    const line = next;
    next = r + 1 < end ? rows.lineAt(r + 1) : undefined;
    const part = line === undefined ? '' : next?.isWrapped === true ? line.translateToString(false) : line.translateToString(true);
    if (line?.isWrapped === true && r > from) text += part;
    else {
      endLine();
      start = r;
      text = part;
      if (batchChars >= SEARCH_BATCH_CHARS) await testBatch();
    }
    if ((r - from) % ROWS_PER_CLOCK_CHECK === ROWS_PER_CLOCK_CHECK - 1) {
      const now = performance.now();
      if (now - started >= limits.budgetMs) {
        throw new SearchStoppedError('search_too_long',
          `the search was stopped after ${Math.round(limits.budgetMs / 1000)} s with ${r + 1 - from} of ${end - from} rows read: ` +
          'this session\'s history is too long to search at once (its output waits to be parsed while a search runs)');
      }
      if (now - sliceStart >= limits.sliceMs) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (limits.disposed()) throw new Error('tend: screen disposed');
        sliceStart = performance.now();
      }
    }
  }
  endLine();
  await testBatch();
  return { matches: found.slice(-max), total, firstRow: from, endRow: end, dropped: rows.dropped };
}

/** A matcher for plain text, run where the rows are (it is linear in the line's length). */
export function textMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  if (!ignoreCase) return { test: (lines) => lines.map((line) => line.includes(pattern)) };
  const lower = pattern.toLowerCase();
  return { test: (lines) => lines.map((line) => line.toLowerCase().includes(lower)) };
}
