// Following the server log as `tail -F` does: print what is appended, and
// when the log is rotated (renamed aside, a new file started at the same
// path) finish the old file, then go on with the new one from its start.
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often the log is looked at: a line shows within this, and the idle cost is one stat. */
const FOLLOW_POLL_MS = 200;
const READ_STEP_BYTES = 64 * 1024;

export interface FollowFrom {
  path: string;
  /** The log already open at `offset`, or null to wait for it to appear. */
  fd: number | null;
  offset: number;
  write(bytes: Buffer): void;
  signal: AbortSignal;
}

/** Follows until `signal` aborts. */
export async function followLog({ path, fd: openFd, offset: startOffset, write, signal }: FollowFrom): Promise<void> {
  let fd = openFd;
  let offset = startOffset;
  let inode = fd === null ? null : fstatSync(fd).ino;
  try {
    while (!signal.aborted) {
      if (fd !== null) offset = printAppended(fd, offset, write);
      const now = inodeAt(path);
      if (now !== null && now !== inode) {
        // Rotated (or created): what was written to the old file before the rename comes first.
        if (fd !== null) {
          printAppended(fd, offset, write);
          closeSync(fd);
          fd = null;
        }
        try {
          fd = openSync(path, 'r');
        } catch {
          continue; // rotated again between the stat and the open: look again
        }
        inode = fstatSync(fd).ino;
        offset = 0;
        continue;
      }
      await sleep(FOLLOW_POLL_MS, undefined, { signal }).catch(() => undefined);
    }
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Prints what lies between `offset` and the end; returns the new offset. A file cut shorter is read again from its start. */
function printAppended(fd: number, offset: number, write: (bytes: Buffer) => void): number {
  let at = fstatSync(fd).size < offset ? 0 : offset;
  for (;;) {
    const chunk = Buffer.alloc(READ_STEP_BYTES);
    const got = readSync(fd, chunk, 0, chunk.length, at);
    if (got === 0) return at;
    write(chunk.subarray(0, got));
    at += got;
  }
}

function inodeAt(path: string): number | null {
  try {
    return statSync(path).ino;
  } catch {
    return null;
  }
}
