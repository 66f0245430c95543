import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as frames from './holder-frames.js';
import {
  ErrorCode,
  FrameType,
  HolderProtocolError,
  ReplayFlag,
  StateFlag,
  decodeHolderFrame,
  decodeState,
  encodeDumpSince,
  encodeFrame,
  encodeHello,
  encodeInput,
  encodeInputFrom,
  encodePing,
  encodeResize,
  encodeSignal,
  encodeStatePayload,
  type HolderState,
} from './holder-frames.js';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'holder', 'protocol.h'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package root not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

// Evaluates the integer expressions protocol.h uses: literals (decimal, hex),
// names defined above them, parentheses, + - *. Anything else fails the test
// rather than being guessed.
function evaluateCExpression(text: string, known: ReadonlyMap<string, number>): number {
  const expr = text.trim().replace(/\b[A-Z_][A-Z0-9_]*\b/g, (name) => {
    const value = known.get(name);
    if (value === undefined) throw new Error(`protocol.h uses ${name} before defining it`);
    return String(value);
  });
  if (!/^[0-9a-fA-Fx()+\-*\s]+$/.test(expr)) throw new Error(`unsupported expression in protocol.h: ${expr}`);
  const value = Function(`"use strict"; return (${expr});`)() as unknown;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`not an integer: ${expr}`);
  return value;
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/.*$/gm, ' ');
}

/** Every valued #define and every enum member of protocol.h, by name. */
function parseProtocolHeader(source: string): Map<string, number> {
  const out = new Map<string, number>();
  const code = stripComments(source);
  for (const m of code.matchAll(/^[ \t]*#define[ \t]+([A-Z_][A-Z0-9_]*)[ \t]+(.+)$/gm)) {
    out.set(m[1]!, evaluateCExpression(m[2]!, out));
  }
  for (const body of code.matchAll(/enum\s+\w+\s*\{([\s\S]*?)\}/g)) {
    for (const m of body[1]!.matchAll(/([A-Z_][A-Z0-9_]*)\s*=\s*([^,]+)/g)) {
      out.set(m[1]!, evaluateCExpression(m[2]!, out));
    }
  }
  return out;
}

/** The TypeScript mirror, named as protocol.h names each constant. */
function mirrorConstants(): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of [
    'PROTOCOL_VERSION',
    'OLDEST_PROTOCOL_VERSION',
    'FRAME_HEADER_BYTES',
    'MAX_PAYLOAD_BYTES',
    'MAX_INBOUND_PAYLOAD_BYTES',
    'MIN_COLS',
    'MIN_ROWS',
    'MAX_COLS',
    'MAX_ROWS',
    'GENERATION_BYTES',
    'STATE_PAYLOAD_BYTES',
    'STATE_V1_PAYLOAD_BYTES',
    'BUILD_ID_BYTES',
    'EXEC_PROTOCOL_VERSION',
    'TYPIST_PROTOCOL_VERSION',
    'WATCH_PROTOCOL_VERSION',
    'WATCH_PIECE_MAX_BYTES',
    'EXEC_PATH_MAX_BYTES',
    'WRITER_ID_BYTES',
    'INPUT_FROM_PREFIX_BYTES',
    'INPUT_TAKEN_PAYLOAD_BYTES',
    'WRITERS_REMEMBERED',
  ] as const) {
    out.set(name, frames[name]);
  }
  for (const [name, value] of Object.entries(FrameType)) out.set(`FRAME_${name}`, value);
  for (const [name, value] of Object.entries(ErrorCode)) out.set(`ERROR_${name}`, value);
  for (const [name, value] of Object.entries(StateFlag)) out.set(`STATE_F_${name}`, value);
  for (const [name, value] of Object.entries(ReplayFlag)) out.set(`REPLAY_F_${name}`, value);
  return out;
}

const sampleState: Omit<HolderState, 'type'> = {
  version: 1,
  generation: '00112233445566778899aabbccddeeff',
  ringStart: 4096,
  offset: 2 ** 40 + 7,
  childPid: 4242,
  fgPgid: 4343,
  cols: 132,
  rows: 43,
  exited: true,
  leased: true,
  youLease: false,
  exitCode: -1,
  exitSignal: 9,
  startedAtMs: 1_764_700_000_123,
  ringCapacity: 8 * 1024 * 1024,
  build: 'ab12cd34-asan',
};

