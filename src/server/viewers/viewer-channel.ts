// One viewer's subscription to one session: what it has been sent, what it has
// acknowledged, and therefore what it is sent next. The session's output goes
// into an OutputLog; each channel reads from the log at its own pace, so a
// slow viewer never holds back the program or the other viewers — it waits
// alone above the high-water mark, and if it falls too far behind it is given
// a fresh snapshot instead of an endless replay.
//
// Nothing here touches a socket or a terminal: the owner injects send() and
// takeSnapshot(), and wires the channel to a WebSocket and to the session's
// screen.

import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import {
  CloseReason,
  ViewerErrorCode,
  type FrameFromServer,
  type ResumePoint,
  type ScreenModes,
} from '../../protocol/viewer-frames.js';
import { DEFAULT_FLOW_LIMITS, realTimers, type FlowLimits, type Timers } from './flow-limits.js';
import type { OutputLog } from './output-log.js';
import type { ViewWindow } from './view-mouse.js';
import type { AgentInfo } from '../../protocol/api/agents.js';

/** A rendering of the session's screen and the stream position it was rendered at. */
export interface Snapshot {
  seq: number;
  cols: number;
  rows: number;
  modes: ScreenModes;
  /** Serialized screen, applied by the viewer as reset + data in one write. */
  data: string;
  /** Sent as TITLE after the snapshot: the serialized screen has no title. */
  title?: string;
  /** The row number of the snapshot's top scrollback row (history older than it is asked for by row). */
  firstRow?: number;
  /** Bytes are known to be missing from this screen (a ring gap): sent as STATE { degraded: true } after it. */
  degraded?: boolean;
  /** A view rendered for the viewer's size (request.view), not the session's screen itself. */
  view?: boolean;
  /** The session's agent, sent as STATE { agent } after the snapshot (and again on each change). */
  agent?: AgentInfo;
  /** A view's place in the session: mouse reports from the viewer are moved by it (view-mouse.ts). */
  viewWindow?: ViewWindow;
}

export interface SnapshotRequest {
  /**
   * The snapshot must be rendered at this seq or later: the viewer may already
   * have acked bytes up to it, and acks never go backwards.
   */
  atLeastSeq: number;
  /**
   * The screen alone, no scrollback: for a viewer whose terminal already
   * holds the history (its own scrollback), which must not get it twice.
   */
  screenOnly?: boolean;
  /**
   * The viewer's terminal holds the history up to this row (a window it was
   * streamed to before): the snapshot's scrollback is only of rows after it.
   */
  historyAfterRow?: number;
  /**
   * Render the screen as a terminal of this size shows it (cropped or
   * padded, painted in place): the viewer's terminal is not the session's size.
   */
  view?: { cols: number; rows: number };
}

/** How a subscription wants to be started besides its resume point. */
export interface StartOptions {
  /** The viewer's terminal holds this session's history already (it painted it before): its snapshots are the screen alone. */
  keepsHistory?: boolean;
  /** The viewer drew over its screen while away: once replayed, it gets a screen-only snapshot too. */
  repaint?: boolean;
  /**
   * The viewer's terminal holds the history up to this row (the server
   * remembers its window): its first snapshot's scrollback is of the rows
   * after it only. Not with keepsHistory, whose snapshots have none.
   */
  historyAfterRow?: number;
  /**
   * Whether the viewer's terminal holds the session's history so far
   * (default: keepsHistory, the viewer's word). A repaint's channel takes the
   * channel it replaces' account: a viewer that was shown only views says it
   * keeps a history its terminal never got.
   */
  holdsHistory?: boolean;
}

/** Why a channel starts from (or falls back to) a snapshot. */
export type SnapshotReason =
  | 'no-resume' // a first attach
  | 'other-stream' // the viewer's seq belongs to another stream (another holder, or a server boot of a session without one)
  | 'ahead' // the viewer claims bytes this stream never produced
  | 'too-old' // the bytes after the viewer's seq have been trimmed away
  | 'owes-too-much' // replay would be longer than replayMaxBytes
  | 'lagging' // came out of a pause owing more than lagSnapshotBytes
  | 'repaint' // replayed, and the viewer asked for its screen to be repainted
  | 'view' // the viewer's terminal is not the session's size: a view for its size
  | 'view-repaint' // the screen changed under a viewer shown views
  | 'resized' // the viewer's terminal is the session's size again: the stream resumes
  | 'frozen' // the session's screen is frozen (its agent sleeps): the kept screen, no stream
  | 'thawed'; // the freeze is over: the live screen, and the stream goes on from it

