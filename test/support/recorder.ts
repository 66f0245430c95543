// A program for input tests: it appends every byte it reads to a file (its
// terminal raw, so the tty changes nothing) and says `ready` once it is. With
// a delay it sleeps after each read, so that a paste backs up behind it.
import { existsSync, readFileSync } from 'node:fs';

export function recorderProgram(file: string, delayMs = 0): string[] {
  return [
    process.execPath,
    '-e',
    "const fs = require('fs'); const out = fs.openSync(process.argv[1], 'w'); const delay = Number(process.argv[2]);" +
      "process.stdin.setRawMode(true); process.stdout.write('ready\\n');" +
      "process.stdin.on('data', (b) => { fs.writeSync(out, b); if (delay > 0) { process.stdin.pause(); setTimeout(() => process.stdin.resume(), delay); } });",
    file,
    String(delayMs),
  ];
}

/** What the program has read so far (nothing before it opened the file). */
export function recordedBytes(file: string): Buffer {
  return existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
}

export function recordedText(file: string): string {
  return recordedBytes(file).toString('utf8');
}
