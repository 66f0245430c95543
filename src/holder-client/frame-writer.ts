// Encodes controller -> holder frames onto a byte sink (the socket). INPUT and
// INPUT_FROM of any length are cut into frames the holder accepts (at most
// MAX_INBOUND_PAYLOAD_BYTES each), never inside a UTF-8 sequence, so a
// multi-byte character typed or pasted reaches the PTY in one write.

import {
  MAX_INBOUND_PAYLOAD_BYTES,
  MAX_INPUT_FROM_BYTES,
  encodeAcquire,
  encodeDumpSince,
  encodeExec,
  encodeHello,
  encodeInput,
  encodeInputFrom,
  encodeKill,
  encodePing,
  encodeRedraw,
  encodeRelease,
  encodeResize,
  encodeSignal,
  encodeStateReq,
} from '../protocol/holder-frames.js';

export interface FrameSink {
  /** Returns false when the sink's buffer is full (the bytes are still queued). */
  write(bytes: Uint8Array): boolean;
}

const UTF8_MAX_CONTINUATION_BYTES = 3;

function isUtf8Continuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * Cuts bytes into pieces of at most maxBytes, moving each cut back (by up to 3
 * bytes) so it does not fall inside a UTF-8 sequence. Bytes that are not UTF-8
 * are cut at maxBytes.
 */
export function chunkInput(bytes: Uint8Array, maxBytes: number = MAX_INBOUND_PAYLOAD_BYTES): Uint8Array[] {
  if (maxBytes < UTF8_MAX_CONTINUATION_BYTES + 1) throw new RangeError(`chunk size ${maxBytes} is too small`);
  const out: Uint8Array[] = [];
  let start = 0;
  while (bytes.byteLength - start > maxBytes) {
    let cut = start + maxBytes;
    let back = 0;
    while (back < UTF8_MAX_CONTINUATION_BYTES && isUtf8Continuation(bytes[cut - back]!)) back++;
    // Land on the lead byte of the sequence the cut was inside, if there is one.
    if (back > 0 && !isUtf8Continuation(bytes[cut - back]!) && (bytes[cut - back]! & 0xc0) === 0xc0) cut -= back;
    out.push(bytes.subarray(start, cut));
    start = cut;
  }
  if (start < bytes.byteLength || out.length === 0) out.push(bytes.subarray(start));
  return out;
}

export class FrameWriter {
  constructor(private readonly sink: FrameSink) {}

  hello(version?: number): boolean {
    return this.sink.write(encodeHello(version));
  }
  stateRequest(): boolean {
    return this.sink.write(encodeStateReq());
  }
  acquire(): boolean {
    return this.sink.write(encodeAcquire());
  }
  release(): boolean {
    return this.sink.write(encodeRelease());
  }
  dumpSince(offset: number): boolean {
    return this.sink.write(encodeDumpSince(offset));
  }
  /** Writes one INPUT frame per chunk; returns the sink's answer for the last. */
  input(bytes: Uint8Array): boolean {
    if (bytes.byteLength === 0) return true;
    let ok = true;
    for (const piece of chunkInput(bytes)) ok = this.sink.write(encodeInput(piece));
    return ok;
  }
  /**
   * Writes the writer's bytes at..at+n-1 as INPUT_FROM frames, each with the
   * position of its first byte; no bytes is one frame, a question. Returns
   * the sink's answer for the last frame.
   */
  inputFrom(writer: Uint8Array, at: number, bytes: Uint8Array): boolean {
    if (!Number.isSafeInteger(at + bytes.byteLength)) {
      throw new RangeError(`INPUT_FROM position ${at} plus ${bytes.byteLength} bytes is beyond the largest safe integer`);
    }
    let ok = true;
    let position = at;
    for (const piece of chunkInput(bytes, MAX_INPUT_FROM_BYTES)) {
      ok = this.sink.write(encodeInputFrom(writer, position, piece));
      position += piece.byteLength;
    }
    return ok;
  }
  resize(cols: number, rows: number): boolean {
    return this.sink.write(encodeResize(cols, rows));
  }
  signal(signo: number): boolean {
    return this.sink.write(encodeSignal(signo));
  }
  redraw(): boolean {
    return this.sink.write(encodeRedraw());
  }
  kill(): boolean {
    return this.sink.write(encodeKill());
  }
  ping(token: bigint): boolean {
    return this.sink.write(encodePing(token));
  }
  exec(path: string): boolean {
    return this.sink.write(encodeExec(path));
  }
}