export type StartDecision = { mode: 'replay'; fromSeq: number } | { mode: 'snapshot'; reason: SnapshotReason };

export interface ViewerChannelOptions {
  channel: number;
  /**
   * The id of the stream the log's seqs belong to (the holder's generation,
   * or the server boot): a resume point of another stream is not trusted.
   */
  stream: string;
  log: OutputLog;
  /**
   * One frame to the viewer. A DATA frame's bytes are good only during the
   * call (a view of the log, or of a scratch buffer the next frame reuses):
   * encode or copy them before returning.
   */
  send(frame: FrameFromServer): void;
  takeSnapshot(request: SnapshotRequest): Snapshot | Promise<Snapshot>;
  /** Called once when the channel ends by itself (a bad ack, a failed snapshot). */
  onClosed?(reason: CloseReason, message: string): void;
  limits?: Partial<FlowLimits>;
  timers?: Timers;
}

/**
 * Where a DATA frame's bytes are gathered when they lie in several of the
 * log's pages. One for every channel: a frame is encoded before the next is
 * read (see send), and a buffer used again costs less than a new one.
 */
let dataScratch = new Uint8Array(0);

function scratchFor(bytes: number): Uint8Array {
  if (dataScratch.length < bytes) dataScratch = new Uint8Array(bytes);
  return dataScratch;
}

/** How a channel ends once its viewer has been sent everything (see end()). */
export interface ChannelEnding {
  /** Sent after the last output and before CLOSED (the session's EXIT), or null. */
  last: FrameFromServer | null;
  reason: CloseReason;
  message: string;
  /** Called once the channel has closed this way. */
  then(): void;
}

/** After this many snapshots in a row whose seq the log no longer holds, give up. */
const SNAPSHOT_ATTEMPTS_MAX = 3;

export class ViewerChannel extends DisposableBase {
  readonly channel: number;
  private readonly limits: FlowLimits;
  private readonly timers: Timers;
  private readonly opts: ViewerChannelOptions;

  /** The next byte to send is at this seq; null until the start decision. */
  private nextSeq: number | null = null;
  /** The highest seq the viewer was ever told about (DATA end or SNAPSHOT seq). */
  private sentMax: number | null = null;
  /** The viewer's last valid ack, or its starting point before any ack. */
  private acked: number | null = null;
  /** The viewer has sent an ack (acked is then its own, not the starting point). */
  private viewerAcked = false;
  // Unacknowledged bytes are counted exactly from three numbers: the stream
  // restarted at segmentStart (a snapshot's seq, or the replay's start), the
  // snapshot text cost segmentSnapshotBytes, and before it the viewer had been
  // sent up to sentBeforeSegment (it still parses those old frames first).
  private segmentStart = 0;
  private segmentSnapshotBytes = 0;
  private sentBeforeSegment = 0;
  /** A snapshot was sent and no ack has reached its seq yet. */
  private snapshotUnacked = false;
  private pausedForAcks = false;
  private snapshotting = false;
  private coalesceTimer: unknown = null;
  private closed = false;
  private decision: StartDecision | null = null;
  private snapshots = 0;
  private snapshotFirstRow: number | null = null;
  private lastReason: SnapshotReason | null = null;
  // Views (see showView): the size they are rendered at (null: the stream
  // is sent), the seqs of views sent and not acked, whether output came
  // since the last one, and the pause between repaints while output flows.
  private view: { cols: number; rows: number } | null = null;
  private viewsUnacked: number[] = [];
  private viewOwed = false;
  private viewCooldown: unknown = null;
  private lastViewWindow: ViewWindow | null = null;
  /** The mode changed while a snapshot was being rendered: render again when it is done. */
  private modeChanged = false;
  /** Snapshots for this viewer carry the screen alone (its terminal holds the history). */
  private screenOnly = false;
  /** Until a snapshot of the stream is sent: the last history row the viewer's terminal holds (StartOptions). */
  private historyAfterRow: number | null = null;
  /**
   * The viewer's terminal holds the session's history up to where it is: it
   * kept it (keepsHistory), or was sent a snapshot of the stream with
   * scrollback. Not after a screen-only one alone (a viewer that began on
   * views and then took the PTY's size): its scrollback lacks the rows before.
   */
  private _holdsHistory = false;
  /**
   * The session shows a kept screen (its agent sleeps): no DATA is sent, and
   * every snapshot is of the kept screen (the session's takeSnapshot renders
   * it). The log goes on filling; thaw() repaints from the live screen.
   */
  private frozen = false;
  /** Thawed while a snapshot was rendered: the repaint after it is the thaw's. */
  private thawOwed = false;
  /** The session ended: the channel closes once the viewer has been sent what it is owed (see end()). */
  private ending: (ChannelEnding & { timer: unknown }) | null = null;

