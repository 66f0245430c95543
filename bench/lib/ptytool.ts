// The C harness (bench/ptytool.c) from TypeScript: built on first use, every
// mode returns the JSON object it prints.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runJson } from './child-process.js';

export interface DrainResult {
  bytes: number;
  elapsed_ms: number;
  mb_per_s: number;
  status: number;
}

export interface EchoResult {
  keys: number;
  timeouts: number;
  p50_us: number;
  p99_us: number;
  min_us: number;
  max_us: number;
  /** Every key's echo time, in the order typed (with `perKey`). */
  latencies_us?: number[];
}

export interface AttachResult {
  first_byte_ms: number;
  last_byte_ms: number;
  bytes: number;
}

export interface HolderDrainResult {
  bytes: number;
  elapsed_ms: number;
  mb_per_s: number;
  frames: number;
  holes: number;
  exit_code: number;
  exit_signal: number;
}

export interface EchoOptions {
  keys: number;
  gapMs?: number;
  settleMs?: number;
  /** List every key's time too (EchoResult.latencies_us). */
  perKey?: boolean;
}

export class PtyTool {
  private constructor(
    readonly path: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Runs `make -s -C bench` from the repository root (a no-op when up to date). */
  static build(root: string, env: NodeJS.ProcessEnv): PtyTool {
    execFileSync('make', ['-s', '-C', 'bench'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    return new PtyTool(join(root, 'bench', 'build', 'ptytool'), env);
  }

  drain(argv: readonly string[]): Promise<DrainResult> {
    return runJson(this.path, ['drain', '--', ...argv], { env: this.env });
  }

  echo(argv: readonly string[], o: EchoOptions): Promise<EchoResult> {
    return runJson(this.path, ['echo', ...echoArgs(o), '--', ...argv], { env: this.env });
  }

  attach(argv: readonly string[], quietMs: number, size?: { cols: number; rows: number }): Promise<AttachResult> {
    const sizeArgs = size ? ['--cols', String(size.cols), '--rows', String(size.rows)] : [];
    return runJson(this.path, ['attach', '-q', String(quietMs), ...sizeArgs, '--', ...argv], { env: this.env });
  }

  /** Drains a holder to EXIT; with goFifo the clock starts when the child is let go. */
  holderDrain(socket: string, goFifo?: string): Promise<HolderDrainResult> {
    const go = goFifo ? ['--go', goFifo] : [];
    return runJson(this.path, ['holder-drain', ...go, socket], { env: this.env });
  }

  holderEcho(socket: string, o: EchoOptions): Promise<EchoResult> {
    return runJson(this.path, ['holder-echo', ...echoArgs(o), socket], { env: this.env });
  }
}

function echoArgs(o: EchoOptions): string[] {
  return ['-n', String(o.keys), '--gap-ms', String(o.gapMs ?? 3), '--settle-ms', String(o.settleMs ?? 300), ...(o.perKey === true ? ['--per-key'] : [])];
}
