// How many rows a pane's terminal has dropped from the top of its normal
// buffer (its scrollback limit) since its last snapshot: the pane's top row
// is then the snapshot's top row plus that many, which is where a history
// read must start for the rows above the pane to join the pane's own
// (history-loader.ts). xterm says nothing when it trims, but it moves every
// marker up by the rows trimmed: an anchor marker near the bottom, moved back
// down before it can reach the top, measures every trim on its way up.
import type { IDisposable, IMarker, Terminal } from '@xterm/xterm';

/**
 * An anchor this close to the top is moved to the bottom: a trim of more
 * rows at once (clearing the scrollback, a resize that reflows) removes it,
 * and the count is then unknown.
 */
const REANCHOR_WITHIN_ROWS = 1000;

export class TrimCounter implements IDisposable {
  private anchor: IMarker | null = null;
  /** Rows trimmed before the anchor was placed. */
  private base = 0;
  /** The anchor's line when it was placed. */
  private placedAt = 0;
  /** Known until an anchor was lost. */
  private known = false;
  /** The count restarted while the alternate screen was shown: the anchor waits for the normal one. */
  private waitingForNormal = false;
  private readonly subscriptions: IDisposable[];

  constructor(private readonly terminal: Terminal) {
    this.subscriptions = [
      terminal.onLineFeed(() => this.check()),
      terminal.buffer.onBufferChange(() => {
        if (this.waitingForNormal && terminal.buffer.active.type === 'normal') this.place(0);
      }),
    ];
  }

  /** Rows trimmed since restart(), or null when that is not known (no snapshot yet, or a trim too large to follow). */
  get trimmed(): number | null {
    if (!this.known) return null;
    if (this.anchor === null) return this.base;
    return this.anchor.isDisposed ? null : this.base + (this.placedAt - this.anchor.line);
  }

  /** Counts from 0: the terminal now holds a fresh snapshot (call once its paint is parsed). */
  restart(): void {
    this.drop();
    this.known = true;
    this.base = 0;
    if (this.terminal.buffer.active.type === 'normal') this.place(0);
    else this.waitingForNormal = true;
  }

  dispose(): void {
    this.drop();
    for (const s of this.subscriptions) s.dispose();
  }

  private check(): void {
    const anchor = this.anchor;
    if (anchor === null || this.terminal.buffer.active.type !== 'normal') return;
    if (anchor.isDisposed) {
      this.known = false;
      this.drop();
      return;
    }
    if (anchor.line < REANCHOR_WITHIN_ROWS) this.place(this.base + (this.placedAt - anchor.line));
  }

  /** A new anchor on the cursor's line, `base` rows trimmed so far. */
  private place(base: number): void {
    this.drop();
    this.waitingForNormal = false;
    const marker = this.terminal.registerMarker(0);
    if (!marker || marker.isDisposed) {
      this.known = false;
      return;
    }
    this.anchor = marker;
    this.base = base;
    this.placedAt = marker.line;
  }

  private drop(): void {
    this.anchor?.dispose();
    this.anchor = null;
  }
}
