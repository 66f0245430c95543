// Reads the frames a WebSocket client sends (RFC 6455 §5), for the server's
// viewer sockets. `ws` did this through a Writable stream per socket, ~70 µs of
// a keystroke's path through the server; this is a state machine fed straight
// from the socket's 'data' chunks, whatever their size: a byte at a time, or
// many frames in one chunk. A frame that sits whole in one chunk is unmasked
// in place and handed on as a view of that chunk, without a copy; one that
// spans chunks is gathered into a buffer of its announced length, which is
// checked against the limit before anything is allocated.
//
// The viewer protocol is binary messages only, so a text message is refused at
// its first header, like any broken rule; the reader then stops: the socket is
// to be failed, not resynchronised.

import { CLOSE_INVALID_PAYLOAD, CLOSE_MESSAGE_TOO_BIG, CLOSE_PROTOCOL_ERROR, CLOSE_UNSUPPORTED_DATA, isValidCloseCode } from './websocket-close.js';

export const OP_CONTINUATION = 0x0;
export const OP_TEXT = 0x1;
export const OP_BINARY = 0x2;
export const OP_CLOSE = 0x8;
export const OP_PING = 0x9;
export const OP_PONG = 0xa;

/** A control frame's payload (ping, pong, close) is at most this long (RFC 6455 §5.5). */
export const MAX_CONTROL_PAYLOAD_BYTES = 125;

/** Payloads at least this long are unmasked a 32-bit word at a time. */
const WORD_UNMASK_MIN_BYTES = 32;

export const FrameReaderState = {
  /** The first two bytes: FIN, RSV, opcode, MASK, the 7-bit length. */
  GET_INFO: 'GET_INFO',
  /** The 16-bit extended length. */
  GET_LENGTH_16: 'GET_LENGTH_16',
  /** The 64-bit extended length. */
  GET_LENGTH_64: 'GET_LENGTH_64',
  /** The 4-byte masking key. */
  GET_MASK: 'GET_MASK',
  /** The payload, gathered across chunks. */
  GET_DATA: 'GET_DATA',
  /** A rule was broken or the peer's close frame came: nothing more is read. */
  STOPPED: 'STOPPED',
} as const;
export type FrameReaderStateName = (typeof FrameReaderState)[keyof typeof FrameReaderState];

/** A rule the peer broke; the socket is to be closed with `closeCode`. */
export interface FrameViolation {
  kind: 'text' | 'too-large' | 'malformed';
  closeCode: number;
  /** What was wrong, for a person (it becomes the close frame's reason and the log line). */
  reason: string;
}

export interface FrameReaderHandlers {
  /** One whole binary message; the bytes are the handler's to keep. */
  onMessage(message: Buffer): void;
  onPing(payload: Buffer): void;
  /** The peer's close frame: its code (null when it gave none) and reason. Nothing more is read. */
  onClose(code: number | null, reason: string): void;
  /** The peer broke a rule. Nothing more is read. */
  onViolation(violation: FrameViolation): void;
}

export interface FrameReaderOptions {
  /** A longer message (the sum of its fragments) is refused when its header arrives. */
  maxMessageBytes: number;
}

