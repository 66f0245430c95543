// Small file systems for the disk checks: a tmpfs of a few MiB (full after a
// few writes) and read-only mounts. Mounting needs root (or CAP_SYS_ADMIN);
// where the machine does not allow it the checks that need one are skipped
// with the reason, never failed.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class SmallFs {
  private mounted = false;
  private constructor(readonly dir: string) {}

  /** A tmpfs of `sizeBytes` (read-only when asked), or the reason there can be none here. */
  static mount(sizeBytes: number, options: { readOnly?: boolean } = {}): SmallFs | string {
    const dir = mkdtempSync(join(tmpdir(), 'tf-fs-'));
    const fs = new SmallFs(dir);
    try {
      const opts = [`size=${Math.ceil(sizeBytes / 1024)}k`, 'mode=0700', ...(options.readOnly ? ['ro'] : [])].join(',');
      execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
      fs.mounted = true;
      return fs;
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
      return `cannot mount a small file system here (${stderr || (err as Error).message}); the checks run as root, or with CAP_SYS_ADMIN`;
    }
  }

  /** The same file system, read-only from now on. */
  makeReadOnly(): void {
    execFileSync('mount', ['-o', 'remount,ro', this.dir], { stdio: 'ignore' });
  }

  dispose(): void {
    if (this.mounted) {
      // Lazy: a holder that still has a file open here must not keep the mount.
      try {
        execFileSync('umount', ['-l', this.dir], { stdio: 'ignore' });
      } catch {
        // already gone
      }
      this.mounted = false;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
