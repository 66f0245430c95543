// One session shown in one xterm.js terminal, over one channel of the page's
// ViewerSocket. It keeps the single number that makes reconnects seamless —
// the seq of the last byte handed to the terminal, with its boot — and on
// every socketReady subscribes with it as the resume point: the server replays
// what was missed, or sends one SNAPSHOT (after a restart, or when too much was
// missed), which is applied as reset + screen in a single write.
//
// The channel also carries history: SCROLLBACK_REQUEST goes out on it and the
// SCROLLBACK answer comes back on it, for a HistoryLoader that listens here
// (listenHistory). Those answers never touch this terminal.
import type { IMarker, Terminal } from '@xterm/xterm';
import { CloseReason, ViewerErrorCode, type FrameFromServer, type ResumePoint } from '../../../src/protocol/viewer-frames.js';
import type { ChannelHandler, ViewerSocket } from '../connection/viewer-socket.js';
import { snapshotPaint } from './snapshot-paint.js';
import { Emitter } from '../../../src/common/event.js';

export type LinkStatus =
  | 'connecting' // waiting for the socket or the first frame
  | 'live' // showing the session's screen as it happens
  | 'reconnecting' // the socket is gone; the screen is kept as it was
  | 'exited' // the program ended; the last screen stays
  | 'gone'; // the server has no such session

export interface LinkEvents {
  status?(status: LinkStatus): void;
  title?(title: string): void;
  exit?(code: number, signal: number): void;
  /** The PTY's size changed (this terminal now renders cols × rows). */
  resized?(cols: number, rows: number): void;
  /** A snapshot's paint has been parsed: the terminal holds the snapshot's rows and no older ones. */
  snapshotParsed?(): void;
  /** A STATE frame: news about the session (its agent: agents/agent-from-frame.ts). */
  state?(state: Record<string, unknown>): void;
}

export type ScrollbackFrame = Extract<FrameFromServer, { type: 'scrollback' }>;

/** What a history reader hears from a pane's channel (see HistoryLoader). */
export interface HistoryListener {
  /** A SCROLLBACK answer. */
  scrollback?(frame: ScrollbackFrame): void;
  /** An ERROR frame that arrived while a SCROLLBACK_REQUEST was unanswered: taken as its answer. */
  historyError?(code: number, message: string): void;
  /** The link's status changed: requests go out only while it is 'live'. */
  status?(status: LinkStatus): void;
}

/**
 * ERROR codes that, while a SCROLLBACK_REQUEST is unanswered, are its answer
 * (the history could not be read, the channel is gone, or the server does
 * not know the request). The others belong to subscribe, input and acks.
 */
const HISTORY_ERROR_CODES: ReadonlySet<number> = new Set([
  ViewerErrorCode.UNKNOWN_FRAME,
  ViewerErrorCode.TOO_LARGE,
  ViewerErrorCode.BAD_PAYLOAD,
  ViewerErrorCode.NOT_SUBSCRIBED,
  ViewerErrorCode.INTERNAL,
]);

export interface TerminalLinkOptions {
  socket: ViewerSocket;
  sessionId: string;
  terminal: Terminal;
  /**
   * The size this page would like the PTY to be (the pane's fit), told on
   * subscribe: the server gives it to the PTY only once this page types (a
   * page opening never resizes a session others are looking at).
   */
  wantedSize(): { cols: number; rows: number };
  events: LinkEvents;
  onProblem?(message: string): void;
  /**
   * Snapshots carry the screen alone, no scrollback: for a preview, which
   * keeps no history (the subscription's keepsHistory, which asks just that).
   */
  screenOnly?: boolean;
  /**
   * What the person typed, changed before it is sent (the phone key row's
   * sticky Ctrl: workspace/sticky-ctrl.ts); left out, sent as typed.
   */
  typed?(data: string): string;
}

const encoder = new TextEncoder();

