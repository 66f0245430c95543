// Everything one session needs to serve its viewers: the output log, one
// ViewerChannel per subscribed viewer, the size policy, and the rule that ties
// them: the log is trimmed to the lowest ack across attached viewers, and
// only a valid ack may trim it. The server core feeds output in with append()
// and routes each viewer's frames here; the PTY and the screen stay its own.

import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import { CloseReason, ViewerErrorCode, type ClientKind, type FrameFromServer, type ResumePoint } from '../../protocol/viewer-frames.js';
import { REPLAY_MAX_BYTES, type FlowLimits, type Timers } from './flow-limits.js';
import { OutputLog, randomBaseSeq } from './output-log.js';
import { SizePolicy, type TerminalSize, type WindowSizePolicy } from './size-policy.js';
import { shiftMouseReports } from './view-mouse.js';
import { ViewerChannel, type Snapshot, type SnapshotRequest } from './viewer-channel.js';
import { WindowRows } from './window-rows.js';

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
  /**
   * The screen's top row when it had parsed up to `seq` (RowMarks.topRowAt),
   * or undefined if that is no longer known: the rows above it are in the
   * scrollback of a terminal streamed up to there. Without it no window is remembered.
   */
  topRowAt?(seq: number): number | undefined;
  /** A window's rows were remembered: worth a checkpoint, which keeps them across a server restart. */
  windowRemembered?(): void;
  /** Input for the PTY, whole, in arrival order. */
  writeInput(data: Uint8Array): void;
  /**
   * A writer's input bytes at .. at + data.length − 1 for the PTY, in arrival
   * order with writeInput's: resolves with the holder's count of that
   * writer's bytes once it has taken them (a resend of what it has is
   * dropped there); rejects when the session ends or its holder goes first.
   */
  writeInputAt(writer: Uint8Array, at: number, data: Uint8Array): Promise<number>;
  /**
   * The PTY should take this size (the size policy decided). The session
   * calls ptyResized() once it has (whatever asked for the resize).
   */
  resizePty(size: TerminalSize): void;
  /** The PTY's size now (default: the size last passed to resizePty, or unknown). */
  ptySize?(): TerminalSize;
  /** Which viewer's size the PTY takes (tmux's window-size); default latest. */
  windowSize?: WindowSizePolicy;
  /**
   * The holder socket a viewer may type to directly now, as far as the
   * session is concerned (running, a holder that takes typists, no hand-over,
   * no agent waiting to wake): null when input must come through the server.
   */
  holderRoute?(): string | null;
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
  /** A terminal (cli) is shown a view for its size when the session is another; default script. */
  clientKind?: ClientKind;
  /** The viewer's terminal holds this session's history already: its snapshots are the screen alone. */
  keepsHistory?: boolean;
  /** The viewer drew over its screen while away: a screen-only snapshot follows the replay. */
  repaint?: boolean;
  /** The outer terminal window the viewer paints into (SUBSCRIBE's window): its snapshot skips the history rows that window holds. */
  window?: string;
  /** Called when the channel ends by itself (a protocol violation), after it is detached. */
  onClosed?(reason: CloseReason, message: string): void;
  /** The same viewer's channel to this session that this one replaces (a repaint): its place for the size is kept. */
  succeeds?: ViewerChannel;
  /** The viewer can type straight to the holder (HELLO's TYPES_TO_HOLDER, with a writer) when INPUT_ROUTE says so. */
  typesToHolder?: boolean;
}

