// What the attach suites share: how a `tend` command is started as a user
// starts it (the `tend` on PATH, bin/tend, a link to the native viewer, which runs
// `attach` itself and execs Node for every other verb), the same with the TypeScript
// viewer forced (TEND_VIEWER=node), the ptytool modes that wait for a
// viewer's first paint (`attach`, `echo --await-paint`, `watch`) with the
// environment each side needs, and programs held back by a FIFO so a stream
// starts only once its viewer is attached and painted.
//
// The environment goes to ptytool, which hands it to the program it spawns:
// an `env VAR=… tend` prefix would add a process start to every figure timed
// from the spawn, which a user's own shell does not pay.

import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { runJson } from './child-process.js';
import type { AttachResult, EchoResult } from './ptytool.js';
import type { BenchServer } from './server-instance.js';
import type { BenchContext } from './suite.js';

export interface WatchResult {
  /** bytes the viewer wrote from the release until the marker (its paint before is not counted) */
  bytes: number;
  elapsed_ms: number;
}

/** A program to start on a PTY, and the environment it starts with. */
export interface Launch {
  argv: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Which viewer `tend attach` runs: the native one (bin/tend's default), or
 * the TypeScript one (`TEND_VIEWER=node`, the fallback where the native one
 * cannot be built, and what every attach was before it).
 */
export type ViewerKind = 'native' | 'node';

/** Quiet after the first paint that means the viewer has finished painting. */
export const VIEWER_SETTLE_MS = 300;

/** The launcher on PATH (bin/tend: a link to the native viewer, which is the launcher too). */
export function launcherPath(root: string): string {
  return join(root, 'bin', 'tend');
}

/** The native viewer, which bin/tend links to. */
export function nativeViewerPath(root: string): string {
  return join(root, 'viewer', 'build', 'tend-attach');
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why the native viewer's rows cannot be measured, or undefined when they can. */
export function nativeViewerMissing(root: string): string | undefined {
  if (!executable(launcherPath(root))) return 'bin/tend (the launcher) is missing';
  if (!executable(nativeViewerPath(root))) return 'the native viewer is not built (viewer/build/tend-attach missing; run `make -C viewer`)';
  return undefined;
}

/**
 * The viewers a suite measures: both when the native one is built, else the
 * Node one alone, with why (`missing`) for the suite's notes.
 */
export function viewersToMeasure(root: string): { viewers: ViewerKind[]; missing: string | undefined } {
  const missing = nativeViewerMissing(root);
  return { viewers: missing ? ['node'] : ['native', 'node'], missing };
}

/**
 * The environment of a user's shell with this server's home: node's own
 * directory first on PATH (bin/tend runs `node` from PATH for every verb
 * but attach), and TEND_VIEWER set only when the Node viewer is wanted.
 */
export function tendEnv(ctx: BenchContext, server: BenchServer, viewer: ViewerKind = 'native'): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...ctx.env,
    TEND_HOME: server.home,
    TEND_RUNTIME_DIR: server.runtimeDir,
    PATH: [dirname(process.execPath), ctx.env.PATH ?? ''].join(delimiter),
  };
  if (viewer === 'node') env.TEND_VIEWER = 'node';
  else delete env.TEND_VIEWER;
  return env;
}

/**
 * `tend ARGS` as a user types it, against the bench's private server:
 * bin/tend when it exists (before it did, `node bin/tend.js`, which is also
 * the only way to the Node viewer then).
 */
export function tendLaunch(ctx: BenchContext, server: BenchServer, viewer: ViewerKind, ...args: string[]): Launch {
  const env = tendEnv(ctx, server, viewer);
  if (existsSync(launcherPath(ctx.root))) return { argv: [launcherPath(ctx.root), ...args], env };
  return { argv: [process.execPath, join(ctx.root, 'bin', 'tend.js'), ...args], env };
}

/** `tend attach ID` with the given viewer, against the bench's private server. */
export function tendAttachLaunch(ctx: BenchContext, server: BenchServer, sessionId: string, viewer: ViewerKind = 'native'): Launch {
  return tendLaunch(ctx, server, viewer, 'attach', sessionId);
}

/**
 * The native viewer started directly, with TEND_CLI_JS naming the CLI, so
 * it skips the launcher's work (its path through the link, its tree, TEND_HOME's
 * current build): the launcher's share of a first paint is the difference.
 */
export function nativeViewerDirectLaunch(ctx: BenchContext, server: BenchServer, sessionId: string): Launch {
  const env = tendEnv(ctx, server, 'native');
  env.TEND_CLI_JS = join(ctx.root, 'bin', 'tend.js');
  return { argv: [nativeViewerPath(ctx.root), 'attach', sessionId], env };
}

/** A program with the bench's own helper environment (tmux, node -e). */
export function plainLaunch(ctx: BenchContext, argv: string[]): Launch {
  return { argv, env: ctx.env };
}

/** What the side's label says about the viewer. */
export function viewerLabel(viewer: ViewerKind): string {
  return viewer === 'native' ? 'tend attach' : 'tend attach (Node viewer)';
}

/** First byte and last byte before `quietMs` of quiet, from the spawn (ptytool attach). */
export function attachTimes(ctx: BenchContext, launch: Launch, quietMs: number): Promise<AttachResult> {
  return runJson(ctx.ptytool.path, ['attach', '-q', String(quietMs), '--', ...launch.argv], { env: launch.env });
}

/**
 * Keystroke echo through a viewer that paints first: ptytool waits for the
 * first byte (so the viewer's tty is raw before any key), then for quiet.
 */
export function echoAfterPaint(ctx: BenchContext, launch: Launch, keys: number, gapMs: number, settleMs = VIEWER_SETTLE_MS, perKey = false): Promise<EchoResult> {
  return runJson(ctx.ptytool.path, ['echo', '-n', String(keys), '--gap-ms', String(gapMs),
    '--settle-ms', String(settleMs), '--await-paint', ...(perKey ? ['--per-key'] : []), '--', ...launch.argv], { env: launch.env });
}

/** A viewer painted and quiet, then the program let go through `fifo`, timed until `marker` comes out of the viewer. */
export function watchUntilMarker(ctx: BenchContext, launch: Launch, fifo: string, marker: string): Promise<WatchResult> {
  return runJson(ctx.ptytool.path, ['watch', '--go', fifo, '--until', marker,
    '--settle-ms', String(VIEWER_SETTLE_MS), '--', ...launch.argv], { env: launch.env });
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
