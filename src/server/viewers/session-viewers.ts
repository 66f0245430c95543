// Everything one session needs to serve its viewers: the output log, one
// ViewerChannel per subscribed viewer, the size policy, and the rule that ties
// them: the log is trimmed to the lowest ack across attached viewers, and
// only a valid ack may trim it. The server core feeds output in with append()
// and routes each viewer's frames here; the PTY and the screen stay its own.

import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import { CloseReason, ViewerErrorCode, type FrameFromServer, type ResumePoint } from '../../protocol/viewer-frames.js';
import { REPLAY_MAX_BYTES, type FlowLimits, type Timers } from './flow-limits.js';
import { OutputLog, randomBaseSeq } from './output-log.js';
import { SizePolicy, type TerminalSize } from './size-policy.js';
import { ViewerChannel, type Snapshot, type SnapshotRequest } from './viewer-channel.js';

/** Older rows for a viewer: the SCROLLBACK frame's fields. */
export type ScrollbackRows = Omit<Extract<FrameFromServer, { type: 'scrollback' }>, 'type' | 'channel'>;

export interface SessionViewersOptions {
  /** This server boot's id (every seq is scoped to it). */
  boot: string;
  /** The seq of the session's first byte in this boot; random by default. */
  baseSeq?: number;
  logCapBytes?: number;
  takeSnapshot(request: SnapshotRequest): Snapshot | Promise<Snapshot>;
  /**
   * The seq the screen has parsed up to. A snapshot is cut there, and DATA
   * after it must come from the log, so the log never trims past it (the
   * screen can lag the log by its parse queue; viewers get bytes before the
   * server parses them and may ack them first). Default: no such bound.
   */
  parsedSeq?(): number;
  /**
   * Rows of history older than row `beforeRow` (null: older than what a
   * snapshot would show now), at most `count` of them.
   */
  readScrollback?(request: { beforeRow: number | null; count: number }): Promise<ScrollbackRows>;
  /** Input for the PTY, whole, in arrival order. */
  writeInput(data: Uint8Array): void;
  /** The PTY should take this size (the size policy decided). */
  resizePty(size: TerminalSize): void;
  limits?: Partial<FlowLimits>;
  timers?: Timers;
}

export interface AttachOptions {
  channel: number;
  send(frame: FrameFromServer): void;
  readOnly: boolean;
  cols: number;
  rows: number;
  resume?: ResumePoint;
  /** Called when the channel ends by itself (a protocol violation), after it is detached. */
  onClosed?(reason: CloseReason, message: string): void;
}

export class SessionViewers extends DisposableBase {
  readonly log: OutputLog;
  private readonly channels = new Set<ViewerChannel>();
  private readonly readOnly = new WeakSet<ViewerChannel>();
  private readonly sizes: SizePolicy<ViewerChannel>;

  constructor(private readonly options: SessionViewersOptions) {
    super();
    this.log = new OutputLog({ baseSeq: options.baseSeq ?? randomBaseSeq(), capBytes: options.logCapBytes });
    this.sizes = new SizePolicy({ apply: (size) => this.applySize(size) });
    this.register(toDisposable(() => this.closeAll(CloseReason.SERVER_SHUTDOWN, 'the server is stopping')));
  }

  get viewerCount(): number {
    return this.channels.size;
  }

  /** How many viewers are waiting for their acks above the high-water mark. */
  get pausedViewerCount(): number {
    let n = 0;
    for (const ch of this.channels) if (ch.paused) n++;
    return n;
  }

  /** The size the PTY was last told to take by the policy. */
  get size(): TerminalSize | null {
    return this.sizes.current;
  }

  /** Output from the PTY (live, in order). Returns the seq after it. */
  append(bytes: Uint8Array): number {
    const seq = this.log.append(bytes);
    for (const ch of this.channels) ch.outputAppended();
    // With no viewer, only a replay's worth is worth keeping: a viewer that
    // reconnects owing more gets a snapshot anyway (and a busy session with
    // no viewer would otherwise hold its whole log cap).
    if (this.channels.size === 0) this.trimKeepingParse(seq - (this.options.limits?.replayMaxBytes ?? REPLAY_MAX_BYTES));
    return seq;
  }

