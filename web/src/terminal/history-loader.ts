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

interface Pending {
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
  private readonly listeners = new Set<() => void>();
  private readonly unlisten: () => void;
  private disposed = false;
  private _state: HistoryState;

  constructor(private readonly link: TerminalLink) {
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
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Reads the next older page (the first one: the rows above the pane's snapshot). */
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
    this.listeners.clear();
  }

  private send(): void {
    if (this.bootChanged()) this.startOver();
    const boot = this.link.serverBoot;
    const first = this.pages[0];
    const beforeRow = first?.firstRow ?? 0;
    if (first !== undefined && beforeRow === 0) {
      // Row 0 is the first row there ever was: nothing is older.
      this.oldest = true;
      this.version++;
      this.emit();
      return;
    }
    if (!this.link.requestScrollback(beforeRow, HISTORY_PAGE_ROWS)) {
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
    this.pending = { beforeRow, timer: setTimeout(() => this.timedOut(), ANSWER_TIMEOUT_MS) };
    this.emit();
  }

  private answer(frame: ScrollbackFrame): void {
    const pending = this.pending;
    // An answer nobody waits for: a request given up on (a timeout), or one of another view.
    if (pending === null) return;
    if (pending.beforeRow !== 0 && frame.rows > 0 && frame.firstRow + frame.rows !== pending.beforeRow) return;
    this.clearPending();
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
    for (const l of [...this.listeners]) l();
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
