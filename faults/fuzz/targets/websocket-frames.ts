// The server's own WebSocket frame reader (src/server/http/websocket-frame-reader.ts),
// fed what a viewer's socket could send. The first input byte chooses how the
// rest is cut into chunks (and where in memory each chunk starts, which the
// word-at-a-time unmasking cares about), the second the message limit; the
// rest is the byte stream. The reader's refusals are onViolation calls, never
// throws, so anything thrown is a finding. Besides that:
// - it must read the stream as a plain reference reader does, written here from
//   RFC 6455 §5 with a byte-at-a-time unmask: the same messages, pings,
//   close and violation, in one chunk and in the cut ones;
// - it must never hold more of a message than the limit, nor hand one on
//   over it, nor a control payload over 125 bytes;
// - nothing comes after its close or violation, and pushing more does nothing;
// - a message handed on is the handler's to keep: later chunks must not
//   change it (a view of a chunk that the reader unmasks again would).
import { isValidCloseCode } from '../../../src/server/http/websocket-close.js';
import { MAX_CONTROL_PAYLOAD_BYTES, WebSocketFrameReader, type FrameViolation } from '../../../src/server/http/websocket-frame-reader.js';
import { Random } from '../mutate.js';
import { ContractBroken, type FuzzTarget } from '../target.js';
import { hex } from './frame-transcript.js';

/** Message limits the second input byte chooses from: the edges of the 7- and 16-bit lengths, and ones no input reaches. */
const LIMITS_BYTES = [0, 1, 2, 7, 125, 126, 127, 128, 200, 1000, 4096, 65_535, 65_536, 1 << 20];
/** Chunks are up to this many bytes: small enough that headers and payloads straddle them. */
const MAX_CHUNK_BYTES = 64;

/** The close codes a reader answers a broken rule with (websocket-close.ts, RFC 6455 §7.4.1). */
const PROTOCOL_ERROR = 1002;
const UNSUPPORTED_DATA = 1003;
const INVALID_PAYLOAD = 1007;
const MESSAGE_TOO_BIG = 1009;

/** A close reason keeps a leading U+FEFF: it is the peer's text, not a byte-order mark. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** An event as text: what either reader made of the stream, to compare. */
type Events = string[];

/**
 * What RFC 6455 §5 makes of the whole stream, read the simplest way. A rule
 * broken ends it with the close code the reader owes, checked at the byte the
 * reader can first see it: the opcode, flags and 7-bit length at the header's
 * second byte, the limit once the length is whole, a close frame's code and
 * reason once its payload is. A stream that ends inside a frame says no more.
 */
function reference(stream: Uint8Array, limit: number): Events {
  const events: Events = [];
  let at = 0;
  let inMessage = false;
  let fragments: number[] = [];
  const fail = (code: number) => events.push(`violation ${code}`);
  for (;;) {
    if (stream.length - at < 2) return events;
    const fin = (stream[at]! & 0x80) !== 0;
    const reserved = stream[at]! & 0x70;
    const opcode = stream[at]! & 0x0f;
    const masked = (stream[at + 1]! & 0x80) !== 0;
    let length = stream[at + 1]! & 0x7f;
    at += 2;
    const control = opcode >= 0x8;
    if (reserved !== 0 || !masked) return fail(PROTOCOL_ERROR), events;
    if (opcode === 0x1) return fail(UNSUPPORTED_DATA), events;
    if (![0x0, 0x2, 0x8, 0x9, 0xa].includes(opcode)) return fail(PROTOCOL_ERROR), events;
    if (control && (!fin || length > MAX_CONTROL_PAYLOAD_BYTES)) return fail(PROTOCOL_ERROR), events;
    if (opcode === 0x2 && inMessage) return fail(PROTOCOL_ERROR), events;
    if (opcode === 0x0 && !inMessage) return fail(PROTOCOL_ERROR), events;
    if (length === 126) {
      if (stream.length - at < 2) return events;
      length = stream[at]! * 256 + stream[at + 1]!;
      at += 2;
    } else if (length === 127) {
      if (stream.length - at < 8) return events;
      if (stream[at]! >= 0x80) return fail(PROTOCOL_ERROR), events;
      length = 0;
      for (let i = 0; i < 8; i++) length = length * 256 + stream[at + i]!;
      at += 8;
    }
    if (!control && fragments.length + length > limit) return fail(MESSAGE_TOO_BIG), events;
    if (stream.length - at < 4 + length) return events;
    const mask = stream.subarray(at, at + 4);
    at += 4;
    const payload: number[] = [];
    for (let i = 0; i < length; i++) payload.push(stream[at + i]! ^ mask[i % 4]!);
    at += length;
    if (opcode === 0x9) {
      events.push(`ping ${hex(Uint8Array.from(payload))}`);
    } else if (opcode === 0x8) {
      if (payload.length === 1) return fail(PROTOCOL_ERROR), events;
      const code = payload.length >= 2 ? payload[0]! * 256 + payload[1]! : null;
      if (code !== null && !isValidCloseCode(code)) return fail(PROTOCOL_ERROR), events;
      let reason: string;
      try {
        reason = utf8.decode(Uint8Array.from(payload.slice(2)));
      } catch {
        return fail(INVALID_PAYLOAD), events;
      }
      events.push(`close ${code} ${JSON.stringify(reason)}`);
      return events;
    } else if (opcode !== 0xa) {
      fragments = fragments.concat(payload);
      inMessage = !fin;
      if (fin) {
        events.push(`message ${hex(Uint8Array.from(fragments))}`);
        fragments = [];
      }
    }
  }
}