  attach(options: AttachOptions): ViewerChannel {
    const channel: ViewerChannel = new ViewerChannel({
      channel: options.channel,
      boot: this.options.boot,
      log: this.log,
      send: options.send,
      takeSnapshot: (req) => this.options.takeSnapshot(req),
      limits: this.options.limits,
      timers: this.options.timers,
      onClosed: (reason, message) => {
        this.forget(channel);
        options.onClosed?.(reason, message);
      },
    });
    this.channels.add(channel);
    if (options.readOnly) this.readOnly.add(channel);
    this.sizes.join(channel, { cols: options.cols, rows: options.rows, readOnly: options.readOnly });
    channel.start(options.resume);
    return channel;
  }

  /** The viewer unsubscribed or its socket closed. */
  detach(channel: ViewerChannel, reason: CloseReason = CloseReason.UNSUBSCRIBED): void {
    if (!this.channels.has(channel)) return;
    this.forget(channel);
    channel.close(reason);
  }

  /** A viewer's ACK; a bad one closes that viewer and trims nothing. */
  ack(channel: ViewerChannel, seq: number): void {
    if (!this.channels.has(channel)) return;
    if (channel.ack(seq)) this.trim();
  }

  input(channel: ViewerChannel, data: Uint8Array): void {
    if (!this.channels.has(channel)) return;
    if (this.readOnly.has(channel)) {
      channel.sendEvent({ type: 'error', channel: channel.channel, code: ViewerErrorCode.READ_ONLY, message: 'this viewer is read-only' });
      return;
    }
    this.sizes.input(channel);
    this.options.writeInput(data);
  }

  resize(channel: ViewerChannel, size: TerminalSize): void {
    if (this.channels.has(channel)) this.sizes.resize(channel, size);
  }

  /**
   * A viewer asks for older rows (SCROLLBACK_REQUEST): row `beforeRow`, or 0
   * for the rows above the last snapshot it was sent. Answered with one
   * SCROLLBACK frame, whenever the rows are read.
   */
  scrollback(channel: ViewerChannel, beforeRow: number, count: number): void {
    if (!this.channels.has(channel)) return;
    const before = beforeRow === 0 ? channel.lastSnapshotFirstRow : beforeRow;
    const read = this.options.readScrollback?.({ beforeRow: before, count }) ??
      Promise.resolve({ firstRow: before ?? 0, rows: 0, dropped: 0, oldest: true, text: '' });
    read.then(
      (rows) => {
        if (this.channels.has(channel)) channel.sendEvent({ type: 'scrollback', channel: channel.channel, ...rows });
      },
      (err: Error) => {
        if (this.channels.has(channel)) channel.sendEvent({ type: 'error', channel: channel.channel, code: ViewerErrorCode.INTERNAL, message: `could not read the history: ${err.message}` });
      },
    );
  }

  /** A frame for every viewer of this session (TITLE, EXIT, STATE). */
  broadcast(make: (channel: number) => FrameFromServer): void {
    for (const ch of this.channels) ch.sendEvent(make(ch.channel));
  }

  /** The session ended for good: every viewer gets CLOSED. */
  closeAll(reason: CloseReason, message = ''): void {
    for (const ch of [...this.channels]) {
      this.forget(ch);
      ch.close(reason, message);
    }
  }

  private forget(channel: ViewerChannel): void {
    if (!this.channels.delete(channel)) return;
    this.sizes.leave(channel);
    this.trim();
  }

  private applySize(size: TerminalSize): void {
    this.options.resizePty(size);
    this.broadcast((ch) => ({ type: 'resize', channel: ch, cols: size.cols, rows: size.rows }));
  }

  /**
   * Trims the log to the lowest ack across attached viewers. A viewer still
   * starting (no position yet) holds trimming off; with no viewer at all
   * append() keeps the last replay's worth, so a viewer reconnecting after a
   * blip can still be replayed.
   */
  private trim(): void {
    if (this.channels.size === 0) return;
    let lowest = Infinity;
    for (const ch of this.channels) {
      const from = ch.retainFromSeq;
      if (from === null) return;
      lowest = Math.min(lowest, from);
    }
    this.trimKeepingParse(lowest);
  }

  private trimKeepingParse(seq: number): void {
    const parsed = this.options.parsedSeq?.();
    this.log.trimTo(parsed === undefined ? seq : Math.min(seq, parsed));
  }
}
