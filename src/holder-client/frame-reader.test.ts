import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { FrameReader, ReaderState, type RawFrame } from './frame-reader.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FrameType,
  HolderProtocolError,
  MAX_PAYLOAD_BYTES,
  ReplayFlag,
  STREAM_FRAME_PREFIX_BYTES,
  decodeHolderFrame,
  encodeFrame,
} from '../protocol/holder-frames.js';

function fixture(name: string): Uint8Array {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'test', 'fixtures', 'holder-frames'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('test/fixtures/holder-frames not found');
    dir = up;
  }
  return new Uint8Array(readFileSync(join(dir, 'test', 'fixtures', 'holder-frames', name)));
}

function outputFrame(offset: number, text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const payload = new Uint8Array(8 + bytes.byteLength);
  new DataView(payload.buffer).setBigUint64(0, BigInt(offset), true);
  payload.set(bytes, 8);
  return encodeFrame(FrameType.OUTPUT, payload);
}

function replayFrame(offset: number, flags: number, text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const payload = new Uint8Array(9 + bytes.byteLength);
  new DataView(payload.buffer).setBigUint64(0, BigInt(offset), true);
  payload[8] = flags;
  payload.set(bytes, 9);
  return encodeFrame(FrameType.REPLAY, payload);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function drain(reader: FrameReader): RawFrame[] {
  const out: RawFrame[] = [];
  for (let f = reader.next(); f; f = reader.next()) out.push(f);
  return out;
}

function summary(frames: RawFrame[]): Array<[number, number[]]> {
  return frames.map((f) => [f.type, [...f.payload]]);
}

const stream = concat([
  outputFrame(0, 'hello'),
  encodeFrame(FrameType.ACQUIRED),
  outputFrame(5, ' world, a longer payload than the header'),
  encodeFrame(FrameType.EXIT, new Uint8Array(8)),
]);

describe('FrameReader', () => {
  test('parses four frames pushed in one chunk', () => {
    const reader = new FrameReader();
    reader.push(stream);
    const frames = drain(reader);
    assert.deepEqual(frames.map((f) => f.type), [FrameType.OUTPUT, FrameType.ACQUIRED, FrameType.OUTPUT, FrameType.EXIT]);
    assert.ok(reader.atFrameBoundary);
  });

  test('parses the same frames pushed one byte at a time, identical to one chunk', () => {
    const whole = new FrameReader();
    whole.push(stream);
    const expected = summary(drain(whole));
    const reader = new FrameReader();
    const got: RawFrame[] = [];
    for (let i = 0; i < stream.byteLength; i++) {
      reader.push(stream.subarray(i, i + 1));
      got.push(...drain(reader));
    }
    assert.deepEqual(summary(got), expected);
  });

  test('parses every split of the stream into two chunks', () => {
    const expected = (() => {
      const r = new FrameReader();
      r.push(stream);
      return summary(drain(r));
    })();
    for (let cut = 0; cut <= stream.byteLength; cut++) {
      const r = new FrameReader();
      r.push(stream.subarray(0, cut));
      const got = drain(r);
      r.push(stream.subarray(cut));
      got.push(...drain(r));
      assert.deepEqual(summary(got), expected, `split at ${cut}`);
    }
  });

  test('names its states: GET_HEADER between frames, GET_PAYLOAD inside one', () => {
    const r = new FrameReader();
    assert.equal(r.state, ReaderState.GET_HEADER);
    r.push(outputFrame(0, 'abc').subarray(0, 7));
    assert.equal(r.next(), undefined);
    assert.equal(r.state, ReaderState.GET_PAYLOAD);
    assert.equal(r.bufferedBytes, 2);
  });

  test('hands out frames one at a time so a consumer can stop between two frames of a chunk', () => {
    const r = new FrameReader();
    r.push(stream);
    const first = r.next();
    assert.equal(first?.type, FrameType.OUTPUT);
    assert.ok(r.bufferedBytes > 0);
    assert.equal(drain(r).length, 3);
  });

  test('refuses a length over the limit when the header arrives, before the payload', () => {
    const r = new FrameReader();
    const header = new Uint8Array(5);
    header[0] = FrameType.OUTPUT;
    new DataView(header.buffer).setUint32(1, MAX_PAYLOAD_BYTES + 1, true);
    r.push(header);
    assert.throws(
      () => r.next(),
      (err: unknown) =>
        err instanceof HolderProtocolError &&
        err.code === 'TEND_ERR_FRAME_TOO_LARGE' &&
        err.message === `OUTPUT frame of ${MAX_PAYLOAD_BYTES + 1} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte limit`,
    );
    assert.equal(r.state, ReaderState.FAILED);
    // The stream cannot be resynchronised: every later use fails the same way.
    assert.throws(() => r.push(new Uint8Array(1)), { code: 'TEND_ERR_FRAME_TOO_LARGE' });
  });

  test('accepts a payload of exactly the limit', () => {
    const r = new FrameReader({ maxPayloadBytes: 16 });
    r.push(encodeFrame(FrameType.OUTPUT, new Uint8Array(16)));
    assert.equal(r.next()?.payload.byteLength, 16);
  });

  test('refuses a frame type a holder does not send, at the header', () => {
    const r = new FrameReader();
    r.push(encodeFrame(FrameType.INPUT, new Uint8Array(3)).subarray(0, 5));
    assert.throws(
      () => r.next(),
      (err: unknown) =>
        err instanceof HolderProtocolError &&
        err.code === 'TEND_ERR_UNKNOWN_FRAME' &&
        err.message === 'unexpected frame INPUT (length 3) from the holder',
    );
  });

  test('end() inside a payload is TEND_ERR_TRUNCATED naming the frame', () => {
    const r = new FrameReader();
    r.push(outputFrame(0, 'abcdef').subarray(0, 10));
    assert.equal(r.next(), undefined);
    assert.throws(
      () => r.end(),
      (err: unknown) =>
        err instanceof HolderProtocolError &&
        err.code === 'TEND_ERR_TRUNCATED' &&
        err.message === 'the holder closed the connection inside OUTPUT with 5 of 14 payload bytes',
    );
  });

  test('end() inside a header is TEND_ERR_TRUNCATED; end() between frames is fine', () => {
    const r = new FrameReader();
    r.push(new Uint8Array([FrameType.OUTPUT, 1]));
    assert.throws(() => r.end(), {
      code: 'TEND_ERR_TRUNCATED',
      message: 'the holder closed the connection inside a header with 2 of 5 bytes',
    });
    const ok = new FrameReader();
    ok.push(encodeFrame(FrameType.ACQUIRED));
    drain(ok);
    assert.doesNotThrow(() => ok.end());
  });

  test('a payload spread over three chunks is reassembled byte-exact', () => {
    const frame = outputFrame(9, 'x'.repeat(100) + 'y'.repeat(100));
    const r = new FrameReader();
    r.push(frame.subarray(0, 3));
    r.push(frame.subarray(3, 60));
    assert.equal(r.next(), undefined);
    r.push(frame.subarray(60));
    const f = r.next();
    assert.deepEqual([...f!.payload], [...frame.subarray(5)]);
  });

  test("parses the holder's golden stream.bin (six frames back to back) the same at every chunking", () => {
    const bytes = fixture('stream.bin');
    const expectedTypes = ['state', 'acquired', 'replay', 'output', 'input-taken', 'exit'];
    for (const chunk of [1, 2, 3, 5, 7, 64, bytes.byteLength]) {
      const r = new FrameReader();
      const got: string[] = [];
      for (let at = 0; at < bytes.byteLength; at += chunk) {
        r.push(bytes.subarray(at, at + chunk));
        for (let f = r.next(); f; f = r.next()) got.push(decodeHolderFrame(f.type, f.payload).type);
      }
      assert.deepEqual(got, expectedTypes, `chunks of ${chunk}`);
      assert.ok(r.atFrameBoundary);
    }
  });
});

describe('FrameReader with stream frames in pieces', () => {
  const streamed = (): FrameReader => new FrameReader({ streamed: STREAM_FRAME_PREFIX_BYTES });
  const text = (parts: Uint8Array[]): string => new TextDecoder().decode(concat(parts));

  test('a stream frame that arrived whole comes as one last piece, its payload the prefix', () => {
    const r = streamed();
    r.push(outputFrame(7, 'hello'));
    const f = r.next()!;
    assert.equal(f.type, FrameType.OUTPUT);
    assert.equal(decodeHolderFrame(f.type, f.payload).type, 'output');
    assert.equal(f.payload.byteLength, 8);
    assert.deepEqual({ at: f.piece?.at, last: f.piece?.last, text: text([f.piece!.bytes]) }, { at: 0, last: true, text: 'hello' });
    assert.ok(r.atFrameBoundary);
  });

  test('a body spread over three chunks comes as two pieces (the first chunk holds only header), views of their chunks', () => {
    const frame = outputFrame(9, 'x'.repeat(100) + 'y'.repeat(100));
    const r = streamed();
    const chunks = [frame.subarray(0, 3), frame.subarray(3, 60), frame.subarray(60)];
    const pieces: RawFrame[] = [];
    for (const c of chunks) {
      r.push(c);
      pieces.push(...drain(r));
    }
    assert.deepEqual(pieces.map((p) => [p.piece!.at, p.piece!.bytes.byteLength, p.piece!.last]), [[0, 47, false], [47, 153, true]]);
    assert.equal(pieces[1]!.piece!.bytes.buffer, frame.buffer, 'a view of the pushed chunk');
    assert.equal(text(pieces.map((p) => p.piece!.bytes)), 'x'.repeat(100) + 'y'.repeat(100));
  });

  test('pieces at every chunking add up to the same bodies, flags and frame order', () => {
    const all = concat([
      replayFrame(0, 0, 'replayed '),
      replayFrame(9, ReplayFlag.END, 'end'),
      replayFrame(12, ReplayFlag.END, ''),
      encodeFrame(FrameType.ACQUIRED),
      outputFrame(12, 'live output that is longer than a chunk'),
    ]);
    const expected = [['replay', 0, 'replayed ', false], ['replay', 9, 'end', true], ['replay', 12, '', true], ['acquired'], ['output', 12, 'live output that is longer than a chunk']];
    for (const size of [1, 2, 5, 9, 13, all.byteLength]) {
      const r = streamed();
      const got: unknown[][] = [];
      const body: Uint8Array[] = [];
      for (let at = 0; at < all.byteLength; at += size) {
        r.push(all.subarray(at, at + size));
        for (let f = r.next(); f; f = r.next()) {
          const m = decodeHolderFrame(f.type, f.payload);
          if (!f.piece) {
            got.push([m.type]);
            continue;
          }
          body.push(f.piece.bytes);
          if (!f.piece.last) continue;
          const offset = m.type === 'replay' || m.type === 'output' ? m.offset : -1;
          got.push(m.type === 'replay' ? [m.type, offset, text(body), m.end] : [m.type, offset, text(body)]);
          body.length = 0;
        }
      }
      assert.deepEqual(got, expected, `chunks of ${size}`);
      assert.ok(r.atFrameBoundary);
    }
  });

  test('a stream frame shorter than its prefix comes whole, for the decoder to refuse', () => {
    const r = streamed();
    r.push(encodeFrame(FrameType.OUTPUT, new Uint8Array(3)));
    const f = r.next()!;
    assert.equal(f.piece, undefined);
    assert.throws(() => decodeHolderFrame(f.type, f.payload), { code: 'TEND_ERR_BAD_PAYLOAD' });
  });

  test('end() inside a body counts the pieces already handed out', () => {
    const r = streamed();
    r.push(outputFrame(0, 'abcdef').subarray(0, 15));
    assert.equal(drain(r).length, 1);
    assert.throws(() => r.end(), {
      code: 'TEND_ERR_TRUNCATED',
      message: 'the holder closed the connection inside OUTPUT with 10 of 14 payload bytes',
    });
  });
});
