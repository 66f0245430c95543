// Kills timed by the disk: the server is SIGKILLed from inside the watcher's
// callback the moment a checkpoint's temp file appears or a history file
// changes, so the kill lands while (or just after) the server writes it.

import { watch } from 'node:fs';
import { signalQuietly } from '../lib/owned-processes.js';

/**
 * Watches `dir` and SIGKILLs `pid` on the first event whose file name passes
 * `matches`. Resolves true when an event fired the kill, false when none came
 * within timeoutMs (the caller then kills at random).
 */
export function killOnFileEvent(dir: string, matches: (name: string) => boolean, pid: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (fired: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      watcher.close();
      resolve(fired);
    };
    const watcher = watch(dir, (_event, name) => {
      if (done || name === null || !matches(name)) return;
      signalQuietly(pid, 'SIGKILL');
      finish(true);
    });
    watcher.on('error', () => finish(false));
    const timer = setTimeout(() => finish(false), timeoutMs);
  });
}
