// Writes a server's WebSocket frames (RFC 6455 §5.2): FIN, the opcode, the
// length, the payload, unmasked, as a server sends them. Each frame goes to
// the socket in one write — `ws` corked a header and a payload into two, and
// each write is a trip through Node's stream machinery on the loop that moves
// keystrokes. A small payload is copied behind its header into one buffer;
// a large one (a snapshot, a flood's DATA) is not copied: its header and it
// leave corked together, in one writev.

import type { Duplex } from 'node:stream';

/** Payloads up to this size are copied behind their header (a copy is cheaper than a second write). */
export const COPY_PAYLOAD_MAX_BYTES = 64 * 1024;

/** Header bytes of an unmasked frame carrying `length` bytes. */
export function frameHeaderBytes(length: number): number {
  return length < 126 ? 2 : length < 0x1_0000 ? 4 : 10;
}

/** Writes FIN, the opcode and the length at the start of `into`; returns the header's size. */
export function writeFrameHeader(into: Buffer, opcode: number, length: number): number {
  into[0] = 0x80 | opcode;
  if (length < 126) {
    into[1] = length;
    return 2;
  }
  if (length < 0x1_0000) {
    into[1] = 126;
    into.writeUInt16BE(length, 2);
    return 4;
  }
  into[1] = 127;
  into.writeUInt32BE(Math.floor(length / 0x1_0000_0000), 2);
  into.writeUInt32BE(length >>> 0, 6);
  return 10;
}

/** One whole frame in one buffer. */
export function encodeFrame(opcode: number, payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(frameHeaderBytes(payload.length) + payload.length);
  const start = writeFrameHeader(frame, opcode, payload.length);
  frame.set(payload, start);
  return frame;
}

/** Sends one frame on the socket: one write, or a corked header and payload for a large one. */
export function writeFrame(socket: Duplex, opcode: number, payload: Uint8Array): void {
  if (payload.length <= COPY_PAYLOAD_MAX_BYTES) {
    socket.write(encodeFrame(opcode, payload));
    return;
  }
  const header = Buffer.allocUnsafe(frameHeaderBytes(payload.length));
  writeFrameHeader(header, opcode, payload.length);
  socket.cork();
  socket.write(header);
  socket.write(payload);
  socket.uncork();
}

/**
 * Buffers for frames built in place (a flood's DATA), reused once the socket
 * has written them: a new 64 KiB array per frame is fresh memory that the
 * kernel faults in and zeroes page by page, which cost far more than the copy
 * itself (with a frame's join of the log's pages, ~9 ms of the loop's CPU per
 * MB of a flood in a V8 profile; a 64 KiB copy into a buffer already touched
 * takes under 1 µs). A buffer goes back only from its write's callback, so
 * nothing queued in a socket is ever overwritten.
 */
const BUILT_FRAME_BUFFER_BYTES = 64 * 1024 + 64;
/** Spare buffers kept (2 MiB); more in flight at once are allocated and left to the collector. */
const SPARE_BUILT_FRAME_BUFFERS_MAX = 32;
const spareBuiltFrameBuffers: Buffer[] = [];

function giveBack(buffer: Buffer): void {
  if (spareBuiltFrameBuffers.length < SPARE_BUILT_FRAME_BUFFERS_MAX) spareBuiltFrameBuffers.push(buffer);
}

/**
 * Sends one frame whose payload `build` writes into `into` from `at`
 * (exactly payloadBytes), in one write. Small enough frames are built in a
 * reused buffer; a larger one in a new one.
 */
export function writeBuiltFrame(socket: Duplex, opcode: number, payloadBytes: number, build: (into: Uint8Array, at: number) => void): void {
  const total = frameHeaderBytes(payloadBytes) + payloadBytes;
  const pooled = total <= BUILT_FRAME_BUFFER_BYTES;
  const buffer = pooled ? (spareBuiltFrameBuffers.pop() ?? Buffer.allocUnsafe(BUILT_FRAME_BUFFER_BYTES)) : Buffer.allocUnsafe(total);
  const at = writeFrameHeader(buffer, opcode, payloadBytes);
  build(buffer, at);
  socket.write(pooled ? buffer.subarray(0, total) : buffer, pooled ? () => giveBack(buffer) : undefined);
}
