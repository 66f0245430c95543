import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  FrameReaderState,
  OP_BINARY,
  OP_CLOSE,
  OP_CONTINUATION,
  OP_PING,
  OP_PONG,
  OP_TEXT,
  WebSocketFrameReader,
  unmask,
  type FrameViolation,
} from './websocket-frame-reader.js';

type Event = { message: string } | { ping: string } | { close: number | null; reason: string } | { violation: FrameViolation };

/** A reader and what it reported, payloads as hex so events compare with deepEqual. */
function reader(maxMessageBytes = 1024 * 1024): { r: WebSocketFrameReader; events: Event[] } {
  const events: Event[] = [];
  const r = new WebSocketFrameReader(
    { maxMessageBytes },
    {
      onMessage: (m) => events.push({ message: Buffer.from(m).toString('hex') }),
      onPing: (p) => events.push({ ping: Buffer.from(p).toString('hex') }),
      onClose: (close, reason) => events.push({ close, reason }),
      onViolation: (violation) => events.push({ violation }),
    },
  );
  return { r, events };
}

/** A client's frame (masked unless told), built by hand as the RFC lays it out. */
function frame(opcode: number, payload: Uint8Array, o: { fin?: boolean; mask?: Buffer | null; rsv?: number; length?: bigint } = {}): Buffer {
  const mask = o.mask === undefined ? randomBytes(4) : o.mask;
  const length = o.length ?? BigInt(payload.length);
  const ext = length < 126n ? 0 : length < 0x10000n ? 2 : 8;
  const head = Buffer.alloc(2 + ext);
  head[0] = (o.fin === false ? 0 : 0x80) | ((o.rsv ?? 0) << 4) | opcode;
  head[1] = (mask ? 0x80 : 0) | (ext === 0 ? Number(length) : ext === 2 ? 126 : 127);
  if (ext === 2) head.writeUInt16BE(Number(length), 2);
  if (ext === 8) head.writeBigUInt64BE(length, 2);
  const body = Buffer.from(payload);
  if (mask) for (let i = 0; i < body.length; i++) body[i] = body[i]! ^ mask[i & 3]!;
  return Buffer.concat([head, mask ?? Buffer.alloc(0), body]);
}

const hex = (b: Uint8Array | string): string => Buffer.from(b).toString('hex');
const bytes = (n: number, seed = 1): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));
const closePayload = (code: number, reason = ''): Buffer => Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason)]);

/** Feeds `stream` cut at the given offsets (each piece a fresh buffer, as socket reads are). */
function feed(stream: Buffer, cuts: number[], maxMessageBytes?: number): Event[] {
  const { r, events } = reader(maxMessageBytes);
  let from = 0;
  for (const cut of [...cuts, stream.length]) {
    r.push(Buffer.from(stream.subarray(from, cut)));
    from = cut;
  }
  return events;
}

test("RFC 6455 §5.7's masked \"Hello\" (as a binary frame) is read; its masked pong is read and ignored", () => {
  const { r, events } = reader();
  // §5.7's single-frame masked text message, with the opcode made binary: the viewer protocol is binary only.
  r.push(Buffer.from([0x82, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]));
  // §5.7's masked pong "Hello".
  r.push(Buffer.from([0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]));
  assert.deepEqual(events, [{ message: hex('Hello') }]);
  assert.equal(r.state, FrameReaderState.GET_INFO);
});

test("RFC 6455 §5.7's text message is refused as text (1003) at its header, and the unmasked ones as malformed (1002)", () => {
  const text = feed(Buffer.from([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d]), []);
  assert.deepEqual(text, [{ violation: { kind: 'text', closeCode: 1003, reason: 'viewer frames are binary WebSocket messages, not text' } }]);
  // §5.7's unmasked text "Hello" and unmasked ping "Hello": a client must mask.
  for (const unmasked of [[0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]]) {
    const events = feed(Buffer.from(unmasked), []);
    assert.equal(events.length, 1);
    const v = (events[0] as { violation: FrameViolation }).violation;
    assert.equal(v.kind, 'malformed');
    assert.equal(v.closeCode, 1002);
    assert.match(v.reason, /unmasked/);
  }
});

test("RFC 6455 §5.7's 256-byte and 64 KiB binary messages (16- and 64-bit lengths) come out whole", () => {
  const small = bytes(256);
  const large = bytes(65536, 7);
  // The RFC's headers for them, masked as a client sends.
  const h16 = frame(OP_BINARY, small);
  assert.deepEqual([...h16.subarray(0, 4)], [0x82, 0xfe, 0x01, 0x00]);
  const h64 = frame(OP_BINARY, large);
  assert.deepEqual([...h64.subarray(0, 10)], [0x82, 0xff, 0, 0, 0, 0, 0, 1, 0, 0]);
  assert.deepEqual(feed(Buffer.concat([h16, h64]), []), [{ message: hex(small) }, { message: hex(large) }]);
});