  constructor(options: ViewerChannelOptions) {
    super();
    this.opts = options;
    this.channel = options.channel;
    this.limits = { ...DEFAULT_FLOW_LIMITS, ...options.limits };
    this.timers = options.timers ?? realTimers;
    this.register(toDisposable(() => {
      this.cancelCoalesce();
      if (this.viewCooldown !== null) this.timers.clearTimeout(this.viewCooldown);
      this.viewCooldown = null;
      if (this.ending !== null) this.timers.clearTimeout(this.ending.timer);
    }));
  }

  /** How the channel started: a replay from the viewer's seq, or a snapshot and why. */
  get startDecision(): StartDecision | null {
    return this.decision;
  }

  /** How many SNAPSHOT frames this channel has sent, and why the last one was needed. */
  get snapshotCount(): number {
    return this.snapshots;
  }

  get lastSnapshotReason(): SnapshotReason | null {
    return this.lastReason;
  }

  /** The row number of the top scrollback row of the last snapshot sent (null: none sent, or not known). */
  get lastSnapshotFirstRow(): number | null {
    return this.snapshotFirstRow;
  }

  /** The seq after the last byte sent (a snapshot counts as sent up to its seq). */
  get sentSeq(): number | null {
    return this.nextSeq;
  }

  /** The viewer's last valid ack (its starting point until it acks). */
  get ackedSeq(): number | null {
    return this.acked;
  }

  /** See StartOptions.holdsHistory. */
  get holdsHistory(): boolean {
    return this._holdsHistory;
  }

  /**
   * The seq up to which the viewer's terminal has parsed the session's
   * stream, while it is shown the stream (not a view, not a kept screen),
   * holds the history before it (holdsHistory) and has acked its last
   * snapshot; null otherwise. Every history row that had scrolled off by then
   * is in that terminal's scrollback.
   */
  get streamParsedSeq(): number | null {
    if (!this._holdsHistory || this.decision === null || this.view !== null || this.frozen || this.snapshotUnacked || this.snapshotting) return null;
    return this.acked;
  }

  /** Bytes sent (stream bytes and snapshot text) and not yet acknowledged. */
  get unackedBytes(): number {
    if (this.nextSeq === null || this.acked === null) return 0;
    const acked = this.acked;
    const beforeSegment = this.snapshotUnacked ? Math.max(0, this.sentBeforeSegment - acked) + this.segmentSnapshotBytes : 0;
    return beforeSegment + (this.nextSeq - Math.max(acked, this.segmentStart));
  }

