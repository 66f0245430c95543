// Test support: runs a snippet of ES module code in a child Node process that
// file permissions actually bind. Tests usually run as root, for whom mode
// bits stop nothing (every write to a chmod 0500 directory succeeds), so as
// root the child drops to the uid/gid of `nobody` at spawn; as anyone else it
// runs as that same user, for whom chmod already works. Either way the write
// fails in the kernel with a real EACCES — no fake fs in between.
import { spawn } from 'node:child_process';
import { chmodSync } from 'node:fs';

const NOBODY_ID = 65534;

export const runsAsRoot = (): boolean => process.getuid?.() === 0;

/**
 * Makes `dir` something the child can enter and read but not write, and its
 * parents traversable (mkdtemp gives 0700, which would shut `nobody` out).
 */
export function makeReadOnlyForChild(dir: string, parents: string[]): void {
  for (const p of parents) chmodSync(p, 0o755);
  chmodSync(dir, 0o555);
}

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The JSON value the snippet printed on its last stdout line. */
  result: unknown;
}

/** Runs `source` (an ES module: it may use top-level await) and parses its last stdout line as JSON. */
export function runAsAnotherUser(source: string, options: { timeoutMs: number }): Promise<ChildResult> {
  const ids = runsAsRoot() ? { uid: NOBODY_ID, gid: NOBODY_ID } : {};
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    ...ids,
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`child did not finish in ${options.timeoutMs} ms; stderr: ${stderr}`));
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      let result: unknown = undefined;
      try {
        result = JSON.parse(last);
      } catch {
        /* left undefined: the assertion on it will show stdout and stderr */
      }
      resolve({ code, stdout, stderr, result });
    });
  });
}