/** Frames of every kind the reader passes on, back to back, and what it must report for them. */
function mixedStream(): { stream: Buffer; expected: Event[] } {
  const a = bytes(5, 3);
  const parts = [bytes(40, 11), bytes(1, 12), bytes(130, 13)];
  const b = bytes(300, 17);
  const stream = Buffer.concat([
    frame(OP_BINARY, a),
    // A fragmented message with a ping and a pong between its fragments (§5.4).
    frame(OP_BINARY, parts[0]!, { fin: false }),
    frame(OP_PING, Buffer.from('are you there')),
    frame(OP_CONTINUATION, parts[1]!, { fin: false }),
    frame(OP_PONG, Buffer.from('unasked')),
    frame(OP_CONTINUATION, parts[2]!),
    frame(OP_BINARY, Buffer.alloc(0)),
    frame(OP_BINARY, b),
    frame(OP_CLOSE, closePayload(1000, 'bye')),
  ]);
  const expected: Event[] = [
    { message: hex(a) },
    { ping: hex('are you there') },
    { message: hex(Buffer.concat(parts)) },
    { message: '' },
    { message: hex(b) },
    { close: 1000, reason: 'bye' },
  ];
  return { stream, expected };
}

test('the same events whatever the chunking: cut at every offset, a byte at a time, and in random pieces', () => {
  const { stream, expected } = mixedStream();
  assert.deepEqual(feed(stream, []), expected);
  for (let cut = 1; cut < stream.length; cut++) assert.deepEqual(feed(stream, [cut]), expected, `cut at ${cut}`);
  assert.deepEqual(feed(stream, Array.from({ length: stream.length - 1 }, (_, i) => i + 1)), expected, 'a byte at a time');
  for (let round = 0; round < 200; round++) {
    const cuts = [...new Set(Array.from({ length: 1 + (round % 20) }, () => 1 + Math.floor(Math.random() * (stream.length - 1))))].sort((x, y) => x - y);
    assert.deepEqual(feed(stream, cuts), expected, `cuts ${cuts.join(',')}`);
  }
});

test('a large message spanning many reads is gathered whole, a byte at a time or in odd-sized pieces', () => {
  const big = bytes(200_000, 5);
  const stream = Buffer.concat([frame(OP_BINARY, big), frame(OP_BINARY, bytes(3))]);
  const expected = [{ message: hex(big) }, { message: hex(bytes(3)) }];
  assert.deepEqual(feed(stream, Array.from({ length: stream.length - 1 }, (_, i) => i + 1)), expected);
  for (const piece of [3, 4097, 65536]) {
    const cuts = [];
    for (let at = piece; at < stream.length; at += piece) cuts.push(at);
    assert.deepEqual(feed(stream, cuts), expected, `pieces of ${piece}`);
  }
});

test('unmask matches a byte-by-byte XOR at every alignment and length, in place', () => {
  const mask = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
  const backing = bytes(300, 9);
  for (let offset = 0; offset < 8; offset++) {
    for (const length of [0, 1, 3, 4, 5, 31, 32, 33, 64, 67, 200, 291]) {
      const copy = Buffer.from(backing);
      const view = copy.subarray(offset, offset + length);
      unmask(view, mask);
      const want = Buffer.from(backing.subarray(offset, offset + length)).map((v, i) => v ^ mask[i & 3]!);
      assert.equal(hex(view), hex(want), `offset ${offset}, length ${length}`);
      // Nothing outside the view is touched.
      assert.equal(hex(copy.subarray(0, offset)), hex(backing.subarray(0, offset)));
      assert.equal(hex(copy.subarray(offset + length)), hex(backing.subarray(offset + length)));
    }
  }
});

test('a message over the limit is refused at its header, before its payload arrives (1009)', () => {
  const limit = 1000;
  const { r, events } = reader(limit);
  // Only the header of a 1001-byte frame: the refusal must not wait for the payload.
  r.push(frame(OP_BINARY, bytes(limit + 1)).subarray(0, 8));
  assert.deepEqual(events, [{ violation: { kind: 'too-large', closeCode: 1009, reason: 'a message of 1001 bytes is over the 1000-byte limit' } }]);
  assert.equal(r.state, FrameReaderState.STOPPED);
  // Exactly the limit passes.
  assert.deepEqual(feed(frame(OP_BINARY, bytes(limit)), [], limit), [{ message: hex(bytes(limit)) }]);
});

test('fragments that add up past the limit are refused at the fragment that crosses it', () => {
  const stream = Buffer.concat([
    frame(OP_BINARY, bytes(600), { fin: false }),
    frame(OP_CONTINUATION, bytes(400), { fin: false }),
    frame(OP_CONTINUATION, bytes(1)),
  ]);
  const events = feed(stream, [], 1000);
  assert.deepEqual(events, [{ violation: { kind: 'too-large', closeCode: 1009, reason: 'a message of more than 1000 bytes (fragmented) is over the 1000-byte limit' } }]);
});