  /** True while the viewer is over the high-water mark and waits for its acks. */
  get paused(): boolean {
    return this.pausedForAcks;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The seq below which this channel no longer needs the log: its last ack.
   * Null while it starts (the log is then not trimmed for it, but bounded by
   * its cap).
   */
  get retainFromSeq(): number | null {
    return this.acked;
  }

  /** Where the last view sent sits in the session, while views are shown (null: the stream). */
  get viewWindow(): ViewWindow | null {
    return this.view === null ? null : this.lastViewWindow;
  }

  /**
   * The viewer's terminal is `size` and the session is another size (a
   * terminal viewer would wrap the session's rows over each other): send it
   * views rendered for its size, repainted as the screen changes, instead of
   * the stream. Null: the sizes match, send the stream (after one snapshot
   * of the screen, if views were being sent).
   */
  showView(size: { cols: number; rows: number } | null): void {
    const current = this.view;
    if (size === null ? current === null : current !== null && current.cols === size.cols && current.rows === size.rows) return;
    this.view = size === null ? null : { cols: size.cols, rows: size.rows };
    if (this.decision === null || this.closed) return; // start() decides
    if (this.snapshotting) this.modeChanged = true;
    else this.paintForMode();
  }

  /** The first paint of the mode the viewer is in now: a view, or the screen before the stream goes on. */
  private paintForMode(): void {
    if (this.view === null) {
      this.viewsUnacked = [];
      this.lastViewWindow = null; // its clicks are the session's cells again
    }
    const thawed = this.thawOwed;
    this.thawOwed = false;
    void this.snapshot(this.view !== null ? 'view' : this.frozen ? 'frozen' : thawed ? 'thawed' : 'resized');
  }

  /**
   * The session's screen changed size: a viewer shown views is owed one of
   * the new screen even if no output follows (a full-screen program that
   * ignores SIGWINCH writes nothing), as output would owe it.
   */
  sessionResized(): void {
    if (this.closed || this.view === null || this.decision === null) return;
    this.viewOwed = true;
    this.sendViewIfDue();
  }

  /**
   * The session's screen is kept as it is for its viewers (its agent is put
   * to sleep): no more DATA. What the viewer was sent is the kept screen
   * already when the caller froze in the same turn as it cut that screen,
   * except bytes coalescing or held back by the flow limits: those are sent
   * now when they may be, else the viewer is repainted with the kept screen.
   */
  freeze(): void {
    if (this.frozen) return;
    if (this.decision === null || this.closed) {
      this.frozen = true; // start() paints the kept screen
      return;
    }
    if (this.view === null && !this.snapshotting) this.pump();
    this.frozen = true;
    this.cancelCoalesce();
    const owed = this.nextSeq !== null && this.nextSeq < this.opts.log.endSeq;
    if (this.snapshotting) this.modeChanged = true; // the snapshot being rendered may be of the live screen
    else if (owed || this.view !== null) void this.snapshot(this.view === null ? 'frozen' : 'view');
  }

  /** The freeze is over: the live screen as it is now, then the stream from it. */
  thaw(): void {
    if (!this.frozen) return;
    this.frozen = false;
    if (this.decision === null || this.closed) return;
    if (this.snapshotting) {
      this.modeChanged = true;
      this.thawOwed = true;
    } else void this.snapshot(this.view === null ? 'thawed' : 'view');
  }

  /** Decides replay vs snapshot for a new subscription and starts the stream. */
  start(resume?: ResumePoint, options: StartOptions = {}): void {
    if (this.decision !== null) throw new Error('a viewer channel starts once');
    this.historyAfterRow = options.historyAfterRow ?? null;
    this._holdsHistory = options.holdsHistory ?? options.keepsHistory === true;
    if (this.frozen) {
      this.screenOnly = options.keepsHistory === true;
      // A replay would be bytes of the live screen, which a frozen session does not show.
      this.decision = { mode: 'snapshot', reason: 'frozen' };
      void this.snapshot('frozen');
      return;
    }
    if (this.view !== null) {
      // A replay would be the session's stream, which this viewer cannot show.
      this.decision = { mode: 'snapshot', reason: 'view' };
      void this.snapshot('view');
      return;
    }
    const log = this.opts.log;
    // A viewer whose terminal holds this session's history already (tend
    // attach painted it before: its own scrollback) must not be sent those rows again;
    // one whose window the server remembers is sent the rows after those it holds.
    this.screenOnly = options.keepsHistory === true;
    let reason: SnapshotReason;
    if (!resume) reason = 'no-resume';
    else if (resume.boot !== this.opts.stream) reason = 'other-stream';
    else if (!Number.isSafeInteger(resume.seq) || resume.seq > log.endSeq) reason = 'ahead';
    else if (resume.seq < log.startSeq) reason = 'too-old';
    else if (log.endSeq - resume.seq > this.limits.replayMaxBytes) reason = 'owes-too-much';
    else {
      this.decision = { mode: 'replay', fromSeq: resume.seq };
      this.segmentStart = resume.seq;
      this.sentBeforeSegment = resume.seq;
      this.nextSeq = resume.seq;
      this.sentMax = resume.seq;
      this.acked = resume.seq;
      // Confirms the resume even when nothing is owed: the viewer keeps its
      // screen as it is (never reset a live screen) and continues from here.
      if (log.endSeq === resume.seq) this.send({ type: 'data', channel: this.channel, seq: resume.seq, data: new Uint8Array(0) });
      else this.pump();
      // The replay fits the window (≤ replayMaxBytes), so it is all sent by
      // now; the repaint is rendered at least there and DATA goes on from it.
      if (options.repaint === true && !this.closed) void this.snapshot('repaint');
      return;
    }
    this.decision = { mode: 'snapshot', reason };
    void this.snapshot(reason);
  }

  /** The session appended output to the log: send it now, or soon, or when acks allow. */
  outputAppended(): void {
    if (this.closed || this.nextSeq === null || this.frozen) return;
    if (this.view !== null) {
      this.viewOwed = true;
      this.sendViewIfDue();
      return;
    }
    if (this.snapshotting || this.pausedForAcks) return;
    if (this.coalesceTimer !== null) return; // joins the batch already waiting
    const owed = this.opts.log.endSeq - this.nextSeq;
    if (owed <= this.limits.immediateMaxBytes) {
      this.pump();
      return;
    }
    // Whole frames need no waiting; only the remainder is coalesced.
    this.pump(this.limits.frameMaxBytes);
    if (!this.closed && !this.pausedForAcks && !this.snapshotting && this.opts.log.endSeq > this.nextSeq) {
      this.coalesceTimer = this.timers.setTimeout(() => {
        this.coalesceTimer = null;
        this.pump();
      }, this.limits.coalesceMs);
    }
  }

  /**
   * The viewer's terminal has parsed up to seq. Returns false, and closes the
   * channel with an ERROR, when the ack is not a whole number, goes backwards,
   * or passes what was sent: such an ack must never trim the log.
   */
  ack(seq: number): boolean {
    if (this.closed) return false;
    const problem = this.ackProblem(seq);
    if (problem !== null) {
      this.fail(ViewerErrorCode.BAD_ACK, problem);
      return false;
    }
    this.acked = seq;
    this.viewerAcked = true;
    if (seq >= this.segmentStart) this.snapshotUnacked = false;
    if (this.viewsUnacked.length > 0) {
      this.viewsUnacked = this.viewsUnacked.filter((viewSeq) => viewSeq > seq);
      this.sendViewIfDue();
    }
    if (this.pausedForAcks && this.unackedBytes < this.limits.lowWaterBytes) {
      this.pausedForAcks = false;
      const owed = this.opts.log.endSeq - this.nextSeq!;
      if (owed > this.limits.lagSnapshotBytes || this.nextSeq! < this.opts.log.startSeq) {
        void this.snapshot('lagging');
      } else {
        this.pump();
      }
    }
    return true;
  }

  /** Sends a non-stream frame (TITLE, EXIT, STATE, RESIZE) on this channel. */
  sendEvent(frame: FrameFromServer): void {
    if (!this.closed) this.send(frame);
  }

  /**
   * The session ended: no more output will come. The channel sends the
   * viewer what it is still owed — the last output (DATA held back for acks
   * or being coalesced), the snapshot being rendered, the view owed — then
   * `ending.last` (EXIT) and CLOSED, so a viewer's terminal shows the
   * program's last words and the exit comes after them. A viewer that does
   * not take them (no acks) is closed after endDrainMaxMs anyway.
   */
  end(ending: ChannelEnding): void {
    if (this.closed || this.ending !== null) return;
    const timer = this.timers.setTimeout(() => {
      if (!this.closed && this.ending !== null) this.finishEnding();
    }, this.limits.endDrainMaxMs);
    this.ending = { ...ending, timer };
    if (this.decision !== null && !this.snapshotting) {
      if (this.view !== null) this.sendViewIfDue();
      else if (!this.frozen && !this.pausedForAcks) this.pump();
    }
    this.endIfDrained();
  }

  /** Everything owed was sent: the stream is at the log's end, no snapshot is rendering, no view is owed. */
  private get drained(): boolean {
    if (this.decision === null || this.snapshotting) return false;
    if (this.frozen) return true;
    if (this.view !== null) return !this.viewOwed;
    return this.nextSeq !== null && this.nextSeq >= this.opts.log.endSeq;
  }

  private endIfDrained(): void {
    if (this.ending !== null && !this.closed && this.drained) this.finishEnding();
  }

  private finishEnding(): void {
    const ending = this.ending!;
    if (ending.last !== null) this.send(ending.last);
    this.close(ending.reason, ending.message);
    ending.then();
  }

  /** Ends the channel with a CLOSED frame (unsubscribe, session end, shutdown). */
  close(reason: CloseReason, message = ''): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.send({ type: 'closed', channel: this.channel, reason, message });
    this.dispose();
  }

