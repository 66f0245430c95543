// Which size the PTY takes when several viewers of different sizes share it:
// the size of the viewer that most recently typed or resized (tmux's "latest").
// Subscribing counts as a resize: a viewer that just attached is the one the
// person is looking at. Read-only viewers never change the size; when the
// latest viewer leaves, the next most recently active one's size applies.

export interface TerminalSize {
  cols: number;
  rows: number;
}

export interface SizePolicyOptions {
  /** Called when the size the PTY should take changes (never twice with the same size). */
  apply(size: TerminalSize): void;
}

interface ViewerSize extends TerminalSize {
  readOnly: boolean;
  /** Order of the viewer's last input or resize; higher is more recent. */
  activity: number;
}

export class SizePolicy<ViewerKey> {
  private readonly viewers = new Map<ViewerKey, ViewerSize>();
  private clock = 0;
  private applied: TerminalSize | null = null;

  constructor(private readonly options: SizePolicyOptions) {}

  /** The size last applied, or null before any writable viewer came. */
  get current(): TerminalSize | null {
    return this.applied;
  }

  join(viewer: ViewerKey, size: TerminalSize & { readOnly: boolean }): void {
    this.viewers.set(viewer, { cols: size.cols, rows: size.rows, readOnly: size.readOnly, activity: ++this.clock });
    this.update();
  }

  /** The viewer typed: it becomes the latest, and its size applies. */
  input(viewer: ViewerKey): void {
    const v = this.viewers.get(viewer);
    if (!v || v.readOnly) return;
    v.activity = ++this.clock;
    this.update();
  }

  /** The viewer's own terminal changed size. */
  resize(viewer: ViewerKey, size: TerminalSize): void {
    const v = this.viewers.get(viewer);
    if (!v) return;
    v.cols = size.cols;
    v.rows = size.rows;
    if (v.readOnly) return;
    v.activity = ++this.clock;
    this.update();
  }

  leave(viewer: ViewerKey): void {
    if (this.viewers.delete(viewer)) this.update();
  }

  private latest(): ViewerSize | null {
    let best: ViewerSize | null = null;
    for (const v of this.viewers.values()) {
      if (!v.readOnly && (best === null || v.activity > best.activity)) best = v;
    }
    return best;
  }

  private update(): void {
    const v = this.latest();
    // No writable viewer left: the PTY keeps the size it has.
    if (v === null) return;
    if (this.applied && this.applied.cols === v.cols && this.applied.rows === v.rows) return;
    this.applied = { cols: v.cols, rows: v.rows };
    this.options.apply({ cols: v.cols, rows: v.rows });
  }
}