/** A close reason is the peer's text: a leading U+FEFF is part of it, not a byte-order mark to drop. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class WebSocketFrameReader {
  private _state: FrameReaderStateName = FrameReaderState.GET_INFO;
  /** The header field being gathered (the extended length or the mask) when it spans chunks. */
  private readonly field = Buffer.alloc(8);
  private fieldFilled = 0;
  private fin = false;
  private opcode = 0;
  private payloadBytes = 0;
  private readonly mask = Buffer.alloc(4);
  /** The payload being gathered across chunks (GET_DATA). */
  private payload: Buffer | null = null;
  private payloadFilled = 0;
  /** The frames so far of a message that came fragmented. */
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private inMessage = false;

  constructor(private readonly options: FrameReaderOptions, private readonly handlers: FrameReaderHandlers) {}

  get state(): FrameReaderStateName {
    return this._state;
  }

  /**
   * Consumes a chunk of the socket's bytes. The chunk becomes the reader's: a
   * payload inside it is unmasked in place and may be handed on as a view.
   */
  push(chunk: Buffer): void {
    let at = 0;
    for (;;) {
      switch (this._state) {
        case FrameReaderState.GET_INFO:
          if (at >= chunk.length) return;
          if (this.fieldFilled === 1) {
            this.fieldFilled = 0;
            this.info(this.field[0]!, chunk[at]!);
            at += 1;
          } else if (chunk.length - at === 1) {
            // One byte of the two: keep it for the next chunk.
            this.field[0] = chunk[at]!;
            this.fieldFilled = 1;
            return;
          } else {
            this.info(chunk[at]!, chunk[at + 1]!);
            at += 2;
          }
          break;
        case FrameReaderState.GET_LENGTH_16:
        case FrameReaderState.GET_LENGTH_64:
        case FrameReaderState.GET_MASK:
          if (at >= chunk.length) return;
          at = this.gatherField(chunk, at);
          break;
        case FrameReaderState.GET_DATA:
          at = this.payload === null ? this.startPayload(chunk, at) : this.gatherPayload(chunk, at);
          // Still gathering: the chunk is used up.
          if (this._state === FrameReaderState.GET_DATA) return;
          break;
        case FrameReaderState.STOPPED:
          return;
      }
    }
  }

  /** The first two header bytes: checks every rule they can break. */
  private info(b0: number, b1: number): void {
    this.fin = (b0 & 0x80) !== 0;
    this.opcode = b0 & 0x0f;
    const len7 = b1 & 0x7f;
    if ((b0 & 0x70) !== 0) return this.malformed('the client set reserved bits in a WebSocket frame (no extension was agreed)');
    if ((b1 & 0x80) === 0) return this.malformed('the client sent an unmasked WebSocket frame (RFC 6455 §5.1: a client masks every frame)');
    switch (this.opcode) {
      case OP_CLOSE:
      case OP_PING:
      case OP_PONG:
        if (!this.fin) return this.malformed('the client fragmented a WebSocket control frame');
        if (len7 > MAX_CONTROL_PAYLOAD_BYTES) return this.malformed(`the client sent a WebSocket control frame over ${MAX_CONTROL_PAYLOAD_BYTES} bytes`);
        break;
      case OP_TEXT:
        return this.violation({ kind: 'text', closeCode: CLOSE_UNSUPPORTED_DATA, reason: 'viewer frames are binary WebSocket messages, not text' });
      case OP_BINARY:
        if (this.inMessage) return this.malformed('the client began a WebSocket message before the last one ended');
        break;
      case OP_CONTINUATION:
        if (!this.inMessage) return this.malformed('the client continued a WebSocket message it had not begun');
        break;
      default:
        return this.malformed(`the client sent an unknown WebSocket opcode ${this.opcode}`);
    }
    if (len7 === 126) this._state = FrameReaderState.GET_LENGTH_16;
    else if (len7 === 127) this._state = FrameReaderState.GET_LENGTH_64;
    else this.lengthKnown(len7);
  }

  /** Gathers the extended length or the mask, which may span chunks. */
  private gatherField(chunk: Buffer, at: number): number {
    const need = this._state === FrameReaderState.GET_LENGTH_16 ? 2 : this._state === FrameReaderState.GET_LENGTH_64 ? 8 : 4;
    let source = chunk;
    let from = at;
    if (this.fieldFilled === 0 && chunk.length - at >= need) {
      at += need; // whole in this chunk: read it where it lies
    } else {
      const take = Math.min(need - this.fieldFilled, chunk.length - at);
      for (let i = 0; i < take; i++) this.field[this.fieldFilled + i] = chunk[at + i]!;
      this.fieldFilled += take;
      at += take;
      if (this.fieldFilled < need) return at;
      this.fieldFilled = 0;
      source = this.field;
      from = 0;
    }
    if (this._state === FrameReaderState.GET_LENGTH_16) {
      this.lengthKnown(source.readUInt16BE(from));
    } else if (this._state === FrameReaderState.GET_LENGTH_64) {
      const high = source.readUInt32BE(from);
      const low = source.readUInt32BE(from + 4);
      if (high >= 0x8000_0000) this.malformed('the client sent a WebSocket frame length with its top bit set');
      // Past 2^53 the length is only compared with the limit, which it is over.
      else this.lengthKnown(high * 0x1_0000_0000 + low);
    } else {
      // Byte by byte: Buffer#copy's checks cost more than 4 bytes do.
      for (let i = 0; i < 4; i++) this.mask[i] = source[from + i]!;
      this._state = FrameReaderState.GET_DATA;
    }
    return at;
  }

  /** The payload's length is known: refuses one over the limit before anything is kept. */
  private lengthKnown(length: number): void {
    this.payloadBytes = length;
    if (this.opcode < 0x8) {
      const total = this.fragmentBytes + length;
      const limit = this.options.maxMessageBytes;
      if (total > limit) {
        const size = this.inMessage ? `more than ${this.fragmentBytes} bytes (fragmented)` : `${length} bytes`;
        this.violation({ kind: 'too-large', closeCode: CLOSE_MESSAGE_TOO_BIG, reason: `a message of ${size} is over the ${limit}-byte limit` });
        return;
      }
    }
    this._state = FrameReaderState.GET_MASK;
  }

  /** The header is whole: takes the payload from this chunk when it is all there, else starts gathering it. */
  private startPayload(chunk: Buffer, at: number): number {
    const length = this.payloadBytes;
    if (chunk.length - at >= length) {
      const payload = chunk.subarray(at, at + length);
      unmask(payload, this.mask);
      this.frameEnds(payload);
      return at + length;
    }
    this.payload = Buffer.allocUnsafe(length);
    this.payloadFilled = 0;
    return this.gatherPayload(chunk, at);
  }

  private gatherPayload(chunk: Buffer, at: number): number {
    const payload = this.payload!;
    const take = Math.min(payload.length - this.payloadFilled, chunk.length - at);
    chunk.copy(payload, this.payloadFilled, at, at + take);
    this.payloadFilled += take;
    at += take;
    if (this.payloadFilled === payload.length) {
      this.payload = null;
      this.payloadFilled = 0;
      unmask(payload, this.mask);
      this.frameEnds(payload);
    }
    return at;
  }

  private frameEnds(payload: Buffer): void {
    this._state = FrameReaderState.GET_INFO;
    switch (this.opcode) {
      case OP_PING:
        this.handlers.onPing(payload);
        return;
      case OP_PONG:
        return;
      case OP_CLOSE:
        this.closeFrame(payload);
        return;
    }
    if (!this.fin) {
      this.inMessage = true;
      this.fragments.push(payload);
      this.fragmentBytes += payload.length;
      return;
    }
    let message = payload;
    if (this.inMessage) {
      this.fragments.push(payload);
      message = Buffer.concat(this.fragments, this.fragmentBytes + payload.length);
      this.fragments = [];
      this.fragmentBytes = 0;
      this.inMessage = false;
    }
    this.handlers.onMessage(message);
  }

  private closeFrame(payload: Buffer): void {
    if (payload.length === 1) return this.malformed('the client sent a WebSocket close frame with a 1-byte payload');
    const code = payload.length >= 2 ? payload.readUInt16BE(0) : null;
    if (code !== null && !isValidCloseCode(code)) return this.malformed(`the client sent a WebSocket close frame with the invalid code ${code}`);
    let reason: string;
    try {
      reason = strictUtf8.decode(payload.subarray(2));
    } catch {
      return this.violation({ kind: 'malformed', closeCode: CLOSE_INVALID_PAYLOAD, reason: 'the client sent a WebSocket close reason that is not UTF-8' });
    }
    this._state = FrameReaderState.STOPPED;
    this.handlers.onClose(code, reason);
  }

  private malformed(reason: string): void {
    this.violation({ kind: 'malformed', closeCode: CLOSE_PROTOCOL_ERROR, reason });
  }

  private violation(violation: FrameViolation): void {
    this._state = FrameReaderState.STOPPED;
    this.payload = null;
    this.fragments = [];
    this.handlers.onViolation(violation);
  }
}

