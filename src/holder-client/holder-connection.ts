// One connection to one holder: HELLO, the lease, the output stream and the
// controls, over the holder's unix socket. It checks the stream it passes on:
// every REPLAY/OUTPUT frame must start where the previous one ended, and a
// violation closes the connection with an error instead of handing the owner
// a screen with a hole in it.
//
// Reading can be paused: the socket stops being read, the kernel buffer
// fills, the holder's unsent queue grows past its high-water mark and it stops
// reading the PTY, so the program itself is held back by a slow parser.
//
// It says HELLO with the newest protocol version; a holder started by an
// older tend refuses that with ERROR VERSION, and then it says HELLO again,
// one version lower each time, on a new connection (see speaksInputAcks).

import { connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Disposable } from '../common/lifecycle.js';
import {
  EXEC_PROTOCOL_VERSION,
  ErrorCode,
  FrameType,
  HolderProtocolError,
  INPUT_ACKS_VERSION,
  MAX_COLS,
  MAX_ROWS,
  MIN_COLS,
  MIN_ROWS,
  OLDEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
  STREAM_FRAME_PREFIX_BYTES,
  decodeHolderFrame,
  errorCodeName,
  type HolderMessage,
  type HolderState,
} from '../protocol/holder-frames.js';
import { FrameReader, type FramePiece } from './frame-reader.js';
import { FrameWriter } from './frame-writer.js';
import { Emitter } from '../common/event.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

export interface HolderConnectOptions {
  /** Covers the socket connect and the HELLO -> STATE exchange (both tries, when the holder is older). */
  timeoutMs?: number;
  /** Protocol version to announce, without the fallback to the oldest; only tests send another. */
  version?: number;
  /**
   * Read the socket into this buffer, which any number of connections may
   * share, instead of into a new one per read (Node's default). OUTPUT and
   * REPLAY bytes are then views of it, good only until their listener
   * returns: a listener that keeps them must copy them.
   */
  readBuffer?: Uint8Array;
}

export type AcquireResult = 'acquired' | { denied: string };

export interface ReplayEvent {
  /** Offset of the first byte of `bytes`. */
  offset: number;
  /** The requested offset had left the ring; bytes before `offset` are lost. */
  gap: boolean;
  /** Last frame of the replay; OUTPUT follows. */
  end: boolean;
  bytes: Uint8Array;
}

export interface OutputEvent {
  offset: number;
  bytes: Uint8Array;
}

export interface ExitEvent {
  /** -1 when killed by a signal. */
  code: number;
  /** 0 when the child exited normally. */
  signal: number;
}

export interface HolderErrorEvent {
  /** ERROR code from protocol.h (ErrorCode). */
  code: number;
  message: string;
}

export interface CloseEvent {
  /** Why it closed: null for an orderly close by the holder. */
  error: Error | null;
}

/** What dumpSince() resolves with once its replay's END has arrived. */
export interface ReplayRange {
  /** Offset of the first replayed byte (later than asked when gap). */
  from: number;
  /** Offset just past the last replayed byte: the first OUTPUT starts here. */
  to: number;
  gap: boolean;
}

/**
 * What became of an EXEC: the holder refused it (or its exec failed) and goes
 * on as it was, this connection too; or the connection closed, as a hand-over
 * closes it, and the caller connects again to find the new image.
 */
export type ExecResult = { outcome: 'refused'; reason: string } | { outcome: 'closed' };

/** The holder answered with ERROR (and closes the connection). */
export class HolderErrorReply extends Error {
  override readonly name = 'HolderErrorReply';
  constructor(
    readonly holderCode: number,
    readonly holderMessage: string,
  ) {
    super(`holder refused: ${errorCodeName(holderCode)}: ${holderMessage}`);
  }
}

