// The machine a run was measured on: figures mean little without it, nor
// without the versions of what was measured (tend's commit, Node, tmux, the
// xterm packages the server parses with).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

export interface Machine {
  date: string;
  cores: number;
  cpu: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  tmux: string;
  cc: string;
  /** the 1-minute load average when the run started */
  loadAverage1m: number;
  /** 1, 5 and 15-minute load averages when the run started */
  loadAverageAtStart?: [number, number, number];
  /** `git rev-parse --short HEAD`, with "+dirty" when the tree has changes */
  tendCommit?: string;
  /** package name → version, from node_modules */
  packages?: Record<string, string>;
}

/** Packages on the measured path: the server's emulator and snapshot serializer. */
const MEASURED_PACKAGES_NAMES = ['@xterm/headless', '@xterm/addon-serialize', '@xterm/xterm', 'ws', 'better-sqlite3'];

function versionOf(cmd: string, args: string[], cwd?: string): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0]!.trim();
  } catch {
    return 'not installed';
  }
}

function packageVersion(root: string, name: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'not installed';
  }
}

function gitCommit(root: string): string {
  const head = versionOf('git', ['rev-parse', '--short', 'HEAD'], root);
  if (head === 'not installed') return 'unknown (not a git checkout)';
  let dirty = false;
  try {
    dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
  } catch {
    // status unreadable: report the commit alone
  }
  return dirty ? `${head}+dirty` : head;
}

export function loadAverages(): [number, number, number] {
  const [a, b, c] = os.loadavg().map((x) => Math.round(x * 100) / 100);
  return [a!, b!, c!];
}

export function describeMachine(root: string): Machine {
  const load = loadAverages();
  return {
    date: new Date().toISOString(),
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    tmux: versionOf('tmux', ['-V']),
    cc: versionOf('cc', ['--version']),
    loadAverage1m: load[0],
    loadAverageAtStart: load,
    tendCommit: gitCommit(root),
    packages: Object.fromEntries(MEASURED_PACKAGES_NAMES.map((n) => [n, packageVersion(root, n)])),
  };
}
