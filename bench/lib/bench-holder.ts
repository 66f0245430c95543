// Holders for the holder suites: started through the project's own client
// (spawnHolder), each owned by the run and ended by its PID.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Disposable } from '../../src/common/lifecycle.js';
import { HolderConnection, spawnHolder } from '../../src/holder-client/index.js';
import { isAlive } from './child-process.js';
import type { BenchContext } from './suite.js';

/** The holder's default ring, passed explicitly so the figures say what they measured. */
export const BENCH_RING_BYTES = 4 * 1024 * 1024;
const OFFSET_POLL_MS = 20;
const OFFSET_WAIT_LIMIT_MS = 120_000;

let serial = 0;

export function holderBinary(root: string): string {
  return join(root, 'holder', 'build', 'tend-holder');
}

/** Why the holder suites cannot run, or undefined when they can. */
export function holderMissing(root: string): string | undefined {
  const bin = holderBinary(root);
  return existsSync(bin) ? undefined : `holder not built (${bin.slice(root.length + 1)} missing; run \`make -C holder\`)`;
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

export class BenchHolder implements Disposable {
  private constructor(
    readonly socket: string,
    readonly holderPid: number,
    readonly childPid: number,
  ) {}

  static async start(ctx: BenchContext, argv: string[], ringBytes = BENCH_RING_BYTES): Promise<BenchHolder> {
    const dir = join(ctx.tmpDir, 'holders');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const socket = join(dir, `h${++serial}.sock`);
    const spawned = await spawnHolder({
      holderPath: holderBinary(ctx.root), socketPath: socket, cols: 80, rows: 24,
      cwd: ctx.tmpDir, env: stringEnv(ctx.env), argv, ringBytes,
    });
    return ctx.owned.add(new BenchHolder(socket, spawned.holderPid, spawned.childPid));
  }

  /** Waits until the holder has read at least `bytes` from its PTY (a STATE poll, not a timed figure). */
  async waitForOffset(bytes: number): Promise<number> {
    const conn = await HolderConnection.connect(this.socket);
    try {
      const deadline = performance.now() + OFFSET_WAIT_LIMIT_MS;
      for (;;) {
        const st = await conn.state();
        if (st.offset >= bytes) return st.offset;
        if (performance.now() > deadline) throw new Error(`holder read only ${st.offset} of ${bytes} bytes`);
        await new Promise((r) => setTimeout(r, OFFSET_POLL_MS));
      }
    } finally {
      conn.dispose();
    }
  }

  dispose(): void {
    for (const pid of [this.childPid, this.holderPid]) {
      if (isAlive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone between the check and the kill
        }
      }
    }
    rmSync(this.socket, { force: true });
  }
}

/** A FIFO the holder's child blocks on, so its clock starts when the bench says. */
export function makeGoFifo(ctx: BenchContext): string {
  const path = join(ctx.tmpDir, `go${++serial}.fifo`);
  execFileSync('mkfifo', ['-m', '0600', path]);
  return path;
}

/** argv for a child that waits for one line on the FIFO, then becomes `cat FILE`. */
export function gatedCat(fifo: string, file: string): string[] {
  return ['sh', '-c', 'read go < "$0"; exec cat "$1"', fifo, file];
}
