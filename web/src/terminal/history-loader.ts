// A pane's history beyond what its xterm holds, read from the server page by
// page over the pane's own channel: the first SCROLLBACK_REQUEST asks for the
// rows above the last snapshot the channel got (beforeRow 0), each next one
// for the rows above the oldest row received. The pages are kept oldest
// first for a HistoryPanel to show; nothing here touches the pane's terminal.
//
// Row numbers mean something only under the server boot they were read in:
// after a restart the pages are dropped and reading starts over.
import type { HistoryListener, LinkStatus, ScrollbackFrame, TerminalLink } from './terminal-link.js';
import { MAX_SCROLLBACK_REQUEST_ROWS } from '../../../src/protocol/viewer-frames.js';
import { JOIN_CHECK_ROWS, joinPage, type PaneRows } from './history-join.js';
import { Emitter } from '../../../src/common/event.js';

/** Rows asked for per request: a screenful many times over, a small frame. */
export const HISTORY_PAGE_ROWS = Math.min(2000, MAX_SCROLLBACK_REQUEST_ROWS);
/** How long an answer may take before the view says so and offers a retry. */
const ANSWER_TIMEOUT_MS = 60_000;

export interface HistoryPage {
  /** Row number of the page's first (oldest) row. */
  firstRow: number;
  rows: number;
  /** The rows as text with SGR colours, CR LF between them. */
  text: string;
}

export interface HistoryProblem {
  message: string;
  /** A retry can help now (or once the connection is back). */
  canRetry: boolean;
}

export interface HistoryState {
  /** Oldest first. */
  readonly pages: readonly HistoryPage[];
  /** Rows in all pages. */
  readonly rows: number;
  /** No older row is held by the server: the first page starts the history as far as it goes. */
  readonly oldest: boolean;
  /** With `oldest`: rows older than that the server's memory budget dropped. */
  readonly dropped: number;
  /** A request is on its way. */
  readonly loading: boolean;
  /** A retry was asked for while the pane was not live: it goes out once it is. */
  readonly waiting: boolean;
  readonly problem: HistoryProblem | null;
  /** The pane's link status (requests go out only while it is 'live'). */
  readonly connection: LinkStatus;
  /** Bumped whenever the pages change. */
  readonly version: number;
}

/** How often a join is tried again while the pane drops rows faster than the answer comes. */
const JOIN_ATTEMPTS = 3;

interface Pending {
  /** page: the next older page; probe: one row, to learn the snapshot's top row; join: the first page, joined to a pane that dropped rows (history-join.ts). */
  kind: 'page' | 'probe' | 'join';
  beforeRow: number;
  timer: ReturnType<typeof setTimeout>;
}

export class HistoryLoader {
  private pages: HistoryPage[] = [];
  private oldest = false;
  private dropped = 0;
  private pending: Pending | null = null;
  private waiting = false;
  private problem: HistoryProblem | null = null;
  private version = 0;
  /** The server boot the pages' row numbers belong to. */
  private boot: string | null = null;
  private connection: LinkStatus;
  private readonly changes = new Emitter<void>();
  private readonly unlisten: () => void;
  private disposed = false;
  private _state: HistoryState;
  /** The row number of the top row of the pane's snapshot, learnt from an answer, and the snapshot it belongs to. */
  private snapshotTop: { snapshots: number; row: number } | null = null;
  /** The row the pages end at when they were joined to the pane's top (null: they end at the snapshot's top). */
  private joinedAt: number | null = null;
  /** A join found rows that differ: the pages end at the snapshot's top, as without one. */
  private unjoinable = false;
  private joinAttempts = 0;

  /** pane: the pane's rows, to join the history to a pane that dropped rows since its snapshot; without it, no join. */
  constructor(
    private readonly link: TerminalLink,
    private readonly pane: PaneRows | null = null,
  ) {
    this.connection = link.status;
    const listener: HistoryListener = {
      scrollback: (frame) => this.answer(frame),
      historyError: (code, message) => this.refused(code, message),
      status: (status) => this.statusChanged(status),
    };
    this.unlisten = link.listenHistory(listener);
    this._state = this.makeState();
  }