/**
 * XORs `bytes` with the 4-byte mask in place. Long runs go a 32-bit word at a
 * time from a 4-byte boundary of the memory, with the mask rotated to match
 * (the word is built from the mask's bytes in memory order, so the platform's
 * byte order does not matter).
 */
export function unmask(bytes: Uint8Array, mask: Uint8Array): void {
  const n = bytes.length;
  if (n < WORD_UNMASK_MIN_BYTES) {
    for (let i = 0; i < n; i++) bytes[i] = bytes[i]! ^ mask[i & 3]!;
    return;
  }
  // Bytes before the first 4-byte boundary.
  const lead = (4 - (bytes.byteOffset & 3)) & 3;
  for (let i = 0; i < lead; i++) bytes[i] = bytes[i]! ^ mask[i & 3]!;
  const keyBytes = new Uint8Array(4);
  for (let k = 0; k < 4; k++) keyBytes[k] = mask[(lead + k) & 3]!;
  const key = new Uint32Array(keyBytes.buffer)[0]!;
  const words = (n - lead) >>> 2;
  const view = new Uint32Array(bytes.buffer, bytes.byteOffset + lead, words);
  for (let w = 0; w < words; w++) view[w] = view[w]! ^ key;
  for (let i = lead + words * 4; i < n; i++) bytes[i] = bytes[i]! ^ mask[i & 3]!;
}