describe('holder-frames mirrors protocol.h', () => {
  test('every #define and enum value of protocol.h equals its TypeScript mirror, and no mirror is extra', () => {
    const header = parseProtocolHeader(readFileSync(join(packageRoot(), 'holder', 'protocol.h'), 'utf8'));
    assert.ok(header.size > 30, `parsed only ${header.size} constants from protocol.h`);
    assert.deepEqual(
      Object.fromEntries([...mirrorConstants()].sort()),
      Object.fromEntries([...header].sort()),
    );
  });

  test('STATE_PAYLOAD_BYTES is the sum of the field widths the header lists', () => {
    // u32 version, u8[16] generation, u64 ring_start, u64 offset, u32 pid, u32 pgid,
    // u16 cols, u16 rows, u8 flags, i32 code, i32 signal, u64 started_at, u32 capacity, then (version 3) the build
    const widths = [4, frames.GENERATION_BYTES, 8, 8, 4, 4, 2, 2, 1, 4, 4, 8, 4];
    assert.equal(widths.reduce((a, b) => a + b, 0), frames.STATE_V1_PAYLOAD_BYTES);
    widths.push(frames.BUILD_ID_BYTES);
    assert.equal(widths.reduce((a, b) => a + b, 0), frames.STATE_PAYLOAD_BYTES);
  });
});

describe('encoders', () => {
  test('HELLO is type 0x01, length 4, the version little-endian', () => {
    assert.deepEqual([...encodeHello()], [0x01, 4, 0, 0, 0, 5, 0, 0, 0]);
    assert.deepEqual([...encodeHello(0x01020304)], [0x01, 4, 0, 0, 0, 4, 3, 2, 1]);
  });

  test('empty frames carry a zero length', () => {
    assert.deepEqual([...frames.encodeAcquire()], [0x10, 0, 0, 0, 0]);
    assert.deepEqual([...frames.encodeRelease()], [0x13, 0, 0, 0, 0]);
    assert.deepEqual([...frames.encodeStateReq()], [0x02, 0, 0, 0, 0]);
    assert.deepEqual([...frames.encodeRedraw()], [0x32, 0, 0, 0, 0]);
    assert.deepEqual([...frames.encodeKill()], [0x33, 0, 0, 0, 0]);
  });

  test('DUMP_SINCE writes a u64 offset above 2^32 exactly', () => {
    const f = encodeDumpSince(2 ** 32 * 5 + 0x0a0b0c0d);
    assert.deepEqual([...f], [0x20, 8, 0, 0, 0, 0x0d, 0x0c, 0x0b, 0x0a, 5, 0, 0, 0]);
  });

  test('DUMP_SINCE refuses negative, fractional and unsafe offsets', () => {
    assert.throws(() => encodeDumpSince(-1), RangeError);
    assert.throws(() => encodeDumpSince(1.5), RangeError);
    assert.throws(() => encodeDumpSince(2 ** 53), RangeError);
  });

  test('RESIZE is cols then rows as u16 and refuses values beyond u16', () => {
    assert.deepEqual([...encodeResize(300, 2)], [0x30, 4, 0, 0, 0, 0x2c, 0x01, 2, 0]);
    assert.throws(() => encodeResize(65536, 1), RangeError);
  });

  test('SIGNAL and PING carry their numbers little-endian', () => {
    assert.deepEqual([...encodeSignal(2)], [0x31, 4, 0, 0, 0, 2, 0, 0, 0]);
    assert.deepEqual([...encodePing(0x0102n)], [0x34, 8, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]);
  });

  test('INPUT_FROM is the writer, the u64 position, then the bytes; the whole frame fits the inbound limit', () => {
    const writer = Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i);
    const f = encodeInputFrom(writer, 2 ** 32 + 5, new Uint8Array([104, 105]));
    assert.deepEqual([...f], [0x24, 26, 0, 0, 0, ...writer, 5, 0, 0, 0, 1, 0, 0, 0, 104, 105]);
    assert.deepEqual([...encodeInputFrom(writer, 0, new Uint8Array(0))].slice(0, 5), [0x24, 24, 0, 0, 0]);
    assert.equal(encodeInputFrom(writer, 0, new Uint8Array(frames.MAX_INPUT_FROM_BYTES)).byteLength, 5 + frames.MAX_INBOUND_PAYLOAD_BYTES);
    assert.throws(() => encodeInputFrom(writer, 0, new Uint8Array(frames.MAX_INPUT_FROM_BYTES + 1)), RangeError);
    assert.throws(() => encodeInputFrom(writer.subarray(1), 0, new Uint8Array(1)), RangeError);
    assert.throws(() => encodeInputFrom(writer, 2 ** 53 - 1, new Uint8Array(1)), RangeError);
  });

  test('INPUT carries its bytes and refuses more than the inbound limit', () => {
    assert.deepEqual([...encodeInput(new Uint8Array([104, 105]))], [0x23, 2, 0, 0, 0, 104, 105]);
    assert.doesNotThrow(() => encodeInput(new Uint8Array(frames.MAX_INBOUND_PAYLOAD_BYTES)));
    assert.throws(() => encodeInput(new Uint8Array(frames.MAX_INBOUND_PAYLOAD_BYTES + 1)), RangeError);
  });
});