  /** The current state; a new object after every change (for useSyncExternalStore). */
  get state(): HistoryState {
    return this._state;
  }

  subscribe = (listener: () => void): (() => void) => {
    const subscription = this.changes.on(listener);
    return () => subscription.dispose();
  };

  /**
   * True when the rows read do not reach down to the pane's own top: rows
   * in between are in neither (the pane dropped them since its snapshot, or
   * since the join, and they could not be joined).
   */
  gapNow(): boolean {
    if (this.joinedAt === null) return this.link.trimmedSinceSnapshot;
    const trimmed = this.pane?.trimmedRows() ?? null;
    const top = this.knownSnapshotTop();
    return trimmed === null || top === null || top + trimmed !== this.joinedAt;
  }

  /** Reads the next older page (the first one: the rows above the pane's top, or above its snapshot). */
  loadOlder(): void {
    if (this.disposed || this.pending !== null || this.oldest) return;
    this.problem = null;
    this.send();
  }

  /** After a problem: asks again (from the start if the server restarted meanwhile). */
  retry(): void {
    if (this.disposed || this.pending !== null) return;
    this.problem = null;
    if (this.bootChanged()) this.startOver();
    if (this.oldest) {
      this.emit();
      return;
    }
    this.send();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clearPending();
    this.unlisten();
    this.changes.dispose();
  }

  private send(): void {
    if (this.bootChanged()) this.startOver();
    const boot = this.link.serverBoot;
    const first = this.pages[0];
    const request = first === undefined && this.joinedAt === null ? this.firstRequest() : { kind: 'page' as const, beforeRow: first?.firstRow ?? this.joinedAt ?? 0, count: HISTORY_PAGE_ROWS };
    const beforeRow = request.beforeRow;
    if ((first !== undefined || this.joinedAt !== null) && beforeRow === 0) {
      // Row 0 is the first row there ever was: nothing is older.
      this.oldest = true;
      this.version++;
      this.emit();
      return;
    }
    if (!this.link.requestScrollback(beforeRow, request.count)) {
      if (this.connection === 'exited' || this.connection === 'gone') {
        this.problem = closedProblem(this.connection);
      } else {
        // Not live yet (connecting, reconnecting): goes out once it is.
        this.waiting = true;
      }
      this.emit();
      return;
    }
    this.waiting = false;
    this.boot = boot;
    this.pending = { kind: request.kind, beforeRow, timer: setTimeout(() => this.timedOut(), ANSWER_TIMEOUT_MS) };
    this.emit();
  }

  /**
   * The first request: the rows above the snapshot (beforeRow 0), unless the
   * pane has dropped rows since it; then the rows above the pane's top and a
   * few of the pane's own, to check the join (once the snapshot's top row
   * number is known: a one-row probe learns it).
   */
  private firstRequest(): { kind: Pending['kind']; beforeRow: number; count: number } {
    const trimmed = this.unjoinable ? null : (this.pane?.trimmedRows() ?? null);
    if (trimmed === null || trimmed === 0) return { kind: 'page', beforeRow: 0, count: HISTORY_PAGE_ROWS };
    const top = this.knownSnapshotTop();
    if (top === null) return { kind: 'probe', beforeRow: 0, count: 1 };
    return { kind: 'join', beforeRow: top + trimmed + JOIN_CHECK_ROWS, count: HISTORY_PAGE_ROWS + JOIN_CHECK_ROWS };
  }

  private knownSnapshotTop(): number | null {
    const t = this.snapshotTop;
    return t !== null && this.pane !== null && t.snapshots === this.pane.snapshots() ? t.row : null;
  }