export class TerminalLink implements ChannelHandler {
  private channel: number;
  private _status: LinkStatus = 'connecting';
  /** Where the terminal's content comes from: the boot and seq after the last byte written into it. */
  private written: ResumePoint | null = null;
  /** The seq the next DATA frame must start at; null until a snapshot or a resume sets it. */
  private expectedSeq: number | null = null;
  private parsed: number | null = null;
  private lastAcked: number | null = null;
  /**
   * Bumped on every subscribe: write callbacks of an older subscription must
   * not ack on the new one (its acks start from the resume point, and the
   * server refuses an ack that goes backwards).
   */
  private generation = 0;
  private lastSizeAsked: string | null = null;
  /** Subscribed on the socket's current connection: typed input can go at once (else it waits for the next). */
  private subscribed = false;
  private disposed = false;
  /** What listenHistory's listeners hear, one event each. */
  private readonly scrollbacks = new Emitter<ScrollbackFrame>();
  private readonly historyErrors = new Emitter<{ code: number; message: string }>();
  private readonly statusChanges = new Emitter<LinkStatus>();
  /** SCROLLBACK_REQUESTs sent on this subscription and not answered yet. */
  private scrollbackPending = 0;
  /** On the top line of the last snapshot: disposed by xterm when that line is trimmed from the scrollback. */
  private snapshotTopMarker: IMarker | null = null;
  private _trimmedSinceSnapshot = false;
  readonly problems: string[] = [];
  readonly stats = { snapshots: 0, dataFrames: 0, dataBytes: 0, acks: 0, resumes: 0 };

