// A program for the crash loop: writes a seeded random terminal stream
// (faults/programs/varied-stream.ts: colours, cursor moves, erases, wide
// characters, scroll regions, the
// alternate screen, wraps) to its terminal,
// and the same bytes to a file first, so the suite can rebuild exactly what
// the terminal was sent. Paced, with pauses, so servers see both floods and
// quiet; stops (and exits 0) once STOP_FILE exists.
//   node stream-writer.js OUT_FILE SEED COLS ROWS STOP_FILE
import { existsSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { seededRandom } from '../../test/support/random-stream.js';
import { variedStream } from './varied-stream.js';

/** Steps of random-stream per write: a few hundred bytes. */
const MAX_STEPS_PER_WRITE = 24;
/** About 20 KB/s per writer: a few writers keep a server busy without taking the machine. */
const PAUSE_MS = 15;
const LONG_PAUSE_MS = 400;

const [outFile, seedArg, colsArg, rowsArg, stopFile] = process.argv.slice(2);
if (!outFile || !stopFile) {
  process.stderr.write('usage: stream-writer OUT_FILE SEED COLS ROWS STOP_FILE\n');
  process.exit(2);
}
const random = seededRandom(Number(seedArg));
const cols = Number(colsArg);
const rows = Number(rowsArg);
const fd = openSync(outFile, 'w');

function step(): void {
  if (existsSync(stopFile!)) {
    fsyncSync(fd);
    process.stdout.write('', () => process.exit(0));
    return;
  }
  const text = variedStream(random, 1 + Math.floor(random() * MAX_STEPS_PER_WRITE), cols, rows);
  // The file first: whatever reached the terminal is always in the file.
  writeSync(fd, text);
  const more = process.stdout.write(text);
  const pause = random() < 0.02 ? LONG_PAUSE_MS : Math.floor(random() * PAUSE_MS);
  if (more) setTimeout(step, pause);
  else process.stdout.once('drain', () => setTimeout(step, pause));
}
step();
