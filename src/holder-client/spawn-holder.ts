// Starts a holder. The holder reports on a pipe (its fd 3) once it has bound
// its socket and started the child, or why it could not; by then it has left
// our session and process group, so it outlives whoever started it.
//
// A launcher may put a command in front of the holder's (under systemd,
// `systemd-run --user --scope … --`, which moves it out of the server's
// cgroup and then execs it, the pipe and all). A launcher that fails before
// the holder could say anything is told why, and the holder starts plainly.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { findPackageRoot } from '../common/package-root.js';
import type { Readable } from 'node:stream';

/** A holder that has not reported within this is treated as failed and killed. */
export const DEFAULT_READY_TIMEOUT_MS = 10_000;
/** The ready line is one short line; more than this is not a holder talking. */
const READY_LINE_MAX_BYTES = 4096;
const STDERR_KEPT_BYTES = 4096;

export interface SpawnHolderOptions {
  /** Default: $TEND_HOLDER, else <package root>/holder/build/tend-holder. */
  holderPath?: string;
  socketPath: string;
  cols: number;
  rows: number;
  cwd: string;
  /** The child's whole environment (the holder passes its own on). */
  env: Record<string, string>;
  /** Program and its arguments. */
  argv: string[];
  ringBytes?: number;
  exitGraceSeconds?: number;
  logPath?: string;
  readyTimeoutMs?: number;
  /** Puts a command in front of the holder's; without one the holder starts plainly. */
  launcher?: HolderLauncher;
  /** A name for what the launcher makes of this holder (the session's id). */
  launchName?: string;
}

export interface HolderLauncher {
  /** Program and arguments to run the holder's command line under, or null: start it plainly. */
  prefix(launchName: string): string[] | null;
  /** The prefix ended before the holder reported anything (here is why); the holder is started plainly instead. */
  failed(why: string): void;
}

/** The prefix, not the holder, failed: nothing reported on the pipe. */
class LaunchFailed extends Error {}

export interface SpawnedHolder {
  holderPid: number;
  childPid: number;
}

export function defaultHolderPath(): string {
  const fromEnv = process.env.TEND_HOLDER;
  if (fromEnv) return fromEnv;
  return join(findPackageRoot(), 'holder', 'build', 'tend-holder');
}

export function holderArguments(options: SpawnHolderOptions): string[] {
  if (options.argv.length === 0) throw new Error('spawnHolder: argv must name a program');
  const args = [
    '--socket', options.socketPath,
    '--cols', String(options.cols),
    '--rows', String(options.rows),
    '--cwd', options.cwd,
    '--ready-fd', '3',
  ];
  if (options.ringBytes !== undefined) args.push('--ring', String(options.ringBytes));
  if (options.exitGraceSeconds !== undefined) args.push('--exit-grace', String(options.exitGraceSeconds));
  if (options.logPath !== undefined) args.push('--log', options.logPath);
  args.push('--', ...options.argv);
  return args;
}

/** Parses `OK <holder pid> <child pid>` or `ERR <message>`. */
export function parseReadyLine(line: string): SpawnedHolder | Error {
  const ok = /^OK (\d+) (\d+)$/.exec(line);
  if (ok) return { holderPid: Number(ok[1]), childPid: Number(ok[2]) };
  if (line.startsWith('ERR ')) return new Error(line.slice(4));
  return new Error(`holder sent an unreadable ready line: ${JSON.stringify(line)}`);
}

export async function spawnHolder(options: SpawnHolderOptions): Promise<SpawnedHolder> {
  const prefix = options.launcher?.prefix(options.launchName ?? 'holder') ?? null;
  if (prefix === null || prefix.length === 0) return spawnOnce(options, []);
  try {
    return await spawnOnce(options, prefix);
  } catch (err) {
    if (!(err instanceof LaunchFailed)) throw err;
    options.launcher!.failed(err.message);
    return spawnOnce(options, []);
  }
}

function spawnOnce(options: SpawnHolderOptions, prefix: string[]): Promise<SpawnedHolder> {
  const holderPath = options.holderPath ?? defaultHolderPath();
  const [program, ...args] = [...prefix, holderPath, ...holderArguments(options)] as [string, ...string[]];
  const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const proc = spawn(program, args, {
      env: options.env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    const readyPipe = proc.stdio[3] as Readable;
    const stderr = proc.stderr!;
    let line = '';
    let stderrText = '';
    let settled = false;
    let exitStatus: string | null = null;

    const finish = (result: SpawnedHolder | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      readyPipe.destroy();
      stderr.destroy();
      // The holder is not ours to wait for: it lives on after we exit.
      proc.unref();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const failWithoutLine = (): void => {
      const detail = stderrText.trim() ? `: ${stderrText.trim()}` : '';
      if (prefix.length > 0) return finish(new LaunchFailed(`${program} ended without starting the holder (${exitStatus ?? 'pipe closed'})${detail}`));
      finish(new Error(`holder ${holderPath} ended without reporting readiness (${exitStatus ?? 'pipe closed'})${detail}`));
    };

    const timer = setTimeout(() => {
      if (proc.pid !== undefined && exitStatus === null) proc.kill('SIGKILL');
      finish(new Error(`holder ${holderPath} did not report readiness within ${timeoutMs} ms`));
    }, timeoutMs);

    proc.once('error', (err) => finish(prefix.length > 0 ? new LaunchFailed(`cannot run ${program}: ${err.message}`) : new Error(`cannot start holder ${holderPath}: ${err.message}`)));
    proc.once('exit', (code, signal) => {
      exitStatus = signal ? `killed by ${signal}` : `exit status ${code}`;
    });
    stderr.setEncoding('utf8');
    stderr.on('data', (text: string) => {
      if (stderrText.length < STDERR_KEPT_BYTES) stderrText += text.slice(0, STDERR_KEPT_BYTES - stderrText.length);
    });
    readyPipe.setEncoding('utf8');
    readyPipe.on('data', (text: string) => {
      line += text;
      const newline = line.indexOf('\n');
      if (newline >= 0) finish(parseReadyLine(line.slice(0, newline)));
      else if (line.length > READY_LINE_MAX_BYTES) finish(new Error('holder sent an overlong ready line'));
    });
    readyPipe.on('error', () => undefined);
    // The pipe closing without a line: the holder died early (exec failure
    // of the holder itself, a crash). Wait for its status so the message says.
    readyPipe.on('end', () => {
      if (line.length > 0) return finish(parseReadyLine(line));
      if (exitStatus !== null) failWithoutLine();
      else proc.once('exit', () => failWithoutLine());
    });
  });
}
