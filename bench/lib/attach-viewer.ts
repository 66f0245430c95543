// What the attach suites share: the argv of a `tend attach` client for a
// private bench server, the ptytool modes that wait for a viewer's first
// paint (`echo --await-paint`, `watch`), and programs held back by a FIFO so
// a stream starts only once its viewer is attached and painted.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runJson } from './child-process.js';
import type { EchoResult } from './ptytool.js';
import type { BenchServer } from './server-instance.js';
import type { BenchContext } from './suite.js';

export interface WatchResult {
  /** bytes the viewer wrote from the release until the marker (its paint before is not counted) */
  bytes: number;
  elapsed_ms: number;
}

/** Quiet after the first paint that means the viewer has finished painting. */
export const VIEWER_SETTLE_MS = 300;

/** `tend ARGS` as a user would run it, against the bench's private server. */
export function tendArgv(ctx: BenchContext, server: BenchServer, ...args: string[]): string[] {
  return ['env', `TEND_HOME=${server.home}`, `TEND_RUNTIME_DIR=${server.runtimeDir}`,
    process.execPath, join(ctx.root, 'bin', 'tend.js'), ...args];
}

/** `tend attach ID` against the bench's private server. */
export function tendAttachArgv(ctx: BenchContext, server: BenchServer, sessionId: string): string[] {
  return tendArgv(ctx, server, 'attach', sessionId);
}

/** `node bin/tend.js ARGS`: the CLI's start-up alone, with the same Node. */
export function tendCliArgv(ctx: BenchContext, ...args: string[]): string[] {
  return [process.execPath, join(ctx.root, 'bin', 'tend.js'), ...args];
}

/**
 * Keystroke echo through a viewer that paints first: ptytool waits for the
 * first byte (so the viewer's tty is raw before any key), then for quiet.
 */
export function echoAfterPaint(ctx: BenchContext, argv: readonly string[], keys: number, gapMs: number): Promise<EchoResult> {
  return runJson(ctx.ptytool.path, ['echo', '-n', String(keys), '--gap-ms', String(gapMs),
    '--settle-ms', String(VIEWER_SETTLE_MS), '--await-paint', '--', ...argv], { env: ctx.env });
}

/** A viewer painted and quiet, then the program let go through `fifo`, timed until `marker` comes out of the viewer. */
export function watchUntilMarker(ctx: BenchContext, argv: readonly string[], fifo: string, marker: string): Promise<WatchResult> {
  return runJson(ctx.ptytool.path, ['watch', '--go', fifo, '--until', marker,
    '--settle-ms', String(VIEWER_SETTLE_MS), '--', ...argv], { env: ctx.env });
}

let serial = 0;

/**
 * A FIFO and a marker for one run. The marker is printed in two pieces, so
 * its whole text exists only in the program's output (never in an argv a
 * status line or a title could show).
 */
export function gate(dir: string): { fifo: string; marker: string; head: string; tail: string } {
  serial++;
  const fifo = join(dir, `go-${serial}`);
  execFileSync('mkfifo', ['-m', '600', fifo]);
  const head = 'tend-bench-end';
  const tail = `-${process.pid}-${serial}-${Math.random().toString(36).slice(2, 10)}`;
  return { fifo, marker: head + tail, head, tail };
}

/**
 * A shell script that waits for the go, cats `file`, prints the marker on a
 * line of its own, then idles (an exit would end the viewer before it showed
 * the end, and start the server's exit checkpoint inside the timing).
 */
export function gatedCatScript(fifo: string, file: string, head: string, tail: string): string {
  return `read go < '${fifo}'; cat '${file}'; printf '\\r\\n%s%s\\r\\n' '${head}' '${tail}'; exec cat`;
}
