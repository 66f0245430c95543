// Paints a screen's newly scrolled-off lines ahead of the next attach, once
// its output has gone quiet: a first attach's snapshot (the screen and
// VIEWER_SNAPSHOT_SCROLLBACK_ROWS rows of history) then takes nearly every
// line from the painted text the screen keeps (painted-lines.ts) instead of
// painting a thousand rows while the viewer waits (~10-15 ms of this
// thread's time at 80 columns). Only after rows scrolled since the last
// time, and at most once per WARM_IDLE_MS of quiet: a warm with nothing new
// costs ~0.3 ms, each new row ~13 µs; in slices of WARM_SLICE_MS so other
// screens' calls wait little behind it.
import { VIEWER_SNAPSHOT_SCROLLBACK_ROWS, type Screen } from '../screen/index.js';

/** Quiet after the last write before the new rows are painted. */
export const WARM_IDLE_MS = 1_000;
/** Longest a warm holds this thread at a time. */
const WARM_SLICE_MS = 2;

export class PaintedWarmer {
  private readonly timer: NodeJS.Timeout;
  /** The row number of the screen's top row when last warmed (rows scrolled off since then move it). */
  private warmedTop = -1;
  private warming = false;
  private disposed = false;

  constructor(private readonly screen: Screen) {
    this.timer = setTimeout(() => this.warm(), WARM_IDLE_MS);
    this.timer.unref();
  }

  /** Output arrived: the warm waits for WARM_IDLE_MS of quiet from now. */
  wrote(): void {
    if (!this.disposed) this.timer.refresh();
  }

  private warm(): void {
    if (this.disposed || this.warming) return;
    const screen = this.screen;
    if (screen.backlogBytes > 0) {
      this.timer.refresh(); // still parsing a flood: not quiet yet
      return;
    }
    const top = screen.rowBase + screen.terminal.buffer.normal.baseY;
    if (top === this.warmedTop) return;
    this.warming = true;
    screen.snapshotAsync({ scrollbackRows: VIEWER_SNAPSHOT_SCROLLBACK_ROWS, sliceMs: WARM_SLICE_MS }).then(
      () => {
        this.warming = false;
        this.warmedTop = top;
      },
      () => {
        this.warming = false; // disposed meanwhile
      },
    );
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
  }
}
