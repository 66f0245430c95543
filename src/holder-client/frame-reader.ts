// Splits the byte stream from a holder into frames. A resumable state machine:
// chunks of any size go in with push() (a byte at a time, or many frames in one
// chunk), whole frames come out of next() one at a time, so a paused consumer
// can stop between two frames of the same chunk. The length is checked when
// the header arrives, before anything is allocated for the payload.
//
// Stream frames (OUTPUT, REPLAY: up to 1 MiB each, so they span many socket
// reads) are not gathered into one payload: once the fixed prefix (offset,
// flags) is in, their body comes out in pieces as it arrives, each a view of
// the chunk it came in. Gathering them was a fresh allocation and a copy of
// every byte of a flood, on the loop that moves keys.

import {
  FRAME_HEADER_BYTES,
  HOLDER_TO_CONTROLLER_TYPES,
  HolderProtocolError,
  MAX_PAYLOAD_BYTES,
  frameTypeName,
} from '../protocol/holder-frames.js';

export interface RawFrame {
  type: number;
  /** The whole payload; for a piece of a stream frame, only its fixed prefix. */
  payload: Uint8Array;
  /** Set for a stream frame (FrameReaderOptions.streamed): a run of its body. */
  piece?: FramePiece;
}

export interface FramePiece {
  bytes: Uint8Array;
  /** Where `bytes` start in the body (the payload after the prefix). */
  at: number;
  /** The body ends with these bytes: the frame is complete. */
  last: boolean;
}

export const ReaderState = {
  /** Waiting for the 5 header bytes. */
  GET_HEADER: 'GET_HEADER',
  /** Header read and checked; waiting for `length` payload bytes. */
  GET_PAYLOAD: 'GET_PAYLOAD',
  /** A violation was seen; the stream cannot be resynchronised. */
  FAILED: 'FAILED',
} as const;
export type ReaderStateName = (typeof ReaderState)[keyof typeof ReaderState];

export interface FrameReaderOptions {
  /** Longest payload accepted; a longer length fails at the header. */
  maxPayloadBytes?: number;
  /** Which frame types may arrive; others fail at the header. Default: holder -> controller types. */
  acceptedTypes?: ReadonlySet<number>;
  /**
   * Frame types delivered in pieces, by the length of their fixed prefix. A
   * frame of such a type shorter than its prefix comes whole, for the
   * decoder to reject. Default: none.
   */
  streamed?: ReadonlyMap<number, number>;
}

export class FrameReader {
  private readonly maxPayloadBytes: number;
  private readonly acceptedTypes: ReadonlySet<number>;
  private readonly streamed: ReadonlyMap<number, number>;
  private readonly chunks: Uint8Array[] = [];
  /** Bytes of chunks[0] already consumed. */
  private headOffset = 0;
  private buffered = 0;
  private _state: ReaderStateName = ReaderState.GET_HEADER;
  private type = 0;
  private length = 0;
  /** For a stream frame: its prefix's length (else -1), the prefix once read, and the body bytes delivered. */
  private prefixLength = -1;
  private prefix: Uint8Array | null = null;
  private bodyAt = 0;
  private failure: HolderProtocolError | null = null;

  constructor(options: FrameReaderOptions = {}) {
    this.maxPayloadBytes = options.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
    this.acceptedTypes = options.acceptedTypes ?? HOLDER_TO_CONTROLLER_TYPES;
    this.streamed = options.streamed ?? new Map();
  }

  get state(): ReaderStateName {
    return this._state;
  }

  /** Bytes pushed but not yet returned in a frame. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /** True between frames: nothing half-read. */
  get atFrameBoundary(): boolean {
    return this._state === ReaderState.GET_HEADER && this.buffered === 0;
  }

  /**
   * Copies every byte still held out of the chunks they were pushed in, so
   * the caller may reuse its buffer (a stream frame's prefix is a copy
   * already). Mostly nothing is held: a read ends between pieces.
   */
  ownBuffered(): void {
    if (this.buffered === 0) return;
    const owned = new Uint8Array(this.buffered);
    let at = 0;
    for (let i = 0; i < this.chunks.length; i++) {
      const chunk = i === 0 ? this.chunks[0]!.subarray(this.headOffset) : this.chunks[i]!;
      owned.set(chunk, at);
      at += chunk.byteLength;
    }
    this.chunks.length = 0;
    this.headOffset = 0;
    this.chunks.push(owned);
  }

  push(chunk: Uint8Array): void {
    if (this.failure) throw this.failure;
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
  }

