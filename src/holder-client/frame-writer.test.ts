import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FrameWriter, chunkInput } from './frame-writer.js';
import { FrameReader } from './frame-reader.js';
import {
  FrameType,
  INPUT_FROM_PREFIX_BYTES,
  MAX_INBOUND_PAYLOAD_BYTES,
  MAX_INPUT_FROM_BYTES,
  WRITER_ID_BYTES,
} from '../protocol/holder-frames.js';

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

  test('cuts 200 KiB of INPUT_FROM into frames that fit the inbound limit, each at the position of its first byte', () => {
    const written: Uint8Array[] = [];
    const writer = new FrameWriter({ write: (b) => (written.push(b), true) });
    const id = new Uint8Array(WRITER_ID_BYTES).fill(0x5a);
    const input = new Uint8Array(200 * 1024).map((_, i) => (i * 7) & 0x7f);
    const start = 2 ** 40 + 3;
    writer.inputFrom(id, start, input);
    const frames = framesOf(written);
    assert.equal(frames.length, Math.ceil(input.byteLength / MAX_INPUT_FROM_BYTES));
    let expectedAt = start;
    for (const f of frames) {
      assert.equal(f.type, FrameType.INPUT_FROM);
      assert.ok(f.payload.byteLength <= MAX_INBOUND_PAYLOAD_BYTES);
      assert.deepEqual([...f.payload.subarray(0, WRITER_ID_BYTES)], [...id]);
      const at = new DataView(f.payload.buffer, f.payload.byteOffset).getBigUint64(WRITER_ID_BYTES, true);
      assert.equal(Number(at), expectedAt);
      expectedAt += f.payload.byteLength - INPUT_FROM_PREFIX_BYTES;
    }
    assert.equal(expectedAt, start + input.byteLength);
    assert.deepEqual(Buffer.concat(frames.map((f) => f.payload.subarray(INPUT_FROM_PREFIX_BYTES))), Buffer.from(input));
  });

  test('INPUT_FROM with no bytes is one frame: the question', () => {
    const written: Uint8Array[] = [];
    new FrameWriter({ write: (b) => (written.push(b), true) }).inputFrom(new Uint8Array(WRITER_ID_BYTES), 9, new Uint8Array(0));
    const frames = framesOf(written);
    assert.equal(frames.length, 1);
    assert.equal(frames[0]!.payload.byteLength, INPUT_FROM_PREFIX_BYTES);
  });

  test('INPUT_FROM writes nothing when the writer or the position is wrong', () => {
    const written: Uint8Array[] = [];
    const writer = new FrameWriter({ write: (b) => (written.push(b), true) });
    const big = new Uint8Array(MAX_INPUT_FROM_BYTES * 2);
    assert.throws(() => writer.inputFrom(new Uint8Array(15), 0, big), RangeError);
    assert.throws(() => writer.inputFrom(new Uint8Array(WRITER_ID_BYTES), Number.MAX_SAFE_INTEGER - MAX_INPUT_FROM_BYTES, big), RangeError);
    assert.throws(() => writer.inputFrom(new Uint8Array(WRITER_ID_BYTES), -1, big), RangeError);
    assert.equal(written.length, 0);
  });

  test('empty INPUT writes nothing', () => {
    const written: Uint8Array[] = [];
    new FrameWriter({ write: (b) => (written.push(b), true) }).input(new Uint8Array(0));
    assert.equal(written.length, 0);
  });
});
