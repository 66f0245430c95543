// Splits the byte stream from a holder into frames. A resumable state machine:
// chunks of any size go in with push() (a byte at a time, or many frames in one
// chunk), whole frames come out of next() one at a time, so a paused consumer
// can stop between two frames of the same chunk. The length is checked when
// the header arrives, before anything is allocated for the payload.

import {
  FRAME_HEADER_BYTES,
  HOLDER_TO_CONTROLLER_TYPES,
  HolderProtocolError,
  MAX_PAYLOAD_BYTES,
  frameTypeName,
} from '../protocol/holder-frames.js';

export interface RawFrame {
  type: number;
  payload: Uint8Array;
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
}

export class FrameReader {
  private readonly maxPayloadBytes: number;
  private readonly acceptedTypes: ReadonlySet<number>;
  private readonly chunks: Uint8Array[] = [];
  /** Bytes of chunks[0] already consumed. */
  private headOffset = 0;
  private buffered = 0;
  private _state: ReaderStateName = ReaderState.GET_HEADER;
  private type = 0;
  private length = 0;
  private failure: HolderProtocolError | null = null;

  constructor(options: FrameReaderOptions = {}) {
    this.maxPayloadBytes = options.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
    this.acceptedTypes = options.acceptedTypes ?? HOLDER_TO_CONTROLLER_TYPES;
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

  push(chunk: Uint8Array): void {
    if (this.failure) throw this.failure;
    if (chunk.byteLength === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.byteLength;
  }

  /**
   * The next whole frame, or undefined until more bytes arrive. Throws a
   * HolderProtocolError on an oversize length or an unexpected type; after
   * that every call throws the same error.
   */
  next(): RawFrame | undefined {
    if (this.failure) throw this.failure;
    if (this._state === ReaderState.GET_HEADER) {
      if (this.buffered < FRAME_HEADER_BYTES) return undefined;
      const header = this.take(FRAME_HEADER_BYTES);
      this.type = header[0]!;
      this.length = new DataView(header.buffer, header.byteOffset, FRAME_HEADER_BYTES).getUint32(1, true);
      this.checkHeader();
      this._state = ReaderState.GET_PAYLOAD;
    }
    if (this.buffered < this.length) return undefined;
    const frame = { type: this.type, payload: this.take(this.length) };
    this._state = ReaderState.GET_HEADER;
    return frame;
  }

  /**
   * The peer closed: fails with TEND_ERR_TRUNCATED if that happened inside a
   * frame, so a cut-off frame is reported rather than silently dropped.
   */
  end(): void {
    if (this.failure) return;
    if (!this.atFrameBoundary) {
      const where =
        this._state === ReaderState.GET_PAYLOAD
          ? `${frameTypeName(this.type)} with ${this.buffered} of ${this.length} payload bytes`
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