export class SessionViewers extends DisposableBase {
  readonly log: OutputLog;
  /** The stream the log's seqs belong to (see alignStream); SNAPSHOTs name it. */
  private streamId: string;
  private readonly channels = new Set<ViewerChannel>();
  private readonly readOnly = new WeakSet<ViewerChannel>();
  private readonly sizes: SizePolicy<ViewerChannel>;
  /** Terminal viewers (tend attach): shown a view when their size is not the PTY's. */
  private readonly terminals = new WeakSet<ViewerChannel>();
  private lastAsked: TerminalSize | null = null;
  /** The last INPUT_TAKEN total sent on each channel: a lower one, answered late, is not news. */
  private readonly takenSent = new WeakMap<ViewerChannel, number>();
  /** Viewers are shown a kept screen, not the stream (see freeze()). */
  private frozen = false;
  /** Viewers that can type to the holder, and the route each was last told ('' or absent: the server). */
  private readonly typists = new WeakSet<ViewerChannel>();
  private readonly routes = new WeakMap<ViewerChannel, string>();
  /** The history rows each window holds, as of its last viewer's close; and each channel's window. */
  private readonly windows = new WindowRows();
  private readonly windowOf = new WeakMap<ViewerChannel, string>();

  constructor(private readonly options: SessionViewersOptions) {
    super();
    this.log = new OutputLog({ baseSeq: options.baseSeq ?? randomBaseSeq(), capBytes: options.logCapBytes });
    this.streamId = options.boot;
    this.sizes = new SizePolicy(options.windowSize);
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

  /** The PTY's size as the session says it is (null: not known yet). */
  get size(): TerminalSize | null {
    return this.options.ptySize?.() ?? this.lastAsked;
  }

  /**
   * Numbers the stream from here on by a position that outlives this server
   * (the holder's generation and byte offset): a viewer that reconnects to
   * the next server is replayed what it missed. Only before any viewer has a
   * position in the old numbering; returns false (and changes nothing) then.
   */
  alignStream(stream: string, seq: number): boolean {
    if (this.channels.size > 0) return false;
    this.streamId = stream;
    this.log.restartAt(seq);
    return true;
  }

  /** The stream jumped to seq (bytes before it were lost): viewers behind it get a snapshot. */
  skipTo(seq: number): void {
    if (seq !== this.log.endSeq) this.log.restartAt(seq);
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

  /**
   * Viewers, those to come too, are shown a kept screen (the session's
   * takeSnapshot renders it while frozen) and sent no output: a sleeping
   * agent's screen stays as it was while the shell under it prints its
   * prompt. The log fills on (the screen still parses every byte).
   */
  freeze(): void {
    this.frozen = true;
    for (const ch of this.channels) ch.freeze();
    this.updateInputRoutes();
  }

  /** The stream again: every viewer is repainted from the live screen, then sent output from there. */
  thaw(): void {
    this.frozen = false;
    for (const ch of this.channels) ch.thaw();
    this.updateInputRoutes();
  }

  get isFrozen(): boolean {
    return this.frozen;
  }

  attach(options: AttachOptions): ViewerChannel {
    const channel: ViewerChannel = new ViewerChannel({
      channel: options.channel,
      stream: this.streamId,
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
    if (options.typesToHolder === true && !options.readOnly) this.typists.add(channel);
    const terminal = options.clientKind === 'cli';
    if (terminal) this.terminals.add(channel);
    // A terminal that has painted this session before (KEEPS_HISTORY) is reconnecting.
    const rejoin = options.keepsHistory === true;
    this.sizes.join(channel, { cols: options.cols, rows: options.rows, readOnly: options.readOnly, terminal, rejoin }, options.succeeds);
    // The size first (a lone terminal takes it; a reconnecting one leaves the PTY as it is), then
    // whether this viewer is shown the stream or a view.
    if (!rejoin) this.applyPolicy();
    channel.showView(this.viewFor(channel));
    if (this.frozen) channel.freeze();
    // A viewer that kept the history (reconnecting) holds at least what its window was last
    // remembered to: the server's record may be older (from before a crash), so it is not used.
    const heldRow = options.window === undefined || options.keepsHistory === true ? undefined : this.windows.heldRow(options.window);
    if (options.window !== undefined) this.windowOf.set(channel, options.window);
    channel.start(options.resume, {
      keepsHistory: options.keepsHistory === true,
      repaint: options.repaint === true,
      ...(heldRow !== undefined ? { historyAfterRow: heldRow } : {}),
      ...(options.succeeds !== undefined ? { holdsHistory: options.succeeds.holdsHistory } : {}),
    });
    this.updateInputRoutes();
    return channel;
  }

  /**
   * Tells each typist where its counted input goes now. A viewer types
   * straight to the holder only while the server has nothing to do with its
   * keys: it is the session's one writable viewer (so typing never changes
   * the size policy's choice), it is shown the stream, not a view (whose
   * mouse reports the server moves), nothing is frozen, and the session
   * allows it (holderRoute). Anything else: through the server, as INPUT_AT.
   * Switching either way is safe at any moment: the viewer sends again from
   * the holder's last count on the new route, and the holder drops what it has.
   */
  updateInputRoutes(): void {
    let writable = 0;
    for (const ch of this.channels) if (!this.readOnly.has(ch)) writable++;
    const holder = writable === 1 && !this.frozen ? this.options.holderRoute?.() ?? null : null;
    for (const ch of this.channels) {
      if (!this.typists.has(ch) || ch.isClosed) continue;
      const route = holder !== null && this.viewFor(ch) === null ? holder : '';
      if ((this.routes.get(ch) ?? '') === route) continue;
      this.routes.set(ch, route);
      ch.sendEvent({ type: 'input-route', channel: ch.channel, holderSocket: route });
    }
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
    if (!this.channels.has(channel) || this.refusedAsReadOnly(channel)) return;
    // A viewer shown a window of the session clicks in the window's cells: the
    // program gets the session's (the window it saw, before this input may resize the PTY).
    const window = channel.viewWindow;
    const input = window === null ? data : shiftMouseReports(data, window);
    this.sizes.input(channel);
    this.applyPolicy();
    if (input.length > 0) this.options.writeInput(input);
  }

  /**
   * A viewer's counted input (INPUT_AT): typing as INPUT is (it may take the
   * size), then to the holder under the viewer's writer, and INPUT_TAKEN
   * once the holder has the bytes. The bytes go unchanged (no mouse report is
   * moved for a view: the holder counts the viewer's own bytes), so a viewer
   * shown a view sends its mouse reports with INPUT. No bytes: a question, not typing.
   */
  inputAt(channel: ViewerChannel, writer: Uint8Array, at: number, data: Uint8Array): void {
    if (!this.channels.has(channel) || this.refusedAsReadOnly(channel)) return;
    if (data.length > 0) {
      this.sizes.input(channel);
      this.applyPolicy();
    }
    let taken: Promise<number>;
    try {
      taken = this.options.writeInputAt(writer, at, data);
    } catch (err) {
      // No holder to take it (the session is not running): as if it had gone away.
      taken = Promise.reject(err);
    }
    taken.then(
      (total) => {
        if (!this.channels.has(channel) || total <= (this.takenSent.get(channel) ?? -1)) return;
        this.takenSent.set(channel, total);
        channel.sendEvent({ type: 'input-taken', channel: channel.channel, total });
      },
      // The session ended or its holder went away first: not this viewer's fault. It keeps the
      // bytes INPUT_TAKEN has not covered and sends them again (to the next server, if any).
      () => undefined,
    );
  }

  /** The viewer's own terminal (or pane) changed size: the policy may follow, and its view does. */
  resize(channel: ViewerChannel, size: TerminalSize): void {
    if (!this.channels.has(channel)) return;
    this.sizes.resize(channel, size);
    this.applyPolicy();
    channel.showView(this.viewFor(channel));
    this.updateInputRoutes();
  }

  /**
   * The PTY has a new size (the policy's choice, or a resize through the
   * API): every viewer hears it (RESIZE), and each terminal viewer is shown
   * the stream if its size is the PTY's now, else a view for its size.
   */
  ptyResized(): void {
    const size = this.size;
    if (size === null) return;
    this.broadcast((ch) => ({ type: 'resize', channel: ch, cols: size.cols, rows: size.rows }));
    for (const ch of this.channels) {
      ch.showView(this.viewFor(ch));
      ch.sessionResized();
    }
    this.updateInputRoutes();
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

  /**
   * The session's program ended: every viewer is sent the output it is still
   * owed, then `last` (EXIT), then CLOSED (ViewerChannel.end). Viewers that
   * subscribe afterwards are shown the final screen as any other.
   */
  endAll(last: ((channel: number) => FrameFromServer) | null, reason: CloseReason, message: string): void {
    for (const ch of [...this.channels]) {
      // The size stays as it is: the program is gone.
      ch.end({ last: last?.(ch.channel) ?? null, reason, message, then: () => this.forget(ch, { keepSize: true }) });
    }
  }

  /** The viewers go at once (the server stops): every one gets CLOSED. */
  closeAll(reason: CloseReason, message = ''): void {
    for (const ch of [...this.channels]) {
      // All of them go: the size stays as it is (a server stopping must not resize for the next).
      this.forget(ch, { keepSize: true });
      ch.close(reason, message);
    }
  }

  /** A read-only viewer's input is refused out loud (not fatal: it may go on watching). */
  private refusedAsReadOnly(channel: ViewerChannel): boolean {
    if (!this.readOnly.has(channel)) return false;
    channel.sendEvent({ type: 'error', channel: channel.channel, code: ViewerErrorCode.READ_ONLY, message: 'this viewer is read-only' });
    return true;
  }

  private forget(channel: ViewerChannel, options: { keepSize?: boolean } = {}): void {
    if (!this.channels.delete(channel)) return;
    this.rememberWindow(channel);
    this.sizes.leave(channel);
    if (options.keepSize !== true) this.applyPolicy();
    this.trim();
    this.updateInputRoutes();
  }

  /**
   * A closing channel's window holds the history rows that had scrolled off
   * by the seq its terminal parsed. Shown a view or a kept screen, or with
   * its position unknown, the window keeps what it was remembered to hold:
   * its next attach is sent rows it may have, never a hole.
   */
  private rememberWindow(channel: ViewerChannel): void {
    const window = this.windowOf.get(channel);
    const seq = channel.streamParsedSeq;
    if (window === undefined || seq === null) return;
    const top = this.options.topRowAt?.(seq);
    if (top === undefined || this.windows.heldRow(window) === top - 1) return;
    this.windows.remember(window, top - 1);
    this.options.windowRemembered?.();
  }

  /** Every attached window's rows as if its viewer left now: for the checkpoint a stopping server writes. */
  rememberAttachedWindows(): void {
    for (const ch of this.channels) this.rememberWindow(ch);
  }

  /** The rows each window holds, for a checkpoint (WindowRows.entries). */
  get windowsHeld(): Array<[string, number]> {
    return this.windows.entries();
  }

  /** A checkpoint's windowsHeld, when its screen (and so its row numbers) is the one the session goes on with. */
  restoreWindows(saved: unknown): void {
    this.windows.restore(saved);
  }

  /** The screen was rebuilt from the holder's ring: row numbers start again, no window's are known. */
  forgetWindows(): void {
    this.windows.clear();
  }

  /** Asks the PTY for the size the policy wants, if it is not that size already. */
  private applyPolicy(): void {
    const wanted = this.sizes.desired();
    if (wanted === null) return;
    const now = this.size;
    if (now !== null && now.cols === wanted.cols && now.rows === wanted.rows) return;
    this.lastAsked = wanted;
    this.options.resizePty(wanted);
    // A session that tells no size (tests, a bare log) hears of its resize only here.
    if (this.options.ptySize === undefined) this.ptyResized();
  }

  /** A terminal viewer's size when it is not the PTY's (it is then shown a view), else null. */
  private viewFor(channel: ViewerChannel): TerminalSize | null {
    if (!this.terminals.has(channel)) return null;
    const mine = this.sizes.viewerSize(channel);
    const pty = this.size;
    if (mine === null || pty === null || (mine.cols === pty.cols && mine.rows === pty.rows)) return null;
    return mine;
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
