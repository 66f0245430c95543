// A program for the paste checks: puts its terminal in raw mode (no echo, no
// line editing, no line length limit), says `ready`, then reads slower than a
// paste arrives and appends every byte it reads to OUT_FILE, so the suite can
// count exactly what reached the program.
//   node slow-reader.js OUT_FILE BYTES_PER_SECOND
import { openSync, writeSync } from 'node:fs';

const [outFile, rateArg] = process.argv.slice(2);
if (!outFile) {
  process.stderr.write('usage: slow-reader OUT_FILE [BYTES_PER_SECOND]\n');
  process.exit(2);
}
const bytesPerSecond = Number(rateArg ?? 1024 * 1024);
const fd = openSync(outFile, 'a');
process.stdin.setRawMode(true);
process.stdin.on('data', (chunk: Buffer) => {
  writeSync(fd, chunk);
  // Reading slowly keeps the terminal's buffer full, so a paste waits in the
  // holder and the server: where a crash can lose it.
  process.stdin.pause();
  setTimeout(() => process.stdin.resume(), Math.ceil((chunk.length * 1000) / bytesPerSecond));
});
process.stdout.write('ready\r\n');
