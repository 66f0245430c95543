// One `tend` CLI command the suite runs: owned by PID, killed if it outlives
// its time, its exit code and standard error kept for the figures.
import { spawn } from 'node:child_process';
import { tendBin } from './fault-server.js';
import { owned } from './owned-processes.js';

const DEFAULT_TIMEOUT_MS = 60_000;

export interface TendResult {
  /** null when it was killed (ran out of time). */
  code: number | null;
  stderr: string;
}

export function runTend(env: NodeJS.ProcessEnv, args: string[], options: { stdin?: Uint8Array; timeoutMs?: number } = {}): Promise<TendResult> {
  const { stdin, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tendBin, ...args], { env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    owned.add(child.pid);
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: stderr.trim() });
    });
    if (stdin !== undefined) {
      child.stdin!.on('error', () => undefined); // a CLI that died early closes its stdin
      child.stdin!.end(stdin);
    }
  });
}