  /**
   * The next whole frame (or piece of a stream frame), or undefined until
   * more bytes arrive. Throws a HolderProtocolError on an oversize length or
   * an unexpected type; after that every call throws the same error.
   */
  next(): RawFrame | undefined {
    if (this.failure) throw this.failure;
    if (this._state === ReaderState.GET_HEADER) {
      if (this.buffered < FRAME_HEADER_BYTES) return undefined;
      const header = this.take(FRAME_HEADER_BYTES);
      this.type = header[0]!;
      this.length = new DataView(header.buffer, header.byteOffset, FRAME_HEADER_BYTES).getUint32(1, true);
      this.checkHeader();
      const prefixLength = this.streamed.get(this.type) ?? -1;
      this.prefixLength = this.length >= prefixLength ? prefixLength : -1;
      this.prefix = null;
      this.bodyAt = 0;
      this._state = ReaderState.GET_PAYLOAD;
    }
    if (this.prefixLength >= 0) return this.nextPiece();
    if (this.buffered < this.length) return undefined;
    const frame = { type: this.type, payload: this.take(this.length) };
    this._state = ReaderState.GET_HEADER;
    return frame;
  }

  /** A stream frame's next run of body bytes: as many as lie in the first chunk. */
  private nextPiece(): RawFrame | undefined {
    if (this.prefix === null) {
      if (this.buffered < this.prefixLength) return undefined;
      // A copy (8 or 9 bytes, once a frame): pieces outlive the chunk it came in.
      this.prefix = this.take(this.prefixLength).slice();
    }
    const bodyLength = this.length - this.prefixLength;
    const remaining = bodyLength - this.bodyAt;
    if (remaining > 0 && this.buffered === 0) return undefined;
    const n = remaining === 0 ? 0 : Math.min(remaining, this.chunks[0]!.byteLength - this.headOffset);
    const piece: FramePiece = { bytes: this.take(n), at: this.bodyAt, last: this.bodyAt + n === bodyLength };
    this.bodyAt += n;
    if (piece.last) this._state = ReaderState.GET_HEADER;
    return { type: this.type, payload: this.prefix, piece };
  }

  /**
   * The peer closed: fails with TEND_ERR_TRUNCATED if that happened inside a
   * frame, so a cut-off frame is reported rather than silently dropped.
   */
  end(): void {
    if (this.failure) return;
    if (!this.atFrameBoundary) {
      const received = this.buffered + (this.prefix === null ? 0 : this.prefixLength + this.bodyAt);
      const where =
        this._state === ReaderState.GET_PAYLOAD
          ? `${frameTypeName(this.type)} with ${received} of ${this.length} payload bytes`
          : `a header with ${this.buffered} of ${FRAME_HEADER_BYTES} bytes`;
      this.fail(new HolderProtocolError('TEND_ERR_TRUNCATED', `the holder closed the connection inside ${where}`));
      throw this.failure;
    }
  }

  private checkHeader(): void {
    if (!this.acceptedTypes.has(this.type)) {
      this.fail(
        new HolderProtocolError(
          'TEND_ERR_UNKNOWN_FRAME',
          `unexpected frame ${frameTypeName(this.type)} (length ${this.length}) from the holder`,
        ),
      );
    } else if (this.length > this.maxPayloadBytes) {
      this.fail(
        new HolderProtocolError(
          'TEND_ERR_FRAME_TOO_LARGE',
          `${frameTypeName(this.type)} frame of ${this.length} bytes exceeds the ${this.maxPayloadBytes}-byte limit`,
        ),
      );
    }
    if (this.failure) throw this.failure;
  }

  private fail(err: HolderProtocolError): void {
    this.failure = err;
    this._state = ReaderState.FAILED;
    this.chunks.length = 0;
    this.buffered = 0;
  }

  /** Removes n buffered bytes (n <= buffered); a view into the chunk when they lie in one. */
  private take(n: number): Uint8Array {
    this.buffered -= n;
    if (n === 0) return new Uint8Array(0);
    const first = this.chunks[0]!;
    const available = first.byteLength - this.headOffset;
    if (n <= available) {
      const out = first.subarray(this.headOffset, this.headOffset + n);
      this.advance(n);
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0]!;
      const step = Math.min(n - filled, chunk.byteLength - this.headOffset);
      out.set(chunk.subarray(this.headOffset, this.headOffset + step), filled);
      filled += step;
      this.advance(step);
    }
    return out;
  }

  private advance(n: number): void {
    this.headOffset += n;
    if (this.headOffset === this.chunks[0]!.byteLength) {
      this.chunks.shift();
      this.headOffset = 0;
    }
  }
}
