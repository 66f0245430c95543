import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FrameWriter, chunkInput } from './frame-writer.js';
import { FrameReader } from './frame-reader.js';
import { FrameType, MAX_INBOUND_PAYLOAD_BYTES } from '../protocol/holder-frames.js';

/** Parses what the writer wrote with the same reader a holder's bytes go through. */
function framesOf(written: Uint8Array[]): Array<{ type: number; payload: Uint8Array }> {
  const reader = new FrameReader({
    maxPayloadBytes: MAX_INBOUND_PAYLOAD_BYTES,
    acceptedTypes: new Set(Object.values(FrameType)),
  });
  for (const w of written) reader.push(w);
  const out = [];
  for (let f = reader.next(); f; f = reader.next()) out.push(f);
  assert.ok(reader.atFrameBoundary);
  return out;
}

describe('FrameWriter', () => {
  test('cuts 200 KiB of INPUT into frames of at most 64 KiB that join to the original bytes', () => {
    const written: Uint8Array[] = [];
    const writer = new FrameWriter({ write: (b) => (written.push(b), true) });
    const input = new Uint8Array(200 * 1024).map((_, i) => (i * 7) & 0x7f);
    writer.input(input);
    const frames = framesOf(written);
    assert.equal(frames.length, 4);
    for (const f of frames) {
      assert.equal(f.type, FrameType.INPUT);
      assert.ok(f.payload.byteLength <= MAX_INBOUND_PAYLOAD_BYTES);
    }
    assert.deepEqual(Buffer.concat(frames.map((f) => f.payload)), Buffer.from(input));
  });

  test('never cuts INPUT inside a UTF-8 sequence', () => {
    // 3-byte characters: 64 KiB is not a multiple of 3, so a naive cut splits one.
    const text = '한'.repeat(50_000);
    const bytes = new TextEncoder().encode(text);
    const pieces = chunkInput(bytes);
    assert.ok(pieces.length > 1);
    for (const p of pieces) {
      assert.ok(p.byteLength <= MAX_INBOUND_PAYLOAD_BYTES);
      assert.equal(new TextDecoder('utf-8', { fatal: true }).decode(p).length, p.byteLength / 3);
    }
    assert.equal(Buffer.concat(pieces).toString('utf8'), text);
  });

  test('cuts bytes that are not UTF-8 at the limit, losing none', () => {
    const bytes = new Uint8Array(70_000).fill(0x80);
    const pieces = chunkInput(bytes);
    assert.deepEqual(pieces.map((p) => p.byteLength), [MAX_INBOUND_PAYLOAD_BYTES, 70_000 - MAX_INBOUND_PAYLOAD_BYTES]);
  });

  test('returns the sink answer for the last frame, so a caller can wait for drain', () => {
    let calls = 0;
    const writer = new FrameWriter({ write: () => ++calls < 2 });
    assert.equal(writer.input(new Uint8Array(MAX_INBOUND_PAYLOAD_BYTES + 1)), false);
    assert.equal(calls, 2);
  });

  test('writes each control frame with its type', () => {
    const written: Uint8Array[] = [];
    const writer = new FrameWriter({ write: (b) => (written.push(b), true) });
    writer.hello();
    writer.stateRequest();
    writer.acquire();
    writer.dumpSince(12);
    writer.resize(80, 24);
    writer.signal(2);
    writer.redraw();
    writer.ping(5n);
    writer.release();
    writer.kill();
    assert.deepEqual(
      framesOf(written).map((f) => f.type),
      [
        FrameType.HELLO,
        FrameType.STATE_REQ,
        FrameType.ACQUIRE,
        FrameType.DUMP_SINCE,
        FrameType.RESIZE,
        FrameType.SIGNAL,
        FrameType.REDRAW,
        FrameType.PING,
        FrameType.RELEASE,
        FrameType.KILL,
      ],
    );
  });

  test('empty INPUT writes nothing', () => {
    const written: Uint8Array[] = [];
    new FrameWriter({ write: (b) => (written.push(b), true) }).input(new Uint8Array(0));
    assert.equal(written.length, 0);
  });
});
