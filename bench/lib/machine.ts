// The machine a run was measured on: figures mean little without it.

import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  date: string;
  cores: number;
  cpu: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  tmux: string;
  cc: string;
  loadAverage1m: number;
}

function versionOf(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0]!.trim();
  } catch {
    return 'not installed';
  }
}

export function describeMachine(): Machine {
  return {
    date: new Date().toISOString(),
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    tmux: versionOf('tmux', ['-V']),
    cc: versionOf('cc', ['--version']),
    loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}