export class HolderConnectionClosedError extends Error {
  override readonly name = 'HolderConnectionClosedError';
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

interface PendingDump extends Waiter<ReplayRange> {
  requested: number;
  /** Offset of this replay's first frame, once it has arrived. */
  from: number | null;
  gap: boolean;
}

export class HolderConnection implements Disposable {
  /**
   * Connects to the holder at socketPath and says HELLO; resolves once the
   * holder has answered with STATE (see lastState). A holder that refuses
   * this version (one started by an older tend) is greeted again, one
   * version lower, down to OLDEST_PROTOCOL_VERSION: every version tend has
   * shipped is still spoken.
   */
  static async connect(socketPath: string, options: HolderConnectOptions = {}): Promise<HolderConnection> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const deadlineMs = performance.now() + timeoutMs;
    for (let version = options.version ?? PROTOCOL_VERSION; ; version--) {
      const leftMs = Math.max(1, Math.round(deadlineMs - performance.now()));
      try {
        return await HolderConnection.connectWith(socketPath, options, version, leftMs);
      } catch (err) {
        const older = err instanceof HolderErrorReply && err.holderCode === ErrorCode.VERSION;
        if (!older || options.version !== undefined || version <= OLDEST_PROTOCOL_VERSION) throw err;
      }
    }
  }