  /** The answer to a probe or a join: true when it was one (and is dealt with). */
  private joinAnswer(kind: Pending['kind'], frame: ScrollbackFrame): boolean {
    if (kind === 'probe') {
      // Rows older than the snapshot's top end at it, even when there are none.
      this.snapshotTop = { snapshots: this.pane!.snapshots(), row: frame.firstRow + frame.rows };
      this.send();
      return true;
    }
    if (kind !== 'join') return false;
    const top = this.knownSnapshotTop();
    const trimmed = this.pane!.trimmedRows();
    const result = top === null || trimmed === null ? ({ kind: 'differs' } as const) : joinPage(frame, top + trimmed, this.pane!);
    if (result.kind === 'joined') {
      this.joinedAt = top! + trimmed!;
      if (result.page) this.pages.unshift(result.page);
      if (result.oldest) {
        this.oldest = true;
        this.dropped = result.dropped;
      }
      this.version++;
      this.emit();
      return true;
    }
    if (result.kind === 'differs' || ++this.joinAttempts >= JOIN_ATTEMPTS) this.unjoinable = true;
    this.send();
    return true;
  }

  private answer(frame: ScrollbackFrame): void {
    const pending = this.pending;
    // An answer nobody waits for: a request given up on (a timeout), or one of another view.
    if (pending === null) return;
    if (pending.beforeRow !== 0 && frame.rows > 0 && frame.firstRow + frame.rows !== pending.beforeRow) return;
    this.clearPending();
    if (this.joinAnswer(pending.kind, frame)) return;
    if (frame.rows > 0) {
      this.pages.unshift({ firstRow: frame.firstRow, rows: frame.rows, text: frame.text });
    }
    if (frame.oldest) {
      this.oldest = true;
      this.dropped = frame.dropped;
    } else if (frame.rows === 0) {
      this.problem = { message: 'the server sent no rows and did not say the history ends there', canRetry: true };
    }
    this.version++;
    this.emit();
  }

  private refused(code: number, message: string): void {
    if (this.pending === null) return;
    this.clearPending();
    this.problem = { message: `the server could not send the rows: ${message} (error ${code})`, canRetry: true };
    this.emit();
  }

  private timedOut(): void {
    if (this.pending === null) return;
    this.pending = null;
    this.problem = { message: `no answer from the server in ${ANSWER_TIMEOUT_MS / 1000} s`, canRetry: true };
    this.emit();
  }

  private statusChanged(status: LinkStatus): void {
    this.connection = status;
    if (status === 'live') {
      if (this.waiting) {
        this.waiting = false;
        this.send();
        return;
      }
      if (this.bootChanged() && this.pages.length > 0) {
        this.problem = { message: 'the server restarted: these rows were read before, and may have changed — retry reads them again', canRetry: true };
      }
    } else if (this.pending !== null) {
      this.clearPending();
      this.problem =
        status === 'exited' || status === 'gone'
          ? closedProblem(status)
          : { message: 'the connection to the server was lost before the rows came', canRetry: true };
    } else if ((status === 'exited' || status === 'gone') && this.waiting) {
      this.waiting = false;
      this.problem = closedProblem(status);
    }
    this.emit();
  }

  /** The pages were read under another server boot than the one the link speaks to now. */
  private bootChanged(): boolean {
    const boot = this.link.serverBoot;
    return this.boot !== null && boot !== null && boot !== this.boot;
  }

  private startOver(): void {
    this.pages = [];
    this.snapshotTop = null;
    this.joinedAt = null;
    this.unjoinable = false;
    this.joinAttempts = 0;
    this.oldest = false;
    this.dropped = 0;
    this.boot = null;
    this.version++;
  }

  private clearPending(): void {
    if (this.pending !== null) clearTimeout(this.pending.timer);
    this.pending = null;
  }

  private makeState(): HistoryState {
    return {
      pages: [...this.pages],
      rows: this.pages.reduce((n, p) => n + p.rows, 0),
      oldest: this.oldest,
      dropped: this.dropped,
      loading: this.pending !== null,
      waiting: this.waiting,
      problem: this.problem,
      connection: this.connection,
      version: this.version,
    };
  }

  private emit(): void {
    if (this.disposed) return;
    this._state = this.makeState();
    this.changes.fire();
  }
}

function closedProblem(status: 'exited' | 'gone'): HistoryProblem {
  return status === 'gone'
    ? { message: 'the server has no such session any more', canRetry: false }
    : {
        message: "this pane's channel is closed (the program ended), so the server answers no more history requests on it; reopen the page to read the history",
        canRetry: false,
      };
}
