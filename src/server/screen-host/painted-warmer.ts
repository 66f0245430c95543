// Whether a screen keeps the painted text of its scrolled-off lines
// (painted-lines.ts), and painting its new ones ahead of the next attach.
//
// Only a screen a viewer has attached to (a viewer's snapshot with
// scrollback was asked for) keeps them: ~340 KiB a session at 80 columns, which a session
// nobody attaches to (and the memory figures against tmux) should not pay.
// From then on, once its output has gone quiet, the rows that scrolled off
// since are painted, so a reattach's snapshot (the screen and
// VIEWER_SNAPSHOT_SCROLLBACK_ROWS rows of history) takes nearly every line
// from the kept text instead of painting a thousand rows while the viewer
// waits (~10-15 ms of this thread's time at 80 columns). Only after rows
// scrolled since the last time, and at most once per WARM_IDLE_MS of quiet:
// a warm with nothing new costs ~0.3 ms, each new row ~13 µs; in slices of
// WARM_SLICE_MS so other screens' calls wait little behind it.
import { VIEWER_SNAPSHOT_SCROLLBACK_ROWS, type Screen } from '../screen/index.js';

/** Quiet after the last write before the new rows are painted. */
export const WARM_IDLE_MS = 1_000;
/** Longest a warm holds this thread at a time. */
const WARM_SLICE_MS = 2;

export class PaintedWarmer {
  private timer: NodeJS.Timeout | null = null;
  /** The row number of the screen's top row when last warmed (rows scrolled off since then move it). */
  private warmedTop = -1;
  private warming = false;
  private disposed = false;

  constructor(private readonly screen: Screen) {}

  /** Whether the screen's snapshots keep (and take) painted lines: once a viewer has attached. */
  get keeps(): boolean {
    return this.timer !== null;
  }

  /** A viewer attached: from now on the screen keeps its painted lines, and paints new ones when quiet. */
  attached(): void {
    if (this.disposed || this.timer !== null) return;
    this.timer = setTimeout(() => this.warm(), WARM_IDLE_MS);
    this.timer.unref();
  }

  /** Output arrived: the warm waits for WARM_IDLE_MS of quiet from now. */
  wrote(): void {
    if (!this.disposed) this.timer?.refresh();
  }

  private warm(): void {
    if (this.disposed || this.warming) return;
    const screen = this.screen;
    if (screen.backlogBytes > 0) {
      this.timer?.refresh(); // still parsing a flood: not quiet yet
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
    if (this.timer !== null) clearTimeout(this.timer);
  }
}