  private static connectWith(
    socketPath: string,
    options: HolderConnectOptions,
    version: number,
    timeoutMs: number,
  ): Promise<HolderConnection> {
    return new Promise((resolve, reject) => {
      // With a read buffer the socket calls onRead for each read and emits no 'data'.
      let conn: HolderConnection | undefined;
      const buffer = options.readBuffer;
      const socket = buffer
        ? netConnect({ path: socketPath, onread: { buffer, callback: (n: number) => conn?.onRead(buffer.subarray(0, n), n === buffer.length) ?? true } })
        : netConnect(socketPath);
      conn = new HolderConnection(socket, socketPath, version);
      const timer = setTimeout(() => {
        conn.closeWith(new Error(`holder at ${socketPath} did not answer HELLO within ${timeoutMs} ms`));
      }, timeoutMs);
      conn.stateWaiters.push({
        resolve: () => {
          clearTimeout(timer);
          resolve(conn);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      socket.once('connect', () => conn.writer.hello(version));
    });
  }

  private readonly reader = new FrameReader({ streamed: STREAM_FRAME_PREFIX_BYTES });
  private readonly writer: FrameWriter;
  private _lastState: HolderState | null = null;
  private closed = false;
  private disposed = false;
  private paused = false;
  /** Reading stopped until the loop's next turn: this socket filled the read buffer (see onRead). */
  private yielded = false;
  private closeError: Error | null = null;
  private peerEnded = false;
  private socketGone = false;

  private readonly stateWaiters: Waiter<HolderState>[] = [];
  private readonly leaseWaiters: Waiter<AcquireResult>[] = [];
  private readonly execWaiters: Waiter<ExecResult>[] = [];
  /** EXEC was sent: nothing more goes out on this connection (the holder would lose it). */
  private execSent = false;
  private readonly pings = new Map<bigint, Waiter<number> & { sentAtMs: number }>();
  private nextPingToken = 1n;
  /** DUMP_SINCE requests whose replay END has not arrived yet, oldest first. */
  private readonly dumps: PendingDump[] = [];
  /** Offset the next OUTPUT must start at; null until a replay has ended. */
  private streamOffset: number | null = null;

  private readonly replayListeners = new Emitter<ReplayEvent>();
  private readonly outputListeners = new Emitter<OutputEvent>();
  private readonly exitListeners = new Emitter<ExitEvent>();
  private readonly holderErrorListeners = new Emitter<HolderErrorEvent>();
  private readonly closeListeners = new Emitter<CloseEvent>();
  private readonly drainListeners = new Emitter<void>();
  private readonly inputTakenListeners = new Emitter<{ writer: Uint8Array; total: number }>();

  private constructor(
    private readonly socket: Socket,
    readonly socketPath: string,
    /** The version this side said in HELLO. */
    private readonly helloVersion: number,
  ) {
    this.writer = new FrameWriter({ write: (bytes) => this.socket.write(bytes) });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.drainListeners.fire());
    socket.on('end', () => {
      this.peerEnded = true;
      this.drain();
    });
    socket.on('error', (err) => this.closeWith(new Error(`holder socket ${socketPath}: ${err.message}`)));
    socket.on('close', () => {
      this.socketGone = true;
      this.drain();
    });
  }

  /** The most recent STATE the holder sent (the answer to HELLO at least). */
  get lastState(): HolderState {
    if (!this._lastState) throw new Error('no STATE received yet');
    return this._lastState;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /**
   * The holder and this connection speak INPUT_FROM (protocol version 2):
   * input can be acknowledged once the holder has it. False for a holder
   * started by an older tend: send input() instead.
   */
  get speaksInputAcks(): boolean {
    return this.version >= INPUT_ACKS_VERSION;
  }

  /** The holder can hand over to a new binary in place (exec()): protocol version 3 and later. */
  get speaksExec(): boolean {
    return this.version >= EXEC_PROTOCOL_VERSION;
  }

  /** The protocol version both sides speak on this connection: the lower of HELLO's and STATE's. */
  get version(): number {
    return Math.min(this._lastState?.version ?? 0, this.helloVersion);
  }

  // ---- events ----

  onReplay(listener: (e: ReplayEvent) => void): Disposable {
    return this.replayListeners.on(listener);
  }
  onOutput(listener: (e: OutputEvent) => void): Disposable {
    return this.outputListeners.on(listener);
  }
  onExit(listener: (e: ExitEvent) => void): Disposable {
    return this.exitListeners.on(listener);
  }
  /** The holder sent ERROR; the connection closes right after. */
  onHolderError(listener: (e: HolderErrorEvent) => void): Disposable {
    return this.holderErrorListeners.on(listener);
  }
  /** The connection closed for any reason but dispose(). */
  onClose(listener: (e: CloseEvent) => void): Disposable {
    return this.closeListeners.on(listener);
  }

  /**
   * The holder's answer to an INPUT_FROM: the count of that writer's bytes it
   * has taken (into the PTY or its own input buffer). Answers to several
   * INPUT_FROM of one writer may arrive as one, carrying the latest count.
   */
  onInputTaken(listener: (writer: Uint8Array, total: number) => void): Disposable {
    return this.inputTakenListeners.on((e) => listener(e.writer, e.total));
  }

  /** The socket's send buffer has emptied after input() or inputFrom() returned false. */
  onDrain(listener: () => void): Disposable {
    return this.drainListeners.on(listener);
  }

  // ---- requests ----

  /** Asks for a fresh STATE. */
  state(): Promise<HolderState> {
    return this.request(this.stateWaiters, () => this.writer.stateRequest());
  }

  acquire(): Promise<AcquireResult> {
    return this.request(this.leaseWaiters, () => this.writer.acquire());
  }

  /** Round-trip time of a PING, in milliseconds. */
  ping(): Promise<number> {
    this.assertOpen();
    const token = this.nextPingToken++;
    return new Promise<number>((resolve, reject) => {
      this.pings.set(token, { resolve, reject, sentAtMs: performance.now() });
      this.writer.ping(token);
    });
  }

  /**
   * Starts (or restarts) the stream at offset: REPLAY events up to the
   * holder's offset now, then OUTPUT events. Resolves when the replay's END
   * has arrived. Frames still in flight from an earlier stream are dropped.
   * The promise never causes an unhandled rejection: a close is reported by
   * onClose as well.
   */
  dumpSince(offset: number): Promise<ReplayRange> {
    this.assertOpen();
    const done = new Promise<ReplayRange>((resolve, reject) => {
      this.dumps.push({ resolve, reject, requested: offset, from: null, gap: false });
    });
    done.catch(() => undefined);
    this.writer.dumpSince(offset);
    return done;
  }

  // ---- controls (lease holder only; the holder answers others with ERROR NOT_CONTROLLER) ----

  /**
   * Asks the holder to replace its binary with the one at `path`, keeping its
   * terminal (protocol.h, EXEC). Resolves 'refused' with the holder's reason
   * (it goes on as it was, and so does this connection), or 'closed' once the
   * connection closes, as a hand-over closes it: connect again then. Nothing
   * may be sent on this connection after it. Only when speaksExec.
   */
  exec(path: string): Promise<ExecResult> {
    this.assertOpen();
    if (!this.speaksExec) {
      throw new Error(`the holder at ${this.socketPath} speaks protocol version ${this.version}, which cannot hand over (version ${EXEC_PROTOCOL_VERSION})`);
    }
    return new Promise<ExecResult>((resolve, reject) => {
      this.execWaiters.push({ resolve, reject });
      this.writer.exec(path);
      this.execSent = true;
    });
  }

  release(): void {
    this.assertOpen();
    this.writer.release();
  }

  /** Bytes for the PTY, chunked into frames the holder accepts. False when the socket buffer is full. */
  input(bytes: Uint8Array | string): boolean {
    this.assertOpen();
    return this.writer.input(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes);
  }

  /**
   * The writer's bytes at..at+n-1, as INPUT_FROM frames: the holder takes
   * only what it has not had yet and answers with onInputTaken. No bytes:
   * a question, answered the same way. False when the socket buffer is full.
   * Only when speaksInputAcks.
   */
  inputFrom(writer: Uint8Array, at: number, bytes: Uint8Array): boolean {
    this.assertOpen();
    if (!this.speaksInputAcks) {
      throw new Error(
        `the connection to holder ${this.socketPath} speaks protocol version ${this.version}, ` +
          `which has no INPUT_FROM (version ${INPUT_ACKS_VERSION}); send input() instead`,
      );
    }
    return this.writer.inputFrom(writer, at, bytes);
  }

  resize(cols: number, rows: number): void {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < MIN_COLS || cols > MAX_COLS || rows < MIN_ROWS || rows > MAX_ROWS) {
      throw new RangeError(`terminal size ${cols}x${rows} is outside ${MIN_COLS}-${MAX_COLS} columns by ${MIN_ROWS}-${MAX_ROWS} rows`);
    }
    this.assertOpen();
    this.writer.resize(cols, rows);
  }

  /** Sends signo to the PTY's foreground process group. */
  signal(signo: number): void {
    this.assertOpen();
    this.writer.signal(signo);
  }

  /** SIGWINCH to the foreground process group, so a full-screen program repaints. */
  redraw(): void {
    this.assertOpen();
    this.writer.redraw();
  }

  /** Ends the holder: of a live child by SIGHUP then SIGKILL; of an exited one, "status recorded". */
  kill(): void {
    this.assertOpen();
    this.writer.kill();
  }

  // ---- flow ----

  /** Stops reading the socket after the frame being delivered. */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.socket.pause();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.drain();
    if (!this.paused && !this.closed && !this.yielded) this.socket.resume();
  }

  /** Closes the socket; pending requests reject, no close event fires. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closeWith(new HolderConnectionClosedError('holder connection disposed'));
  }

  // ---- internals ----

  private request<T>(queue: Waiter<T>[], send: () => void): Promise<T> {
    this.assertOpen();
    return new Promise<T>((resolve, reject) => {
      queue.push({ resolve, reject });
      send();
    });
  }

  private assertOpen(): void {
    if (this.execSent && !this.closed) {
      throw new HolderConnectionClosedError(`holder connection ${this.socketPath} is handing over to a new binary; connect again`);
    }
    if (this.closed) {
      throw new HolderConnectionClosedError(
        `holder connection ${this.socketPath} is closed${this.closeError ? `: ${this.closeError.message}` : ''}`,
      );
    }
  }

  private onData(chunk: Uint8Array): void {
    if (this.closed) return;
    try {
      this.reader.push(chunk);
    } catch (err) {
      this.closeWith(err as Error);
      return;
    }
    this.drain();
  }

  /**
   * A read into the shared read buffer: what is not delivered now is copied
   * out before the buffer is reused. True: go on reading (pause() stops the
   * socket itself).
   *
   * A read that filled the buffer (a flood: more is waiting) is the last from
   * this socket in this turn of the loop. Otherwise the loop goes on reading
   * it until it is empty, up to 32 reads, before the next socket's turn:
   * beside 20 floods a key's input and its echo each waited behind ~250 KiB
   * of every flood read ahead of them (docs/performance.md).
   */
  private onRead(chunk: Uint8Array, filled: boolean): boolean {
    this.onData(chunk);
    if (this.closed) return true;
    this.reader.ownBuffered();
    if (filled && !this.paused && !this.yielded) {
      this.yielded = true;
      this.socket.pause();
      setImmediate(() => {
        this.yielded = false;
        if (!this.paused && !this.closed) this.socket.resume();
      });
    }
    return true;
  }

  /**
   * The peer has finished (end) or the socket is gone (close). Frames still
   * buffered behind a pause are delivered on resume() first; what is left
   * after the last whole frame is a truncated frame.
   */
  private maybeFinish(): void {
    if (this.closed || this.paused || !(this.peerEnded || this.socketGone)) return;
    try {
      this.reader.end();
    } catch (err) {
      this.closeWith(err as Error);
      return;
    }
    this.closeWith(null);
  }

  /** Delivers buffered frames until paused or out of whole frames. */
  private drain(): void {
    while (!this.paused && !this.closed) {
      let message: HolderMessage;
      try {
        const frame = this.reader.next();
        if (!frame) break;
        message = decodeHolderFrame(frame.type, frame.payload);
        if (frame.piece) message = pieceOf(message, frame.piece);
      } catch (err) {
        this.closeWith(err as Error);
        return;
      }
      this.dispatch(message);
    }
    this.maybeFinish();
  }

  private dispatch(m: HolderMessage): void {
    switch (m.type) {
      case 'state':
        this._lastState = m;
        this.stateWaiters.shift()?.resolve(m);
        return;
      case 'acquired':
        return this.settleLease('acquired');
      case 'denied':
        return this.settleLease({ denied: m.reason });
      case 'replay':
        return this.onReplayFrame(m.offset, m.gap, m.end, m.bytes);
      case 'output':
        return this.onOutputFrame(m.offset, m.bytes);
      case 'input-taken':
        this.inputTakenListeners.fire({ writer: m.writer, total: m.total });
        return;
      case 'pong': {
        const waiter = this.pings.get(m.token);
        if (!waiter) return this.violation('TEND_ERR_BAD_PAYLOAD', `PONG for token ${m.token}, which was never sent`);
        this.pings.delete(m.token);
        waiter.resolve(performance.now() - waiter.sentAtMs);
        return;
      }
      case 'exit':
        this.exitListeners.fire({ code: m.code, signal: m.signal });
        return;
      case 'exec-failed': {
        const waiter = this.execWaiters.shift();
        if (!waiter) return this.violation('TEND_ERR_BAD_PAYLOAD', 'EXEC_FAILED without an EXEC');
        this.execSent = this.execWaiters.length > 0;
        waiter.resolve({ outcome: 'refused', reason: m.reason });
        return;
      }
      case 'error': {
        this.holderErrorListeners.fire({ code: m.code, message: m.message });
        this.closeWith(new HolderErrorReply(m.code, m.message));
        return;
      }
    }
  }

  private settleLease(result: AcquireResult): void {
    const waiter = this.leaseWaiters.shift();
    if (!waiter) return this.violation('TEND_ERR_BAD_PAYLOAD', 'lease answer without an ACQUIRE');
    waiter.resolve(result);
  }

  private onReplayFrame(offset: number, gap: boolean, end: boolean, bytes: Uint8Array): void {
    const dump = this.dumps[0];
    if (!dump) return this.violation('TEND_ERR_STREAM_DISCONTINUITY', `REPLAY at ${offset} without a DUMP_SINCE`);
    const superseded = this.dumps.length > 1;
    if (dump.from === null) {
      // The first frame of a replay starts where asked, or later on a gap.
      const fits = gap ? offset > dump.requested : offset === dump.requested;
      if (!fits) {
        return this.violation(
          'TEND_ERR_STREAM_DISCONTINUITY',
          `replay for DUMP_SINCE(${dump.requested}) starts at ${offset}${gap ? ' with' : ' without'} a gap`,
        );
      }
      dump.from = offset;
      dump.gap = gap;
      if (!superseded) this.streamOffset = offset;
    } else if (!superseded) {
      if (offset !== this.streamOffset) return this.discontinuity('REPLAY', offset);
      if (gap !== dump.gap) return this.violation('TEND_ERR_STREAM_DISCONTINUITY', `REPLAY at ${offset} changed its gap flag`);
    }
    if (!superseded) {
      this.streamOffset = offset + bytes.byteLength;
      this.replayListeners.fire({ offset, gap, end, bytes });
    }
    if (end) {
      this.dumps.shift();
      dump.resolve({ from: dump.from, to: offset + bytes.byteLength, gap: dump.gap });
    }
  }

  private onOutputFrame(offset: number, bytes: Uint8Array): void {
    // OUTPUT while a newer DUMP_SINCE awaits its replay belongs to the old stream.
    if (this.dumps.length > 0) return;
    if (this.streamOffset === null) return this.violation('TEND_ERR_STREAM_DISCONTINUITY', `OUTPUT at ${offset} before any replay`);
    if (offset !== this.streamOffset) return this.discontinuity('OUTPUT', offset);
    this.streamOffset = offset + bytes.byteLength;
    this.outputListeners.fire({ offset, bytes });
  }

  private discontinuity(kind: string, offset: number): void {
    const expected = this.streamOffset ?? 0;
    const what = offset > expected ? `a hole of ${offset - expected} bytes` : `${expected - offset} bytes sent twice`;
    this.violation('TEND_ERR_STREAM_DISCONTINUITY', `${kind} at ${offset}, expected ${expected}: ${what}`);
  }

  private violation(code: 'TEND_ERR_STREAM_DISCONTINUITY' | 'TEND_ERR_BAD_PAYLOAD', message: string): void {
    this.closeWith(new HolderProtocolError(code, message));
  }

  /** The one place the connection ends: rejects what waits, closes the socket, tells listeners once. */
  private closeWith(error: Error | null): void {
    if (this.closed) return;
    this.closed = true;
    this.closeError = error;
    const reason = error ?? new HolderConnectionClosedError(`holder ${this.socketPath} closed the connection`);
    for (const w of this.stateWaiters.splice(0)) w.reject(reason);
    for (const w of this.leaseWaiters.splice(0)) w.reject(reason);
    for (const w of this.execWaiters.splice(0)) w.resolve({ outcome: 'closed' });
    for (const w of this.dumps.splice(0)) w.reject(reason);
    for (const w of this.pings.values()) w.reject(reason);
    this.pings.clear();
    this.socket.destroy();
    if (!this.disposed) this.closeListeners.fire({ error });
    this.replayListeners.dispose();
    this.outputListeners.dispose();
    this.exitListeners.dispose();
    this.holderErrorListeners.dispose();
    this.closeListeners.dispose();
    this.drainListeners.dispose();
    this.inputTakenListeners.dispose();
  }
}

/**
 * A piece of a stream frame as a frame of its own: its bytes start `at` bytes
 * into the frame's body, and only the last piece of a replay's last frame ends it.
 */
function pieceOf(m: HolderMessage, piece: FramePiece): HolderMessage {
  switch (m.type) {
    case 'output':
      return { type: 'output', offset: m.offset + piece.at, bytes: piece.bytes };
    case 'replay':
      return { type: 'replay', offset: m.offset + piece.at, gap: m.gap, end: m.end && piece.last, bytes: piece.bytes };
    default:
      return m;
  }
}
