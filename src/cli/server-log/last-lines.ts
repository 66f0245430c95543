// The last lines of the server log, read from the end so a 5 MB log costs
// no more than the lines asked for; when the current file holds fewer, the
// rest come from the file the last rotation set aside.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Read backwards in steps this big: a few hundred log lines. */
const READ_BACK_STEP_BYTES = 64 * 1024;

export interface LogTail {
  /** The lines, each with its newline (the last may lack one: a line being written). */
  text: Buffer;
  /** The open current log and where its tail ends, for a follower to go on from without a gap. */
  fd: number;
  endOffset: number;
}

/** The last `count` lines of `path`, and of `rotatedPath` before it if need be. Throws ENOENT when `path` is missing. */
export function readLastLines(path: string, rotatedPath: string, count: number): LogTail {
  const fd = openSync(path, 'r');
  const endOffset = fstatSync(fd).size;
  const current = lastLinesOf(fd, endOffset, count);
  let text = current.text;
  if (current.lines < count) {
    const older = readRotated(rotatedPath, count - current.lines);
    if (older) text = Buffer.concat([older, text]);
  }
  return { text, fd, endOffset };
}

function readRotated(path: string, count: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null; // never rotated: nothing older
  }
  try {
    return lastLinesOf(fd, fstatSync(fd).size, count).text;
  } finally {
    closeSync(fd);
  }
}

/** The last `count` lines before `end`: a final newline ends the last line, it does not start an empty one. */
function lastLinesOf(fd: number, end: number, count: number): { text: Buffer; lines: number } {
  if (count <= 0 || end === 0) return { text: Buffer.alloc(0), lines: 0 };
  const chunks: Buffer[] = [];
  let start = end;
  let newlines = 0;
  while (start > 0) {
    const from = Math.max(0, start - READ_BACK_STEP_BYTES);
    const chunk = Buffer.alloc(start - from);
    readSync(fd, chunk, 0, chunk.length, from);
    for (let i = chunk.length - 1; i >= 0; i--) {
      if (chunk[i] !== 0x0a || from + i === end - 1) continue;
      // `count` newlines before the last line's: what follows this one is `count` lines.
      if (++newlines === count) {
        chunks.unshift(chunk.subarray(i + 1));
        return { text: Buffer.concat(chunks), lines: count };
      }
    }
    chunks.unshift(chunk);
    start = from;
  }
  return { text: Buffer.concat(chunks), lines: newlines + 1 };
}