describe('decoders', () => {
  test('STATE round-trips every field, including offsets above 2^32 and a negative exit code', () => {
    assert.deepEqual(decodeState(encodeStatePayload(sampleState)), { type: 'state', ...sampleState });
  });

  test('a STATE of a version 1 or 2 holder ends before the build, which decodes as null', () => {
    const old = encodeStatePayload({ ...sampleState, build: null });
    assert.equal(old.byteLength, frames.STATE_V1_PAYLOAD_BYTES);
    assert.deepEqual(decodeState(old), { type: 'state', ...sampleState, build: null });
  });

  test('EXEC carries its path; EXEC_FAILED decodes to its reason', () => {
    assert.deepEqual([...frames.encodeExec('/x')], [0x37, 2, 0, 0, 0, 0x2f, 0x78]);
    assert.throws(() => frames.encodeExec(''), RangeError);
    assert.throws(() => frames.encodeExec('/a\0b'), RangeError);
    assert.throws(() => frames.encodeExec('/'.repeat(frames.EXEC_PATH_MAX_BYTES + 1)), RangeError);
    assert.deepEqual(decodeHolderFrame(FrameType.EXEC_FAILED, new TextEncoder().encode('no')), { type: 'exec-failed', reason: 'no' });
  });

  test('STATE ignores fields a later version appends', () => {
    const longer = new Uint8Array(frames.STATE_PAYLOAD_BYTES + 12);
    longer.set(encodeStatePayload(sampleState));
    longer.fill(0xee, frames.STATE_PAYLOAD_BYTES);
    assert.deepEqual(decodeHolderFrame(FrameType.STATE, longer), { type: 'state', ...sampleState });
  });

  test('a short STATE is TEND_ERR_BAD_PAYLOAD', () => {
    assert.throws(
      () => decodeHolderFrame(FrameType.STATE, new Uint8Array(68)),
      (err: unknown) =>
        err instanceof HolderProtocolError &&
        err.code === 'TEND_ERR_BAD_PAYLOAD' &&
        err.message === 'STATE: payload is 68 bytes, expected at least 69',
    );
  });

  test('an offset past 2^53 is TEND_ERR_UNSAFE_OFFSET, never a rounded number', () => {
    const payload = new Uint8Array(12);
    new DataView(payload.buffer).setBigUint64(0, 2n ** 53n, true);
    assert.throws(
      () => decodeHolderFrame(FrameType.OUTPUT, payload),
      (err: unknown) =>
        err instanceof HolderProtocolError &&
        err.code === 'TEND_ERR_UNSAFE_OFFSET' &&
        err.message === 'OUTPUT offset 9007199254740992 is beyond the largest safe integer',
    );
    new DataView(payload.buffer).setBigUint64(0, 2n ** 53n - 1n, true);
    const ok = decodeHolderFrame(FrameType.OUTPUT, payload);
    assert.equal(ok.type === 'output' && ok.offset, Number.MAX_SAFE_INTEGER);
  });

  test('REPLAY decodes offset, GAP and END flags and the bytes after them', () => {
    const payload = new Uint8Array(9 + 3);
    const dv = new DataView(payload.buffer);
    dv.setBigUint64(0, 77n, true);
    payload[8] = ReplayFlag.GAP | ReplayFlag.END;
    payload.set([65, 66, 67], 9);
    const m = decodeHolderFrame(FrameType.REPLAY, payload);
    assert.deepEqual({ ...m, bytes: m.type === 'replay' ? [...m.bytes] : null }, {
      type: 'replay',
      offset: 77,
      gap: true,
      end: true,
      bytes: [65, 66, 67],
    });
  });

  test('an END-only REPLAY has no bytes', () => {
    const payload = new Uint8Array(9);
    payload[8] = ReplayFlag.END;
    const m = decodeHolderFrame(FrameType.REPLAY, payload);
    assert.ok(m.type === 'replay' && m.end && !m.gap && m.bytes.byteLength === 0);
  });

  test('EXIT decodes signed code and signal; ERROR decodes code and text; DENIED its reason', () => {
    const exit = new Uint8Array(8);
    new DataView(exit.buffer).setInt32(0, -1, true);
    new DataView(exit.buffer).setInt32(4, 15, true);
    assert.deepEqual(decodeHolderFrame(FrameType.EXIT, exit), { type: 'exit', code: -1, signal: 15 });

    const text = new TextEncoder().encode('bad size 0x0');
    const err = new Uint8Array(2 + text.byteLength);
    new DataView(err.buffer).setUint16(0, ErrorCode.BAD_SIZE, true);
    err.set(text, 2);
    assert.deepEqual(decodeHolderFrame(FrameType.ERROR, err), {
      type: 'error',
      code: ErrorCode.BAD_SIZE,
      message: 'bad size 0x0',
    });
    assert.deepEqual(decodeHolderFrame(FrameType.DENIED, new TextEncoder().encode('held by pid 12')), {
      type: 'denied',
      reason: 'held by pid 12',
    });
  });

  test('INPUT_TAKEN decodes the writer (a copy) and the total; any other length is refused', () => {
    const payload = new Uint8Array(24).fill(7, 0, 16);
    new DataView(payload.buffer).setBigUint64(16, 2n ** 40n + 1n, true);
    const m = decodeHolderFrame(FrameType.INPUT_TAKEN, payload);
    assert.ok(m.type === 'input-taken');
    assert.deepEqual([...m.writer], new Array(16).fill(7));
    assert.equal(m.total, 2 ** 40 + 1);
    payload.fill(0);
    assert.equal(m.writer[0], 7, 'the writer does not change with the buffer it came from');
    assert.throws(() => decodeHolderFrame(FrameType.INPUT_TAKEN, new Uint8Array(23)), { code: 'TEND_ERR_BAD_PAYLOAD' });
    assert.throws(() => decodeHolderFrame(FrameType.INPUT_TAKEN, new Uint8Array(25)), { code: 'TEND_ERR_BAD_PAYLOAD' });
  });

  test('PONG echoes the u64 token; a PONG of the wrong length is refused', () => {
    const frame = encodePing(0xfedcba9876543210n);
    assert.deepEqual(decodeHolderFrame(FrameType.PONG, frame.subarray(5)), {
      type: 'pong',
      token: 0xfedcba9876543210n,
    });
    assert.throws(() => decodeHolderFrame(FrameType.PONG, new Uint8Array(4)), { code: 'TEND_ERR_BAD_PAYLOAD' });
  });

  test('a controller->holder type arriving from a holder is TEND_ERR_UNKNOWN_FRAME', () => {
    assert.throws(
      () => decodeHolderFrame(FrameType.INPUT, new Uint8Array(1)),
      (err: unknown) =>
        err instanceof HolderProtocolError &&
        err.code === 'TEND_ERR_UNKNOWN_FRAME' &&
        err.message === 'a holder does not send INPUT',
    );
    assert.throws(() => decodeHolderFrame(0x7e, new Uint8Array(0)), {
      code: 'TEND_ERR_UNKNOWN_FRAME',
      message: 'a holder does not send type 0x7e',
    });
  });

  test('encodeFrame writes any type with the payload length in little-endian', () => {
    assert.deepEqual([...encodeFrame(0x7e, new Uint8Array(258))].slice(0, 5), [0x7e, 2, 1, 0, 0]);
  });
});

