// A real `tend attach` in a PTY of the suite's own (a holder the suite
// started, not the server): the crash loop kills the server while it
// connects, then checks that it paints the session again once a server is back.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { HolderConnection, spawnHolder } from '../../src/holder-client/index.js';
import { repoRoot, waitFor, type FaultServer } from '../lib/fault-server.js';
import { owned, signalQuietly, waitGone } from '../lib/owned-processes.js';

/** Every paint (a screen or a view) starts by resetting the pen and the G0–G3 charsets. */
const PAINT_MARK = '\x1b(B\x1b)B\x1b*B\x1b+B';

export class AttachPty {
  private output = '';
  private constructor(
    private readonly conn: HolderConnection,
    private readonly holderPid: number,
    private readonly childPid: number,
    private readonly dir: string,
  ) {
    const feed = (bytes: Uint8Array): void => {
      // Only the paint marks matter here: keep the tail that may hold half of one.
      this.output = (this.output + Buffer.from(bytes).toString('latin1')).slice(-64 * 1024);
      this.paints += countMarks(Buffer.from(bytes).toString('latin1'), this.markTail);
      this.markTail = (this.markTail + Buffer.from(bytes).toString('latin1')).slice(-(PAINT_MARK.length - 1));
    };
    conn.onReplay((e) => feed(e.bytes));
    conn.onOutput((e) => feed(e.bytes));
  }

  /** Paint marks seen so far. */
  paints = 0;
  private markTail = '';

  static async start(server: FaultServer, target: string, cols: number, rows: number): Promise<AttachPty> {
    const dir = mkdtempSync(join(tmpdir(), 'tf-at-'));
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(server.env)) if (v !== undefined) env[k] = v;
    // `tend attach` as a user types it: bin/tend (the native viewer where it is built), with this node on PATH for it.
    Object.assign(env, { TERM: 'xterm-256color', LANG: 'C.UTF-8', PATH: `${dirname(process.execPath)}${delimiter}${env.PATH ?? '/usr/bin:/bin'}` });
    const started = await spawnHolder({ socketPath: join(dir, 'pty.sock'), cols, rows, cwd: dir, env, argv: [join(repoRoot, 'bin', 'tend'), 'attach', target], exitGraceSeconds: 5 });
    owned.add(started.holderPid);
    owned.add(started.childPid);
    const conn = await HolderConnection.connect(join(dir, 'pty.sock'));
    if ((await conn.acquire()) !== 'acquired') throw new Error('the suite could not take its own PTY for tend attach');
    const attach = new AttachPty(conn, started.holderPid, started.childPid, dir);
    await conn.dumpSince(0);
    return attach;
  }

  /** Resolves once the attach has painted more than `paints` times. */
  async waitPaintedAfter(paints: number, timeoutMs: number): Promise<void> {
    await waitFor(`tend attach to paint the session again (${paints} paints before; output tail ${JSON.stringify(this.output.slice(-200))})`, () => this.paints > paints, timeoutMs);
  }

  async end(): Promise<void> {
    signalQuietly(this.childPid, 'SIGKILL');
    signalQuietly(this.holderPid, 'SIGTERM');
    this.conn.dispose();
    if (!(await waitGone([this.childPid, this.holderPid], 5_000))) signalQuietly(this.holderPid, 'SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Marks in `text`, counting one that straddles `tail` (the end of the previous chunk) and it. */
function countMarks(text: string, tail: string): number {
  const joined = tail + text;
  let n = 0;
  for (let at = joined.indexOf(PAINT_MARK); at !== -1; at = joined.indexOf(PAINT_MARK, at + 1)) n++;
  return n;
}
