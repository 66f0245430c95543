// One session shown in one xterm.js terminal, over one channel of the page's
// ViewerSocket. It keeps the single number that makes reconnects seamless —
// the seq of the last byte handed to the terminal, with its boot — and on
// every socketReady subscribes with it as the resume point: the server replays
// what was missed, or sends one SNAPSHOT (after a restart, or when too much was
// missed), which is applied as reset + screen in a single write.
import type { Terminal } from '@xterm/xterm';
import { CloseReason, ViewerErrorCode, splitInput, type FrameFromServer, type ResumePoint } from '../../../src/protocol/viewer-frames.js';
import type { ChannelHandler, ViewerSocket } from '../connection/viewer-socket.js';
import { snapshotPaint } from './snapshot-paint.js';

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
}

export interface TerminalLinkOptions {
  socket: ViewerSocket;
  sessionId: string;
  terminal: Terminal;
  /** The size this page would like the PTY to be (the pane's fit), asked on subscribe. */
  wantedSize(): { cols: number; rows: number };
  events: LinkEvents;
  onProblem?(message: string): void;
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
  private disposed = false;
  readonly problems: string[] = [];
  readonly stats = { snapshots: 0, dataFrames: 0, dataBytes: 0, acks: 0, resumes: 0 };

  constructor(private readonly options: TerminalLinkOptions) {
    const { terminal } = options;
    terminal.onData((data) => this.input(encoder.encode(data)));
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

  /** The pane changed size: ask for the PTY to follow (the latest viewer to ask wins). */
  requestSize(cols: number, rows: number): void {
    const key = `${cols}x${rows}`;
    if (this._status !== 'live' || key === this.lastSizeAsked) return;
    if (this.options.socket.send({ type: 'resize-request', channel: this.channel, cols, rows })) this.lastSizeAsked = key;
  }

  /** Text typed or pasted by the person, sent whole (splitInput never cuts a character). */
  input(bytes: Uint8Array): void {
    if (this._status !== 'live' || bytes.length === 0) return;
    for (const piece of splitInput(bytes)) this.options.socket.send({ type: 'input', channel: this.channel, data: piece });
  }

  /** Subscribes again from scratch (after a revive): the next frame is a snapshot. */
  restart(): void {
    this.written = null;
    this.generation++;
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
    const resume = this.written ?? undefined;
    const { cols, rows } = this.options.wantedSize();
    // A seq means something only under its boot; the server also checks.
    this.expectedSeq = resume && resume.boot === serverBoot ? resume.seq : null;
    this.lastAcked = this.expectedSeq;
    if (resume) this.stats.resumes++;
    this.options.socket.send({ type: 'subscribe', channel: this.channel, sessionId: this.options.sessionId, cols, rows, ...(resume ? { resume } : {}) });
    // Marks for the benchmarks (performance.getEntriesByName): subscribe → snapshot → parsed.
    performance.mark(`tend:subscribe:${this.options.sessionId}`);
    this.lastSizeAsked = `${cols}x${rows}`;
    if (this._status !== 'exited' && this._status !== 'gone') this.setStatus(this.written ? 'reconnecting' : 'connecting');
  }

  socketLost(): void {
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
        this.write(snapshotPaint(frame.data, frame.modes), frame.seq);
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
        break;
      case 'error':
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

  /** Writes into the terminal and acks seq once xterm has parsed it. */
  private write(data: string | Uint8Array, seq: number): void {
    const generation = this.generation;
    this.options.terminal.write(data, () => {
      if (generation !== this.generation || this.disposed) return;
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
  }

  private problem(message: string): void {
    this.problems.push(message);
    this.options.onProblem?.(`${this.options.sessionId}: ${message}`);
  }
}
