// A named pipe for a test to hold a program at (it blocks reading until the test opens it for writing).
import { spawnSync } from 'node:child_process';

export function mkfifoSync(path: string): void {
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${path}: ${made.stderr}`);
}