  override dispose(): void {
    this.closed = true;
    super.dispose();
  }

  private ackProblem(seq: number): string | null {
    if (!Number.isSafeInteger(seq) || seq < 0) return `ack ${seq} is not a whole non-negative number`;
    if (this.sentMax === null) return `ack ${seq} before anything was sent`;
    if (seq < this.acked!) return `ack ${seq} goes back from ${this.acked}`;
    if (seq > this.sentMax) return `ack ${seq} is past ${this.sentMax}, the last seq sent`;
    return null;
  }

  private fail(code: ViewerErrorCode, message: string): void {
    if (this.closed) return;
    this.send({ type: 'error', channel: this.channel, code, message });
    this.close(CloseReason.PROTOCOL_VIOLATION, message);
    this.opts.onClosed?.(CloseReason.PROTOCOL_VIOLATION, message);
  }

  private send(frame: FrameFromServer): void {
    this.opts.send(frame);
  }

  private cancelCoalesce(): void {
    if (this.coalesceTimer !== null) {
      this.timers.clearTimeout(this.coalesceTimer);
      this.coalesceTimer = null;
    }
  }

  /**
   * Sends log bytes from nextSeq in frames of at most frameMaxBytes, never
   * taking the viewer past the high-water mark; stops (paused) when it is
   * reached. With minFrame, sends only frames that are at least that big.
   */
  private pump(minFrameBytes = 1): void {
    this.sendFrames(minFrameBytes);
    this.endIfDrained();
  }

