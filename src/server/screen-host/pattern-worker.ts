// The thread a user's regular expression runs on (pattern-thread.ts starts
// it and lends it to one search at a time): it answers, for each batch of
// lines, which match. A pattern that backtracks for minutes on one line
// holds only this thread, which its owner stops.
import { parentPort } from 'node:worker_threads';
import { PATTERN_THREAD_NICE, lowerThisThreadsPriority } from './thread-priority.js';
import type { PatternBatch, PatternHits } from './pattern-messages.js';

const port = parentPort;
if (port === null) throw new Error('tend: the pattern thread runs as a worker thread');
lowerThisThreadsPriority(PATTERN_THREAD_NICE);
/** The last batch's pattern, compiled: every batch of one search has the same. */
let compiled: { pattern: string; flags: string; re: RegExp } | null = null;
port.on('message', ({ id, pattern, flags, lines }: PatternBatch) => {
  // The server checked that it compiles; no 'g' or 'y', so test() keeps no state between lines.
  if (compiled === null || compiled.pattern !== pattern || compiled.flags !== flags) compiled = { pattern, flags, re: new RegExp(pattern, flags) };
  const re = compiled.re;
  const hits = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) hits[i] = re.test(lines[i]!) ? 1 : 0;
  const answer: PatternHits = { id, hits };
  port.postMessage(answer, [hits.buffer]);
});
