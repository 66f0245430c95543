// The reference a recovered screen is held against: a headless xterm per
// session fed exactly the bytes its program wrote (the program's own copy in
// a file), up to the offset the server says its screen covers. Fed
// incrementally — the crash loop compares after every restart, and feeding a
// long stream from its start each time would cost more than the kills.

import { closeSync, openSync, readSync } from 'node:fs';
import xtermHeadless from '@xterm/headless';
import type { ScreenSnapshot } from '../../src/server/screen/index.js';
import { diffTerminals, unrestorableState } from '../../test/support/terminal-diff.js';
import { terminalFromSnapshot } from '../../test/support/terminal-from-snapshot.js';
import type { FaultServer } from '../lib/fault-server.js';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

const READ_CHUNK_BYTES = 1024 * 1024;

export interface Comparison {
  /** False when the reference's own scrollback had filled: no comparison was made. */
  compared: boolean;
  diffs: string[];
  /** Differences of the kinds screen.ts documents as known limits of any snapshot, counted apart. */
  knownLimits: string[];
  offset: number;
  degraded: boolean;
}

/**
 * Rows of scrollback the comparison leaves out at the top: the snapshot asks
 * for fewer rows than the server and the reference keep, so the rows compared
 * lie well inside what both hold, away from where each trims its oldest rows.
 */
export const EDGE_ROWS = 100;

/**
 * The reference's own scrollback: far more than the run writes. An xterm.js
 * buffer that is full scrolls regions differently from one that is not (seen:
 * the same bytes give other screen rows once 500 rows of scrollback are
 * full), and the server's screen behaves like one that is not; a reference
 * that filled up would report differences of its own. At ~1.2 KB a row of
 * 100 columns this is ~240 MB at most per session, reached only by runs far
 * longer than the full one's streams; a reference that does fill stops
 * comparing and is counted.
 */
export const REFERENCE_SCROLLBACK_ROWS = 200_000;

/**
 * What is not a mismatch: the shorter scrollback the snapshot was asked for,
 * and the three known limits of any snapshot (src/server/screen/screen.ts) a
 * long stream meets — the top row of a cut scrollback comes back unwrapped
 * (no row above it to wrap from, so the rest of that logical line may be laid
 * out anew: a wide character the margin had pushed down sits elsewhere), a
 * styled blank in the last column comes back as a space, and a pen no
 * snapshot can order, only where unrestorableState says so of the reference
 * (`CSI 4 m`, DECSC, `CSI 0 m`, `CSI ? 1049 l`, `CSI ? 1049 h` leaves the
 * alternate screen's pen with the underline flag on over an empty style
 * record: only a DECRC from a saved cursor whose flag is on makes that, and
 * the alternate screen's saved cursor has it off).
 */
export function knownLimitTest(reference: HeadlessTerminal, restored: HeadlessTerminal): (diff: string) => boolean {
  const ref = reference.buffer.normal;
  const res = restored.buffer.normal;
  const compared = Math.min(ref.length, res.length);
  // The cut logical line: the window's top row and the rows that continue it
  // (wrapped in either terminal); its rows may be laid out anew.
  const cutRows = new Set<number>();
  for (let k = 0; k < compared; k++) {
    const continues = ref.getLine(ref.length - compared + k)?.isWrapped || res.getLine(res.length - compared + k)?.isWrapped;
    if (k > 0 && !continues) break;
    cutRows.add(ref.length - compared + k - ref.baseY);
  }
  const lastCol = reference.cols - 1;
  const lastColumnBlank = new RegExp(`^(normal|alternate) line -?\\d+ \\((screen|scrollback)\\) col ${lastCol} chars: "" != " "$`);
  // Asked only once a pen differs: the question reads every cell of the reference's scrollback.
  let penUnrestorable: boolean | undefined;
  return (diff) => {
    if (diff.startsWith('pen: ')) {
      penUnrestorable ??= unrestorableState(reference)?.startsWith('pen ') === true;
      return penUnrestorable;
    }
    if (diff.startsWith('normal buffer length') && res.length < ref.length) return true;
    const row = /^normal line (-?\d+) \(scrollback\)/.exec(diff);
    if (row && cutRows.has(Number(row[1]))) return true;
    return lastColumnBlank.test(diff);
  };
}

export class ReferenceScreen {
  private terminal: HeadlessTerminal | null = null;
  private fed = 0;

  constructor(
    readonly sessionId: string,
    private readonly file: string,
    private readonly scrollbackRows: number,
  ) {}

  private async feedTo(offset: number, cols: number, rows: number): Promise<void> {
    if (this.terminal === null || offset < this.fed || this.terminal.cols !== cols || this.terminal.rows !== rows) {
      // A screen that went back in the stream (it must not) or changed size: start over from byte 0.
      this.terminal?.dispose();
      this.terminal = new Terminal({ cols, rows, scrollback: REFERENCE_SCROLLBACK_ROWS, allowProposedApi: true });
      this.fed = 0;
    }
    const fd = openSync(this.file, 'r');
    try {
      while (this.fed < offset) {
        const buffer = Buffer.alloc(Math.min(READ_CHUNK_BYTES, offset - this.fed));
        const n = readSync(fd, buffer, 0, buffer.length, this.fed);
        if (n === 0) throw new Error(`the program's copy ${this.file} ends at ${this.fed} bytes, before the server's offset ${offset}`);
        await new Promise<void>((resolve) => this.terminal!.write(buffer.subarray(0, n), resolve));
        this.fed += n;
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The server's screen (with scrollback) against the reference at the same offset; diffs [] when equal. */
  async compare(server: FaultServer): Promise<Comparison> {
    const snap = await server.api<ScreenSnapshot & { offset: number; degraded: boolean }>(
      'GET',
      `/v1/sessions/${this.sessionId}/screen?format=snapshot&scrollback=${this.scrollbackRows - EDGE_ROWS}`,
    );
    await this.feedTo(snap.offset, snap.cols, snap.rows);
    if (this.terminal!.buffer.normal.length >= REFERENCE_SCROLLBACK_ROWS + snap.rows) return { compared: false, diffs: [], knownLimits: [], offset: snap.offset, degraded: snap.degraded };
    const restored = await terminalFromSnapshot(snap);
    try {
      // Every difference: a limit would stop at the top rows' known limits and hide rows below them.
      const all = diffTerminals(this.terminal!, restored, { limit: Number.MAX_SAFE_INTEGER });
      const known = knownLimitTest(this.terminal!, restored);
      return { compared: true, diffs: all.filter((d) => !known(d)), knownLimits: all.filter(known), offset: snap.offset, degraded: snap.degraded };
    } finally {
      restored.dispose();
    }
  }

  dispose(): void {
    this.terminal?.dispose();
    this.terminal = null;
  }
}
