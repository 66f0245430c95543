// Which size the PTY takes when several viewers of different sizes share it,
// by tmux's names for its window-size option:
//
//   latest   the size of the writable viewer that most recently typed or
//            resized its own terminal (the default, as in tmux 3.1+)
//   smallest the smallest width and the smallest height over the writable viewers
//   largest  the largest width and the largest height over them
//   manual   viewers never change the size (only `tend resize` / the API does)
//
// Opening a viewer is not activity: it takes the size only when it is a
// terminal (`tend attach`) and no other writable viewer is attached, so a lone
// attach still fits the session to its terminal, and a second viewer, or a
// browser page, never changes what the others see just by looking. A viewer
// whose terminal differs from the PTY is shown a cropped or padded view
// (session-viewers.ts), never rows wider than itself. Read-only viewers never
// change the size. With no writable viewer left the PTY keeps its size.

export interface TerminalSize {
  cols: number;
  rows: number;
}

export type WindowSizePolicy = 'latest' | 'smallest' | 'largest' | 'manual';
export const WINDOW_SIZE_POLICIES: readonly WindowSizePolicy[] = ['latest', 'smallest', 'largest', 'manual'];
export const DEFAULT_WINDOW_SIZE_POLICY: WindowSizePolicy = 'latest';

/** The policy a setting names (TEND_WINDOW_SIZE), or an error a person can act on. */
export function parseWindowSizePolicy(value: string | undefined): WindowSizePolicy {
  if (value === undefined || value === '') return DEFAULT_WINDOW_SIZE_POLICY;
  const policy = WINDOW_SIZE_POLICIES.find((p) => p === value.trim().toLowerCase());
  if (policy === undefined) throw new Error(`TEND_WINDOW_SIZE must be one of ${WINDOW_SIZE_POLICIES.join(', ')} (as tmux's window-size), not ${JSON.stringify(value)}`);
  return policy;
}

export interface ViewerJoin extends TerminalSize {
  readOnly: boolean;
  /**
   * Whether opening may take the size (when no other writable viewer is
   * attached) and a resize of the viewer's own terminal counts as activity:
   * true for terminals, whose size the person chose; false for browser
   * panes, whose size follows the page's layout.
   */
  terminal: boolean;
  /**
   * The viewer is coming back (a reconnect after a server restart or crash):
   * it takes the size no more than any second viewer, so whichever viewer
   * happens to reconnect first does not resize the session under the others.
   */
  rejoin?: boolean;
}

interface ViewerState extends ViewerJoin {
  /** Order of the viewer's last input or claiming resize; 0: none yet. */
  activity: number;
  /** Order of joining, for the fallback when nobody has been active. */
  joined: number;
}

export class SizePolicy<ViewerKey> {
  private readonly viewers = new Map<ViewerKey, ViewerState>();
  private clock = 0;

  constructor(readonly policy: WindowSizePolicy = DEFAULT_WINDOW_SIZE_POLICY) {}

  /**
   * A viewer opens. One that `succeeds` another still attached is the same
   * viewer subscribing again to be repainted (`tend attach` after drawing
   * over its screen): it keeps that one's place, so a repaint neither takes
   * the size nor gives it up to whoever joined last.
   */
  join(viewer: ViewerKey, join: ViewerJoin, succeeds?: ViewerKey): void {
    const previous = succeeds === undefined ? undefined : this.viewers.get(succeeds);
    if (previous !== undefined) {
      this.viewers.set(viewer, { ...join, activity: previous.activity, joined: previous.joined });
      return;
    }
    const alone = !join.readOnly && join.terminal && join.rejoin !== true && !this.hasWritable();
    const tick = ++this.clock;
    this.viewers.set(viewer, { ...join, activity: alone ? tick : 0, joined: tick });
  }

  /** The viewer typed: under "latest" its size applies. */
  input(viewer: ViewerKey): void {
    const v = this.viewers.get(viewer);
    if (!v || v.readOnly) return;
    v.activity = ++this.clock;
  }

  /** The viewer's own terminal (or pane) changed size. */
  resize(viewer: ViewerKey, size: TerminalSize): void {
    const v = this.viewers.get(viewer);
    if (!v) return;
    v.cols = size.cols;
    v.rows = size.rows;
    if (!v.readOnly && v.terminal) v.activity = ++this.clock;
  }

  leave(viewer: ViewerKey): void {
    this.viewers.delete(viewer);
  }

  /** The size a viewer last said its terminal is (null: not attached). */
  viewerSize(viewer: ViewerKey): TerminalSize | null {
    const v = this.viewers.get(viewer);
    return v ? { cols: v.cols, rows: v.rows } : null;
  }

  /** The size the PTY should have now, or null: keep the size it has. */
  desired(): TerminalSize | null {
    switch (this.policy) {
      case 'manual':
        return null;
      case 'latest': {
        const v = this.latest();
        return v ? { cols: v.cols, rows: v.rows } : null;
      }
      case 'smallest':
      case 'largest':
        return this.extreme(this.policy === 'smallest' ? Math.min : Math.max);
    }
  }

  private hasWritable(): boolean {
    for (const v of this.viewers.values()) if (!v.readOnly) return true;
    return false;
  }

  /**
   * The most recently active writable viewer; when none has been active
   * (the one that was left), the terminal that joined last, as if it had
   * just opened alone. A browser that never typed never takes the size.
   */
  private latest(): ViewerState | null {
    let best: ViewerState | null = null;
    for (const v of this.viewers.values()) {
      if (!v.readOnly && v.activity > 0 && (best === null || v.activity > best.activity)) best = v;
    }
    if (best !== null) return best;
    for (const v of this.viewers.values()) {
      if (!v.readOnly && v.terminal && (best === null || v.joined > best.joined)) best = v;
    }
    return best;
  }

  private extreme(pick: (a: number, b: number) => number): TerminalSize | null {
    let size: TerminalSize | null = null;
    for (const v of this.viewers.values()) {
      if (v.readOnly) continue;
      size = size === null ? { cols: v.cols, rows: v.rows } : { cols: pick(size.cols, v.cols), rows: pick(size.rows, v.rows) };
    }
    return size;
  }
}