  constructor(private readonly options: TerminalLinkOptions) {
    const { terminal } = options;
    terminal.onData((data) => this.input(encoder.encode(options.typed ? options.typed(data) : data)));
    // Mouse reports in the default (X10) encoding are bytes, not UTF-8 text.
    terminal.onBinary((data) => this.input(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
    this.channel = options.socket.open(this);
  }

  get status(): LinkStatus {
    return this._status;
  }
  get sessionId(): string {
    return this.options.sessionId;
  }
  /** The seq the terminal has parsed up to (its write callbacks), for tests and benchmarks. */
  get parsedSeq(): number | null {
    return this.parsed;
  }
  get ackedSeq(): number | null {
    return this.lastAcked;
  }
  get writtenPoint(): ResumePoint | null {
    return this.written;
  }
  /** The boot of the server the socket speaks to now (row numbers of history mean something only under it). */
  get serverBoot(): string | null {
    return this.options.socket.serverBoot;
  }
  /**
   * True once the terminal has dropped (its scrollback limit) the top row of
   * the last snapshot: the rows just above what it holds are then newer than
   * the rows a SCROLLBACK_REQUEST from row 0 starts at, and some in between
   * are on neither side.
   */
  get trimmedSinceSnapshot(): boolean {
    return this._trimmedSinceSnapshot;
  }

  /** Hears history answers and status changes until the returned function is called. */
  listenHistory(listener: HistoryListener): () => void {
    const subscriptions = [
      this.scrollbacks.on((frame) => listener.scrollback?.(frame)),
      this.historyErrors.on((e) => listener.historyError?.(e.code, e.message)),
      this.statusChanges.on((status) => listener.status?.(status)),
    ];
    return () => {
      for (const subscription of subscriptions) subscription.dispose();
    };
  }

  /**
   * Asks for `count` rows of history older than row `beforeRow` (0: older
   * than the last snapshot this channel got). Sent only while the link is
   * live; false when it was not sent.
   */
  requestScrollback(beforeRow: number, count: number): boolean {
    if (this.disposed || this._status !== 'live') return false;
    if (!this.options.socket.send({ type: 'scrollback-request', channel: this.channel, beforeRow, count })) return false;
    this.scrollbackPending++;
    return true;
  }

  /** The pane changed size: tell the server, which resizes the PTY only if this page is the latest to have typed. */
  requestSize(cols: number, rows: number): void {
    const key = `${cols}x${rows}`;
    if (this._status !== 'live' || key === this.lastSizeAsked) return;
    if (this.options.socket.send({ type: 'resize-request', channel: this.channel, cols, rows })) this.lastSizeAsked = key;
  }

  /**
   * Text typed or pasted by the person, sent whole (never cutting a
   * character) and counted: kept until the session's holder has it, so
   * typing while the page reconnects arrives once the session is back.
   */
  input(bytes: Uint8Array): void {
    if (this.disposed || this._status === 'exited' || this._status === 'gone' || bytes.length === 0) return;
    if (!this.options.socket.typeInto(this.options.sessionId, bytes, this.subscribed ? this.channel : null)) {
      this.problem(`input of ${bytes.length} bytes not sent: the session has not yet taken what was typed before it`);
    }
  }

  /**
   * Subscribes again from scratch (after a revive, or a protocol violation):
   * the next frame is a snapshot. With newProgram (a revive), input the old
   * program never took is dropped rather than typed into the new shell.
   */
  restart(options: { newProgram?: boolean } = {}): void {
    if (options.newProgram) this.options.socket.forgetInput(this.options.sessionId);
    this.subscribed = false;
    this.written = null;
    this.generation++;
    this.scrollbackPending = 0;
    this.options.socket.release(this.channel);
    // A released channel id is never reused (frames for it may still be in flight): reopen under a new one.
    this.setStatus('connecting');
    this.channel = this.options.socket.open(this);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.generation++;
    this.options.socket.release(this.channel);
  }

  // ------------------------------------------------------------ socket events

  socketReady(serverBoot: string): void {
    if (this.disposed) return;
    this.generation++;
    this.lastSizeAsked = null;
    // A new subscription: requests made on the old one are never answered.
    this.scrollbackPending = 0;
    const resume = this.written ?? undefined;
    const { cols, rows } = this.options.wantedSize();
    // A seq means something only under its boot; the server also checks.
    this.expectedSeq = resume && resume.boot === serverBoot ? resume.seq : null;
    this.lastAcked = this.expectedSeq;
    if (resume) this.stats.resumes++;
    this.options.socket.send({
      type: 'subscribe',
      channel: this.channel,
      sessionId: this.options.sessionId,
      cols,
      rows,
      ...(resume ? { resume } : {}),
      ...(this.options.screenOnly ? { keepsHistory: true } : {}),
    });
    this.subscribed = true;
    // Typed while away, or sent into a socket that had died: the holder drops what it has.
    this.options.socket.sendInput(this.options.sessionId, this.channel);
    // Marks for the benchmarks (performance.getEntriesByName): subscribe → snapshot → parsed.
    performance.mark(`tend:subscribe:${this.options.sessionId}`);
    this.lastSizeAsked = `${cols}x${rows}`;
    if (this._status !== 'exited' && this._status !== 'gone') this.setStatus(this.written ? 'reconnecting' : 'connecting');
  }

  socketLost(): void {
    this.subscribed = false;
    this.scrollbackPending = 0;
    if (this._status === 'live' || this._status === 'connecting') this.setStatus('reconnecting');
  }

  frame(frame: FrameFromServer): void {
    if (this.disposed) return;
    const term = this.options.terminal;
    switch (frame.type) {
      case 'snapshot': {
        this.stats.snapshots++;
        performance.mark(`tend:snapshot:${this.options.sessionId}`, { detail: { bytes: frame.data.length } });
        this.expectedSeq = frame.seq;
        this.written = { boot: frame.boot, seq: frame.seq };
        if (term.cols !== frame.cols || term.rows !== frame.rows) term.resize(frame.cols, frame.rows);
        // The reset disposes the old marker; it is forgotten first, so that is not taken for a trim.
        const oldMarker = this.snapshotTopMarker;
        this.snapshotTopMarker = null;
        oldMarker?.dispose();
        this._trimmedSinceSnapshot = false;
        this.write(snapshotPaint(frame.data, frame.modes), frame.seq, () => {
          this.markSnapshotTop();
          this.options.events.snapshotParsed?.();
        });
        this.options.events.resized?.(frame.cols, frame.rows);
        this.setStatus('live');
        break;
      }
      case 'data': {
        const start = frame.seq - frame.data.length;
        if (this.expectedSeq !== null && start !== this.expectedSeq) {
          this.problem(`DATA starts at ${start}, expected ${this.expectedSeq}`);
        }
        this.expectedSeq = frame.seq;
        if (this.written) this.written = { boot: this.written.boot, seq: frame.seq };
        this.stats.dataFrames++;
        this.stats.dataBytes += frame.data.length;
        // An empty DATA says "resumed, nothing owed": nothing to write, but ack it.
        this.write(frame.data, frame.seq);
        if (this._status !== 'exited') this.setStatus('live');
        break;
      }
      case 'resize':
        // In stream order: the bytes before the resize were written at the old size.
        term.write('', () => {
          if (term.cols !== frame.cols || term.rows !== frame.rows) term.resize(frame.cols, frame.rows);
          this.options.events.resized?.(frame.cols, frame.rows);
        });
        break;
      case 'title':
        this.options.events.title?.(frame.title);
        break;
      case 'exit':
        term.write('', () => {
          this.setStatus('exited');
          this.options.events.exit?.(frame.code, frame.signal);
        });
        break;
      case 'state':
        this.options.events.state?.(frame.state);
        break;
      case 'input-taken':
        this.options.socket.inputTaken(this.options.sessionId, frame.total);
        break;
      case 'scrollback':
        if (this.scrollbackPending > 0) this.scrollbackPending--;
        this.scrollbacks.fire(frame);
        break;
      case 'error':
        if (this.scrollbackPending > 0 && HISTORY_ERROR_CODES.has(frame.code)) {
          // Shown by the history view that asked, not reported as a problem of the pane.
          this.scrollbackPending--;
          this.historyErrors.fire({ code: frame.code, message: frame.message });
          break;
        }
        if (frame.code === ViewerErrorCode.NO_SUCH_SESSION) this.setStatus('gone');
        else if (frame.code !== ViewerErrorCode.READ_ONLY) this.problem(`server: ${frame.message} (code ${frame.code})`);
        break;
      case 'closed':
        this.closed(frame.reason, frame.message);
        break;
      case 'welcome':
        break;
    }
  }

  private closed(reason: CloseReason, message: string): void {
    this.scrollbackPending = 0;
    switch (reason) {
      case CloseReason.SESSION_ENDED:
        this.options.terminal.write('', () => this.setStatus(this._status === 'gone' ? 'gone' : 'exited'));
        break;
      case CloseReason.SERVER_SHUTDOWN:
        // The socket closes next and reconnects; the resume point is kept.
        this.setStatus('reconnecting');
        break;
      case CloseReason.PROTOCOL_VIOLATION:
        this.problem(`channel closed: ${message}`);
        this.restart();
        break;
      case CloseReason.UNSUBSCRIBED:
        break;
    }
  }

  /**
   * A marker on the top line of the snapshot just parsed (normal buffer
   * only): xterm disposes it when that line leaves the scrollback.
   */
  private markSnapshotTop(): void {
    const term = this.options.terminal;
    const buffer = term.buffer.active;
    if (this.disposed || buffer.type !== 'normal') return;
    const marker = term.registerMarker(-(buffer.baseY + buffer.cursorY));
    if (marker.isDisposed) return;
    this.snapshotTopMarker = marker;
    marker.onDispose(() => {
      if (this.snapshotTopMarker !== marker) return;
      this.snapshotTopMarker = null;
      this._trimmedSinceSnapshot = true;
    });
  }

  /** Writes into the terminal and acks seq once xterm has parsed it. */
  private write(data: string | Uint8Array, seq: number, parsed?: () => void): void {
    const generation = this.generation;
    this.options.terminal.write(data, () => {
      if (generation !== this.generation || this.disposed) return;
      parsed?.();
      if (this.parsed === null) performance.mark(`tend:first-parse:${this.options.sessionId}`);
      this.parsed = seq;
      // Ack after parse, not arrival: the server keeps sending only while we keep up.
      if (this.lastAcked !== null && seq <= this.lastAcked) return;
      if (this.options.socket.send({ type: 'ack', channel: this.channel, seq })) {
        this.lastAcked = seq;
        this.stats.acks++;
      }
    });
  }

  private setStatus(status: LinkStatus): void {
    if (this._status === status) return;
    this._status = status;
    this.options.events.status?.(status);
    this.statusChanges.fire(status);
  }

  private problem(message: string): void {
    this.problems.push(message);
    this.options.onProblem?.(`${this.options.sessionId}: ${message}`);
  }
}
