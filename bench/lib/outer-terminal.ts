// A viewer on a PTY of its own that stays up for as long as the bench wants,
// so its process can be looked at between the moments that matter (its first
// paint, after a stream). ptytool times a viewer and ends it; here a holder
// is the outer terminal instead (as the attach tests do): it spawns the
// viewer as its PTY's program, reads everything the viewer writes into its
// ring whether or not anyone listens, and this side counts the bytes and
// looks for a marker in them. Ended by PID, the viewer first.

import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Disposable } from '../../src/common/lifecycle.js';
import { HolderConnection, spawnHolder } from '../../src/holder-client/index.js';
import type { Launch } from './attach-viewer.js';
import { holderBinary } from './bench-holder.js';
import { isAlive } from './child-process.js';
import type { BenchContext } from './suite.js';

const POLL_MS = 5;
const FIRST_BYTE_LIMIT_MS = 10_000;
const MARKER_LIMIT_MS = 120_000;
/** The outer terminal keeps the tail of the output for marker search: a marker is far shorter. */
const TAIL_BYTES = 4096;

let serial = 0;

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export class OuterTerminal implements Disposable {
  /** Bytes the viewer has written to its terminal so far. */
  bytes = 0;
  private lastByteAt = 0;
  private tail = '';
  private exited = false;

  private constructor(
    /** The viewer: the holder's program (bin/tend and a tmux client exec in place, so it stays this PID). */
    readonly pid: number,
    private readonly holderPid: number,
    private readonly socket: string,
    private readonly conn: HolderConnection,
  ) {
    const feed = (bytes: Uint8Array): void => {
      this.bytes += bytes.length;
      this.lastByteAt = performance.now();
      this.tail = (this.tail + Buffer.from(bytes).toString('latin1')).slice(-TAIL_BYTES);
    };
    conn.onReplay((e) => feed(e.bytes));
    conn.onOutput((e) => feed(e.bytes));
    conn.onExit(() => (this.exited = true));
  }

  /** `launch` on a fresh cols x rows PTY, with the environment a terminal emulator gives it. */
  static async start(ctx: BenchContext, launch: Launch, cols = 80, rows = 24): Promise<OuterTerminal> {
    const dir = join(ctx.tmpDir, 'outer');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const socket = join(dir, `o${++serial}.sock`);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(launch.env)) if (v !== undefined) env[k] = v;
    env.TERM = 'xterm-256color'; // as ptytool gives every side
    const spawned = await spawnHolder({
      holderPath: holderBinary(ctx.root), socketPath: socket, cols, rows, cwd: ctx.tmpDir, env, argv: launch.argv,
    });
    let conn: HolderConnection;
    try {
      conn = await HolderConnection.connect(socket);
    } catch (err) {
      killQuietly(spawned.childPid);
      killQuietly(spawned.holderPid);
      throw err;
    }
    const outer = ctx.owned.add(new OuterTerminal(spawned.childPid, spawned.holderPid, socket, conn));
    if ((await conn.acquire()) !== 'acquired') throw new Error('the bench could not take its own outer PTY');
    await conn.dumpSince(0);
    return outer;
  }

  /** Until the viewer has written its first byte and then nothing for `quietMs`. */
  async painted(quietMs: number): Promise<void> {
    const deadline = performance.now() + FIRST_BYTE_LIMIT_MS;
    while (this.bytes === 0) {
      if (this.exited) throw new Error(`the viewer exited before it painted: ${JSON.stringify(this.tail.slice(-300))}`);
      if (performance.now() > deadline) throw new Error(`the viewer painted nothing in ${FIRST_BYTE_LIMIT_MS} ms`);
      await sleep(POLL_MS);
    }
    await this.quiet(quietMs);
  }

  /** Until `marker` has come out of the viewer, then `quietMs` of nothing. */
  async shown(marker: string, quietMs: number): Promise<void> {
    const deadline = performance.now() + MARKER_LIMIT_MS;
    while (!this.tail.includes(marker)) {
      if (this.exited) throw new Error('the viewer exited before it showed the marker');
      if (performance.now() > deadline) throw new Error(`the viewer did not show the marker in ${MARKER_LIMIT_MS / 1000} s`);
      await sleep(POLL_MS);
    }
    await this.quiet(quietMs);
  }

  private async quiet(quietMs: number): Promise<void> {
    while (performance.now() - this.lastByteAt < quietMs) await sleep(POLL_MS);
  }

  dispose(): void {
    this.conn.dispose();
    killQuietly(this.pid);
    killQuietly(this.holderPid);
    rmSync(this.socket, { force: true });
  }
}

function killQuietly(pid: number): void {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone between the check and the kill
  }
}