/** The reader's insides that hold a message's bytes, read to check the limit. */
interface Buffered {
  payload: Buffer | null;
  fragmentBytes: number;
  opcode: number;
}

/** Where each chunk ends and how far into its memory it starts (0 to 3 bytes off a word boundary). */
function chunking(seed: number, length: number): Array<{ size: number; offset: number }> {
  const random = new Random(seed);
  const chunks: Array<{ size: number; offset: number }> = [];
  for (let left = length; left > 0; ) {
    // Now and then an empty chunk: the reader must take it and wait.
    const size = seed === 0 ? 1 : random.chance(16) ? 0 : Math.min(left, 1 + random.below(random.chance(4) ? 4 * MAX_CHUNK_BYTES : MAX_CHUNK_BYTES));
    chunks.push({ size, offset: random.below(4) });
    left -= size;
  }
  return chunks;
}

/** What the server's reader makes of the stream cut into these chunks, checking the limit as it goes. */
function read(stream: Uint8Array, chunks: Array<{ size: number; offset: number }>, limit: number): Events {
  const events: Events = [];
  /** Each message handed on, with its bytes as they were then. */
  const kept: Array<{ message: Buffer; was: string }> = [];
  let ended = false;
  const event = (line: string) => {
    if (ended) throw new ContractBroken(`the reader went on after its close or violation: ${line.slice(0, 80)}`);
    events.push(line);
  };
  const reader = new WebSocketFrameReader(
    { maxMessageBytes: limit },
    {
      onMessage(message) {
        if (message.length > limit) throw new ContractBroken(`a message of ${message.length} bytes was handed on over the ${limit}-byte limit`);
        const was = hex(message);
        kept.push({ message, was });
        event(`message ${was}`);
      },
      onPing(payload) {
        if (payload.length > MAX_CONTROL_PAYLOAD_BYTES) throw new ContractBroken(`a ping of ${payload.length} bytes was handed on`);
        event(`ping ${hex(payload)}`);
      },
      onClose(code, reason) {
        event(`close ${code} ${JSON.stringify(reason)}`);
        ended = true;
      },
      onViolation(violation: FrameViolation) {
        if (typeof violation.reason !== 'string' || violation.reason === '') throw new ContractBroken(`a violation without a reason: ${JSON.stringify(violation)}`);
        event(`violation ${violation.closeCode}`);
        ended = true;
      },
    },
  );
  const insides = reader as unknown as Buffered;
  let at = 0;
  for (const { size, offset } of chunks) {
    // A chunk of its own memory, `offset` bytes into it, as a socket's would be.
    const chunk = Buffer.from(new ArrayBuffer(size + offset), offset, size);
    chunk.set(stream.subarray(at, at + size));
    at += size;
    reader.push(chunk);
    const gathering = insides.payload?.length ?? 0;
    if (insides.opcode < 0x8 ? insides.fragmentBytes + gathering > limit : gathering > MAX_CONTROL_PAYLOAD_BYTES || insides.fragmentBytes > limit) {
      throw new ContractBroken(`the reader holds ${insides.fragmentBytes} + ${gathering} bytes of a message, over the ${limit}-byte limit`);
    }
  }
  if (ended) {
    const state = reader.state;
    reader.push(Buffer.from([0x82, 0x80, 0, 0, 0, 0]));
    if (reader.state !== state) throw new ContractBroken(`after its close or violation the reader went from ${state} to ${reader.state}`);
  }
  for (const { message, was } of kept) {
    if (hex(message) !== was) throw new ContractBroken(`a message changed after it was handed on: ${was.slice(0, 64)} became ${hex(message).slice(0, 64)}`);
  }
  return events;
}

const show = (events: Events) => JSON.stringify(events.map((e) => e.slice(0, 80)));

export const websocketFrames: FuzzTarget = {
  name: 'websocket-frames',
  parses: "WebSocketFrameReader, the server reading a viewer's WebSocket (any chunking reads as a reference reader does)",
  fuzz(data) {
    if (data.length < 2) return;
    const seed = data[0]!;
    const limit = LIMITS_BYTES[data[1]! % LIMITS_BYTES.length]!;
    const stream = data.subarray(2);
    const expected = reference(stream, limit);
    const whole = read(stream, [{ size: stream.length, offset: seed & 3 }], limit);
    if (whole.join('\n') !== expected.join('\n')) {
      throw new ContractBroken(`the reader and the reference differ (limit ${limit}): reader ${show(whole)}, reference ${show(expected)}`);
    }
    const cut = read(stream, chunking(seed, stream.length), limit);
    if (cut.join('\n') !== whole.join('\n')) {
      throw new ContractBroken(`the stream reads differently in chunks (cut by seed ${seed}, limit ${limit}): whole ${show(whole)}, cut ${show(cut)}`);
    }
  },
  // Frame headers: FIN+binary, continuation, close, ping, pong with the mask bit and each length form; a zero mask.
  tokens: [[0x82, 0x80], [0x02, 0x80], [0x80, 0x80], [0x88, 0x82], [0x89, 0x80], [0x8a, 0x80], [0x82, 0xfe, 0x00, 0x7e], [0x82, 0xff, 0, 0, 0, 0, 0, 0, 0x01, 0x00], [0, 0, 0, 0], [0x03, 0xe8], [0xef, 0xbb, 0xbf]].map((t) => Uint8Array.from(t)),
};
