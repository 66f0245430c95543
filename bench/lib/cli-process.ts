// Timing one short-lived process from spawn to exit, as a script calling a
// CLI verb in a loop sees it: for the CLI suites (`tend ls`, `tend await`…).
// Every child still running when the run ends is killed by its PID.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Disposable } from '../../src/common/lifecycle.js';

export interface TimedExit {
  /** from just before spawn to the child's exit, in ms */
  ms: number;
  stdout: string;
}

/** A verb that hangs is a broken run, not a slow one; far above any figure measured. */
const HANG_GUARD_MS = 60_000;

export class ProcessTimer implements Disposable {
  private readonly live = new Set<ChildProcess>();

  /** Spawns argv, resolves at its exit with the elapsed ms; any exit status but 0 rejects. */
  run(argv: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<TimedExit> {
    const [cmd, ...args] = argv;
    if (cmd === undefined) return Promise.reject(new Error('nothing to run'));
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      this.live.add(child);
      let exitedAt = 0;
      let out = '';
      let err = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      // the exit is the figure; 'close' (stdio drained) comes after it and only gathers the output
      child.once('exit', () => (exitedAt = performance.now()));
      child.once('error', (e) => {
        clearTimeout(timer);
        this.live.delete(child);
        reject(new Error(`${cmd}: ${e.message}`));
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        this.live.delete(child);
        if (code === 0) resolve({ ms: (exitedAt || performance.now()) - started, stdout: out });
        else reject(new Error(`${argv.slice(0, 4).join(' ')}… failed (${signal ?? `exit ${code}`}): ${err.trim().slice(0, 300)}`));
      });
    });
  }

  dispose(): void {
    for (const child of this.live) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.live.clear();
  }
}

/** `node bin/tend.js ARGS` with the bench's Node: the command a user's `tend` runs. */
export function tendCommand(root: string, ...args: string[]): string[] {
  return [process.execPath, join(root, 'bin', 'tend.js'), ...args];
}
