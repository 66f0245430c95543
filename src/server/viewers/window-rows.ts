// Which history rows an outer terminal window already holds, so that a
// `tend attach` into the same window again is sent only the rows after them.
//
// A viewer streamed a session's output has written every row that scrolled
// off the session's screen into its own terminal's scrollback. The server
// cannot count rows in the bytes it relays, but its screen can: RowMarks
// keeps the screen's top row at recent seqs (the screen host reports it with
// every batch of parsed writes), so the rows a viewer holds follow from the
// last seq it acked. WindowRows remembers that per window key (SUBSCRIBE's
// `window`), when the viewer's channel closes.
//
//   marks.note(parsedSeq, topRow)          // after each batch the screen parsed
//   marks.topRowAt(ackedSeq)               // rows above it: in the viewer's scrollback
//   windows.remember(window, row)          // on the channel's close
//   windows.heldRow(window)                // on the next SUBSCRIBE from that window

import { MAX_WINDOW_KEY_BYTES } from '../../protocol/viewer-frames.js';

/** Marks kept: the last 64 batches the screen parsed (a flood's are up to 64 KiB: ~4 MiB back; typing's, a few keys each). */
const MARKS = 64;

/** Windows remembered per session: the oldest forgotten first (its next attach gets the whole history again). */
const WINDOWS = 32;

export class RowMarks {
  private readonly seqs = new Float64Array(MARKS);
  private readonly tops = new Float64Array(MARKS);
  /** Marks written so far; the newest is at (count − 1) % MARKS. */
  private count = 0;

  /** At `seq` (bytes parsed up to there), the screen's top row was `topRow`. Seqs only grow between clear()s. */
  note(seq: number, topRow: number): void {
    if (this.count > 0 && this.seqs[(this.count - 1) % MARKS] === seq) {
      this.tops[(this.count - 1) % MARKS] = topRow;
      return;
    }
    this.seqs[this.count % MARKS] = seq;
    this.tops[this.count % MARKS] = topRow;
    this.count++;
  }

  /** The stream jumped or was renumbered: no mark is of it. */
  clear(): void {
    this.count = 0;
  }

  /**
   * The screen's top row at the newest mark at or before `seq`: every row
   * above it had scrolled off by then, so a viewer that parsed up to `seq`
   * holds them (at least them). Undefined if `seq` is older than every mark.
   */
  topRowAt(seq: number): number | undefined {
    const oldest = Math.max(0, this.count - MARKS);
    for (let i = this.count - 1; i >= oldest; i--) {
      if (this.seqs[i % MARKS]! <= seq) return this.tops[i % MARKS];
    }
    return undefined;
  }
}

export class WindowRows {
  /** Window key → the last history row that window holds; insertion order is recency. */
  private readonly rows = new Map<string, number>();

  /** What a checkpoint keeps: [window, row] pairs, the least recent first. */
  entries(): Array<[string, number]> {
    return [...this.rows];
  }

  /** A checkpoint's entries(), checked: anything but [key of 1..64 bytes, row ≥ −1] pairs is skipped. */
  restore(saved: unknown): void {
    this.rows.clear();
    if (!Array.isArray(saved)) return;
    for (const entry of saved.slice(-WINDOWS)) {
      if (!Array.isArray(entry) || entry.length !== 2) continue;
      const [window, row] = entry as unknown[];
      if (typeof window !== 'string' || !Number.isSafeInteger(row) || (row as number) < -1) continue;
      const bytes = Buffer.byteLength(window);
      if (bytes > 0 && bytes <= MAX_WINDOW_KEY_BYTES) this.rows.set(window, row as number);
    }
  }

  clear(): void {
    this.rows.clear();
  }

  heldRow(window: string): number | undefined {
    return this.rows.get(window);
  }

  remember(window: string, row: number): void {
    this.rows.delete(window);
    this.rows.set(window, row);
    if (this.rows.size > WINDOWS) this.rows.delete(this.rows.keys().next().value!);
  }
}