// Golden frames, written by the holder's C encoder (see the folder's README):
// each file is one frame exactly as it travels. Holder -> controller frames
// must decode to the values the README lists; controller -> holder frames
// must be byte-equal to what our encoders produce for the same values.
describe('golden frames', () => {
  const dir = join(packageRoot(), 'test', 'fixtures', 'holder-frames');
  const golden = (name: string): Uint8Array => new Uint8Array(readFileSync(join(dir, name)));
  const text = (s: string): number[] => [...new TextEncoder().encode(s)];

  function decodeGolden(name: string): unknown {
    const bytes = golden(name);
    const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(1, true);
    assert.equal(bytes.byteLength, frames.FRAME_HEADER_BYTES + length, `${name}: the length field matches the file`);
    const m = decodeHolderFrame(bytes[0]!, bytes.subarray(frames.FRAME_HEADER_BYTES));
    return 'bytes' in m ? { ...m, bytes: [...m.bytes] } : m;
  }

  const decoded: Record<string, unknown> = {
    'state.bin': {
      type: 'state',
      version: 5,
      generation: '000102030405060708090a0b0c0d0e0f',
      ringStart: 1000,
      offset: 5000,
      childPid: 4242,
      fgPgid: 4243,
      cols: 80,
      rows: 24,
      exited: true,
      leased: true,
      youLease: true,
      exitCode: -1,
      exitSignal: 9,
      startedAtMs: 1700000000123,
      ringCapacity: 4194304,
      build: 'fixture-build',
    },
    'acquired.bin': { type: 'acquired' },
    'denied.bin': { type: 'denied', reason: 'another controller holds the lease' },
    'replay.bin': { type: 'replay', offset: 1000, gap: false, end: false, bytes: text('abc') },
    'replay-gap-end.bin': { type: 'replay', offset: 1000, gap: true, end: true, bytes: text('\x1b[0mhello') },
    'replay-end-empty.bin': { type: 'replay', offset: 5000, gap: false, end: true, bytes: [] },
    'output.bin': { type: 'output', offset: 5000, bytes: text('hello\r\né') },
    'pong.bin': { type: 'pong', token: 0x1122334455667788n },
    'input-taken.bin': { type: 'input-taken', writer: Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i), total: 1006 },
    'exit.bin': { type: 'exit', code: 3, signal: 0 },
    'exit-signal.bin': { type: 'exit', code: -1, signal: 9 },
    'exec-failed.bin': { type: 'exec-failed', reason: "'/bin/sh' is not a tend-holder that can take over a running one" },
    'error-too-large.bin': { type: 'error', code: ErrorCode.TOO_LARGE, message: 'a frame of 70000 bytes is over the 65536-byte limit' },
  };
  for (const [name, expected] of Object.entries(decoded)) {
    test(`decodes the holder's ${name} to the values it was written from`, () => {
      assert.deepEqual(decodeGolden(name), expected);
    });
  }

  const encoded: Record<string, () => Uint8Array> = {
    'hello.bin': () => encodeHello(frames.PROTOCOL_VERSION),
    'state-req.bin': () => frames.encodeStateReq(),
    'acquire.bin': () => frames.encodeAcquire(),
    'release.bin': () => frames.encodeRelease(),
    'dump-since.bin': () => encodeFrame(FrameType.DUMP_SINCE, Uint8Array.from([8, 7, 6, 5, 4, 3, 2, 1])),
    'input.bin': () => encodeInput(new TextEncoder().encode('ls -l\r')),
    'input-from.bin': () =>
      encodeInputFrom(Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i), 1000, new TextEncoder().encode('ls -l\r')),
    'watch.bin': () => frames.encodeWatch(),
    'resize.bin': () => encodeResize(120, 40),
    'signal.bin': () => encodeSignal(2),
    'redraw.bin': () => frames.encodeRedraw(),
    'kill.bin': () => frames.encodeKill(),
    'ping.bin': () => encodePing(0x1122334455667788n),
    'exec.bin': () => frames.encodeExec('/opt/tend/holder/build/tend-holder'),
  };
  for (const [name, encode] of Object.entries(encoded)) {
    test(`encodes ${name} byte for byte as the holder's fixture`, () => {
      assert.deepEqual([...encode()], [...golden(name)]);
    });
  }

  test('the dump-since.bin offset, above 2^53, is refused by our encoder rather than rounded', () => {
    // The fixture's offset is above Number.MAX_SAFE_INTEGER: our encoder must refuse it rather than round.
    assert.ok(0x0102030405060708 > Number.MAX_SAFE_INTEGER);
    assert.throws(() => encodeDumpSince(0x0102030405060708), RangeError);
  });

  test('every fixture file is covered by a test above', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.bin') && f !== 'stream.bin');
    assert.deepEqual(files.sort(), [...Object.keys(decoded), ...Object.keys(encoded)].sort());
  });
});
