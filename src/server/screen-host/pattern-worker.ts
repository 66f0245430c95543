// The thread a user's regular expression runs on (pattern-thread.ts starts
// it, one per search): it answers, for each batch of lines, which match. A
// pattern that backtracks for minutes on one line holds only this thread,
// which its owner stops.
import { parentPort, workerData } from 'node:worker_threads';
import { PATTERN_THREAD_NICE, lowerThisThreadsPriority } from './thread-priority.js';
import type { PatternBatch, PatternHits, PatternWorkerData } from './pattern-messages.js';

const port = parentPort;
if (port === null) throw new Error('tend: the pattern thread runs as a worker thread');
lowerThisThreadsPriority(PATTERN_THREAD_NICE);
const { pattern, flags } = workerData as PatternWorkerData;
// The server checked that it compiles; no 'g' or 'y', so test() keeps no state between lines.
const re = new RegExp(pattern, flags);
port.on('message', ({ id, lines }: PatternBatch) => {
  const hits = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) hits[i] = re.test(lines[i]!) ? 1 : 0;
  const answer: PatternHits = { id, hits };
  port.postMessage(answer, [hits.buffer]);
});
