// Everything one test starts, released in one place when it ends: temp dirs
// removed, every process the test registered killed by PID, other cleanups run
// in reverse order. Use: `const scope = useTestScope(t)` at the top of a test
// (or suite hook); t.after runs scope.dispose() even when the test fails.

import { makeTempDir, removeTempDir } from './temp-dir.js';
import { isProcessAlive, killQuietly } from './processes.js';
import { waitFor } from './wait-for.js';

export class TestScope {
  private readonly pids = new Set<number>();
  private readonly dirs: string[] = [];
  private readonly cleanups: Array<() => void | Promise<void>> = [];
  private disposed = false;

  tempDir(prefix?: string): string {
    const dir = makeTempDir(prefix);
    this.dirs.push(dir);
    return dir;
  }

  /** Kills pid with SIGKILL at the end of the test unless it is already gone. */
  trackPid(pid: number): number {
    this.pids.add(pid);
    return pid;
  }

  /** Runs fn at the end of the test, before processes are killed. */
  defer(fn: () => void | Promise<void>): void {
    this.cleanups.push(fn);
  }

  /** Adds a Disposable (connection, server...) to be disposed at the end. */
  own<T extends { dispose(): void }>(item: T): T {
    this.defer(() => item.dispose());
    return item;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const errors: unknown[] = [];
    for (const fn of this.cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    }
    for (const pid of this.pids) killQuietly(pid, 'SIGKILL');
    // Wait for them to be gone so the next test starts on a quiet machine.
    await waitFor(() => [...this.pids].every((pid) => !isProcessAlive(pid)), {
      timeoutMs: 10_000,
      what: `processes ${[...this.pids].join(', ')} to die`,
    }).catch((err: unknown) => errors.push(err));
    for (const dir of this.dirs) removeTempDir(dir);
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'test cleanup failed');
  }
}

/** A scope whose dispose() runs when the test (or suite) t ends. */
export function useTestScope(t: { after(fn: () => unknown): void }): TestScope {
  const scope = new TestScope();
  t.after(() => scope.dispose());
  return scope;
}