  private sendFrames(minFrameBytes: number): void {
    this.cancelCoalesce();
    if (this.view !== null) return; // views only: the stream would garble this viewer
    if (this.frozen) return; // the kept screen stays as it is
    const log = this.opts.log;
    while (!this.closed && !this.snapshotting && this.nextSeq !== null) {
      const owed = log.endSeq - this.nextSeq;
      if (owed < minFrameBytes || owed <= 0) return;
      const room = this.limits.highWaterBytes - this.unackedBytes;
      if (room <= 0) {
        this.pausedForAcks = true;
        return;
      }
      const size = Math.min(owed, this.limits.frameMaxBytes, room);
      const bytes = log.read(this.nextSeq, size, scratchFor(size));
      if (bytes === 'too-old') {
        // The cap trimmed what this viewer still needed: start it over.
        void this.snapshot('too-old');
        return;
      }
      if (bytes === 'ahead') throw new Error('viewer channel is ahead of its log');
      const seq = this.nextSeq + bytes.length;
      this.nextSeq = seq;
      this.sentMax = Math.max(this.sentMax ?? seq, seq);
      this.send({ type: 'data', channel: this.channel, seq, data: bytes });
      if (this.unackedBytes >= this.limits.highWaterBytes) this.pausedForAcks = true;
    }
  }

