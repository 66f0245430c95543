// Disks that misbehave on purpose: a small tmpfs that a test fills up, and
// a read-only one. Mounting needs root (or a machine that allows it); where
// it is not allowed the test says so and skips, rather than passing blind.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface SmallDisk {
  dir: string;
  /** Writes zeros into a file until the disk has no room left. */
  fill(): void;
  /** Unmounts, whatever is still open on it (lazily). */
  dispose(): void;
}

const FILL_CHUNK_BYTES = 64 * 1024;

/** Mounts a tmpfs of `sizeBytes` on `dir` (read-only when asked), or says why it cannot. */
export function mountSmallDisk(dir: string, sizeBytes: number, options: { readOnly?: boolean } = {}): SmallDisk | { skip: string } {
  const opts = [`size=${Math.ceil(sizeBytes / 1024)}k`, 'mode=0700', ...(options.readOnly ? ['ro'] : [])].join(',');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const said = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    return { skip: `cannot mount a small tmpfs here (${said.split('\n')[0]}); the test needs root or a machine that allows mounts` };
  }
  return {
    dir,
    fill() {
      const fd = openSync(join(dir, 'filler'), 'w');
      const zeros = Buffer.alloc(FILL_CHUNK_BYTES);
      try {
        for (;;) writeSync(fd, zeros);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
    },
    dispose() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } catch {
        /* already gone */
      }
    },
  };
}