test('huge 64-bit lengths are refused at the header: past 2^53 as too large, with the top bit set as malformed', () => {
  const huge = feed(frame(OP_BINARY, Buffer.alloc(0), { length: 1n << 60n }).subarray(0, 10), []);
  assert.equal((huge[0] as { violation: FrameViolation }).violation.kind, 'too-large');
  const topBit = feed(frame(OP_BINARY, Buffer.alloc(0), { length: 1n << 63n }).subarray(0, 10), []);
  assert.equal((topBit[0] as { violation: FrameViolation }).violation.closeCode, 1002);
});

test('each broken rule is a violation with its close code, and nothing after it is read', () => {
  const cases: Array<[string, Buffer, number, RegExp]> = [
    ['reserved bit 1 (permessage-deflate, not agreed)', frame(OP_BINARY, bytes(3), { rsv: 4 }), 1002, /reserved bits/],
    ['reserved bit 3', frame(OP_BINARY, bytes(3), { rsv: 1 }), 1002, /reserved bits/],
    ['a fragmented ping', frame(OP_PING, bytes(3), { fin: false }), 1002, /fragmented a WebSocket control frame/],
    ['a 126-byte ping', frame(OP_PING, bytes(126)), 1002, /control frame over 125 bytes/],
    ['a continuation with no message begun', frame(OP_CONTINUATION, bytes(3)), 1002, /had not begun/],
    ['a new message inside a fragmented one', Buffer.concat([frame(OP_BINARY, bytes(3), { fin: false }), frame(OP_BINARY, bytes(3))]), 1002, /before the last one ended/],
    ['opcode 3', frame(3, bytes(3)), 1002, /unknown WebSocket opcode 3/],
    ['opcode 0xb', frame(0xb, bytes(3)), 1002, /unknown WebSocket opcode 11/],
    ['a close frame of 1 byte', frame(OP_CLOSE, Buffer.from([3])), 1002, /1-byte payload/],
    ['close code 1005, which never travels', frame(OP_CLOSE, closePayload(1005)), 1002, /invalid code 1005/],
    ['close code 2999', frame(OP_CLOSE, closePayload(2999)), 1002, /invalid code 2999/],
    ['a close reason that is not UTF-8', frame(OP_CLOSE, Buffer.concat([closePayload(1000), Buffer.from([0xc3, 0x28])])), 1007, /not UTF-8/],
    ['a text message in a fragment', frame(OP_TEXT, bytes(3), { fin: false }), 1003, /not text/],
  ];
  for (const [what, bad, code, reason] of cases) {
    const { r, events } = reader();
    r.push(Buffer.concat([frame(OP_BINARY, bytes(2)), bad, frame(OP_BINARY, bytes(4))]));
    r.push(frame(OP_BINARY, bytes(5)));
    assert.equal(events.length, 2, `${what}: ${JSON.stringify(events)}`);
    assert.deepEqual(events[0], { message: hex(bytes(2)) }, what);
    const v = (events[1] as { violation: FrameViolation }).violation;
    assert.ok(v, what);
    assert.equal(v.closeCode, code, what);
    assert.match(v.reason, reason, what);
  }
});

test('a close frame with no code, and one with a code and a UTF-8 reason; nothing after a close is read', () => {
  assert.deepEqual(feed(Buffer.concat([frame(OP_CLOSE, Buffer.alloc(0)), frame(OP_BINARY, bytes(2))]), []), [{ close: null, reason: '' }]);
  assert.deepEqual(feed(frame(OP_CLOSE, closePayload(4001, 'fini — done')), []), [{ close: 4001, reason: 'fini — done' }]);
  // TextDecoder drops a leading byte-order mark unless told not to; a reason keeps it.
  assert.deepEqual(feed(frame(OP_CLOSE, closePayload(1000, '\ufeffa')), []), [{ close: 1000, reason: '\ufeffa' }]);
});

test('a message taken from inside a chunk is unmasked in place and its bytes stay as delivered', () => {
  const got: Buffer[] = [];
  const r2 = new WebSocketFrameReader({ maxMessageBytes: 1 << 20 }, { onMessage: (m) => got.push(m), onPing: () => undefined, onClose: () => undefined, onViolation: () => undefined });
  const payload = bytes(100, 2);
  const chunk = Buffer.concat([frame(OP_BINARY, payload), frame(OP_BINARY, bytes(100, 3))]);
  r2.push(chunk);
  assert.equal(got.length, 2);
  assert.equal(hex(got[0]!), hex(payload));
  // A view of the chunk, not a copy: the fast path for a keystroke.
  assert.equal(got[0]!.buffer, chunk.buffer);
});