  private async snapshot(reason: SnapshotReason, attempt = 0): Promise<void> {
    this.cancelCoalesce();
    this.lastReason = reason;
    this.snapshotting = true;
    const log = this.opts.log;
    // The snapshot cannot go below what the viewer was already told about, nor
    // below the log's start (DATA must continue from the snapshot's seq).
    const atLeastSeq = Math.max(this.sentMax ?? 0, log.startSeq);
    const view = this.view;
    if (view !== null) this.viewOwed = false; // this one shows everything written until now
    // Back from views: the viewer's own scrollback has what it had; the screen alone.
    const screenOnly = this.screenOnly || reason === 'repaint' || reason === 'resized';
    let snap: Snapshot;
    try {
      const after = !screenOnly && view === null && this.historyAfterRow !== null ? { historyAfterRow: this.historyAfterRow } : {};
      snap = await this.opts.takeSnapshot({ atLeastSeq, ...(screenOnly ? { screenOnly: true } : {}), ...(view !== null ? { view } : {}), ...after });
    } catch (err) {
      this.snapshotting = false;
      this.fail(ViewerErrorCode.INTERNAL, `could not render the screen: ${(err as Error).message}`);
      return;
    }
    if (this.closed) return;
    if (!Number.isSafeInteger(snap.seq) || snap.seq < atLeastSeq || snap.seq > log.endSeq) {
      this.snapshotting = false;
      this.fail(ViewerErrorCode.INTERNAL, `snapshot at seq ${snap.seq} is outside ${atLeastSeq}..${log.endSeq}`);
      return;
    }
    if (snap.seq < log.startSeq) {
      // The log moved on (its cap) while the screen was rendered; try again.
      if (attempt + 1 >= SNAPSHOT_ATTEMPTS_MAX) {
        this.snapshotting = false;
        this.fail(ViewerErrorCode.INTERNAL, 'the screen keeps falling behind the output log');
        return;
      }
      await this.snapshot(reason, attempt + 1);
      return;
    }
    this.snapshotting = false;
    if (this.modeChanged) {
      // Rendered for a mode (view or stream, or a view size) the viewer has left meanwhile.
      this.modeChanged = false;
      this.paintForMode();
      return;
    }
    this.snapshots++;
    if (!snap.view) {
      this.snapshotFirstRow = snap.firstRow ?? null;
      // The viewer's terminal holds the history now; later snapshots are as for any viewer.
      this.historyAfterRow = null;
      if (!screenOnly) this._holdsHistory = true;
    }
    this.send({
      type: 'snapshot',
      channel: this.channel,
      boot: this.opts.stream,
      seq: snap.seq,
      cols: snap.cols,
      rows: snap.rows,
      modes: snap.modes,
      data: snap.data,
      ...(snap.view ? { view: true as const } : {}),
    });
    // A repaint needs no title: title changes are sent as they happen.
    if (snap.title !== undefined && reason !== 'view-repaint') this.send({ type: 'title', channel: this.channel, title: snap.title });
    if (snap.degraded === true) this.send({ type: 'state', channel: this.channel, state: { degraded: true } });
    if (snap.agent !== undefined) this.send({ type: 'state', channel: this.channel, state: { agent: snap.agent } });
    this.sentBeforeSegment = this.sentMax ?? snap.seq;
    this.segmentStart = snap.seq;
    this.segmentSnapshotBytes = snap.data.length;
    this.snapshotUnacked = true;
    this.nextSeq = snap.seq;
    this.sentMax = snap.seq;
    // Acks in flight from before the snapshot stay valid (they are ≤ the old
    // sentMax ≤ snap.seq). A first snapshot is the starting point, so the
    // viewer's first ack (of the snapshot itself) may equal it.
    if (this.acked === null) this.acked = snap.seq;
    if (snap.view) {
      this.lastViewWindow = snap.viewWindow ?? null;
      this.viewSent(snap.seq);
      this.endIfDrained();
      return;
    }
    if (this.unackedBytes >= this.limits.highWaterBytes) this.pausedForAcks = true;
    this.pump();
  }

  /** A view went out: the next waits for output, a pause while output flows, and acks. */
  private viewSent(seq: number): void {
    // Views have their own limit: the stream's pause, if one was on, is over.
    this.pausedForAcks = false;
    // A view at a seq the viewer acked already (the screen had not parsed
    // further) gets no ack of its own: a viewer acks a seq once. Counted, it
    // would hold the unacked allowance for good, and the views with it.
    if (!this.viewerAcked || this.acked === null || seq > this.acked) this.viewsUnacked.push(seq);
    if (this.opts.log.endSeq > seq) this.viewOwed = true; // output came while it was rendered
    if (this.viewCooldown !== null) this.timers.clearTimeout(this.viewCooldown);
    this.viewCooldown = this.timers.setTimeout(() => {
      this.viewCooldown = null;
      this.sendViewIfDue();
    }, this.limits.viewRepaintMs);
  }

  /** Repaints a viewer shown views when output came, unless one is rendering, cooling down, or too many are unacked. */
  private sendViewIfDue(): void {
    // An ending channel's last view waits for no cooldown.
    const cooling = this.viewCooldown !== null && this.ending === null;
    if (this.closed || this.view === null || !this.viewOwed || this.snapshotting || cooling || this.frozen) return;
    if (this.viewsUnacked.length >= this.limits.viewsUnackedMax) return; // an ack brings the next
    void this.snapshot('view-repaint');
  }
}
