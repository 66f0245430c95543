// The native viewer's frame codec (viewer/frames.c) against the TypeScript
// one (src/protocol/viewer-frames.ts), which the server speaks: frames the
// server encodes decode in C to the same values; frames C encodes are the
// bytes TypeScript encodes and decode to the values asked for; and a frame
// TypeScript refuses, C refuses too (and the other way round), over fixed
// cases, a few hundred seeded random frames and their mutations. The C side
// runs as viewer/build/test/oracle-frames (viewer/test/oracle_frames.c),
// built through make by ./oracle.ts: one process, one request a line.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CloseReason,
  MAX_NAME_BYTES,
  decodeFrameFromServer,
  decodeFrameFromViewer,
  encodeFrameToServer,
  encodeFrameToViewer,
  type ClientKind,
  type FrameFromServer,
  type FrameFromViewer,
  type MouseEncoding,
  type MouseTracking,
  type ScreenModes,
} from '../../src/protocol/viewer-frames.js';
import { seededRandom } from '../support/random-stream.js';
import { DEFAULT_MODES } from '../support/viewer-test-fixture.js';
import { askOracle, hexOrDash } from './oracle.js';

const MAX_SEQ = Number.MAX_SAFE_INTEGER;
const MOUSE_TRACKINGS: MouseTracking[] = ['none', 'x10', 'vt200', 'drag', 'any'];
const MOUSE_ENCODINGS: MouseEncoding[] = ['unknown', 'default', 'utf8', 'sgr', 'urxvt', 'sgr-pixels'];
const MODE_FLAGS = ['cursorHidden', 'altScreen', 'applicationCursorKeys', 'applicationKeypad', 'bracketedPaste', 'sendFocus', 'originMode', 'insertMode', 'wraparound'] as const;
/** The C subscribe keeps a resume point's stream name in a 128-byte field with its NUL. */
const C_MAX_RESUME_BOOT_BYTES = 127;

const toHex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const fromHex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const utf8 = (s: string) => new TextEncoder().encode(s);

/** One answer per request, in order: a decoded frame, {hex} for an encoded one, or {error}. */
function oracle(requests: string[]): Array<Record<string, unknown>> {
  return askOracle('oracle-frames', requests).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What TypeScript decodes, in the oracle's shape (bytes as hex, SCROLLBACK as type and channel); null when refused. */
function tsDecodeServer(bytes: Uint8Array): Record<string, unknown> | null {
  let frame: FrameFromServer;
  try {
    frame = decodeFrameFromServer(bytes);
  } catch {
    return null;
  }
  return oracleShape(frame);
}

function oracleShape(frame: FrameFromServer): Record<string, unknown> {
  if (frame.type === 'data') return { ...frame, data: toHex(frame.data) };
  if (frame.type === 'scrollback') return { type: frame.type, channel: frame.channel };
  return { ...frame };
}

/** Decodes every frame in C and in TypeScript: both refuse it, or both read the same values. */
function assertSameDecoding(frames: Uint8Array[], label: string): { accepted: number; refused: number } {
  const answers = oracle(frames.map((f) => `decode ${toHex(f)}`));
  let accepted = 0;
  frames.forEach((bytes, i) => {
    const ts = tsDecodeServer(bytes);
    const c = answers[i]!;
    const what = `${label} #${i}: ${toHex(bytes).slice(0, 200)}`;
    if (ts === null) {
      assert.equal(typeof c.error, 'string', `${what}: TypeScript refuses it, C decoded ${JSON.stringify(c).slice(0, 300)}`);
    } else {
      assert.equal(c.error, undefined, `${what}: TypeScript decodes it, C refused: ${String(c.error)}`);
      assert.deepEqual(c, ts, what);
      accepted++;
    }
  });
  return { accepted, refused: frames.length - accepted };
}

/** The oracle's encode request for a viewer frame (the C encoders write protocol version 2). */
function encodeRequest(frame: FrameFromViewer): string {
  switch (frame.type) {
    case 'hello':
      return `encode hello ${frame.readOnly ? 1 : 0} ${frame.asksBuild ? 1 : 0} ${frame.clientKind} ${frame.writer ? toHex(frame.writer) : '-'}`;
    case 'subscribe': {
      const resume = frame.resume ? ` ${hexOrDash(utf8(frame.resume.boot))} ${frame.resume.seq}` : '';
      return `encode subscribe ${frame.channel} ${frame.cols} ${frame.rows} ${frame.keepsHistory ? 1 : 0} ${frame.repaint ? 1 : 0} ${hexOrDash(utf8(frame.sessionId))}${resume}`;
    }
    case 'unsubscribe':
      return `encode unsubscribe ${frame.channel}`;
    case 'input':
      return `encode input ${frame.channel} ${hexOrDash(frame.data)}`;
    case 'input-at':
      return `encode input-at ${frame.channel} ${frame.at} ${hexOrDash(frame.data)}`;
    case 'resize-request':
      return `encode resize-request ${frame.channel} ${frame.cols} ${frame.rows}`;
    case 'ack':
      return `encode ack ${frame.channel} ${frame.seq}`;
    case 'scrollback-request':
      throw new Error('the native viewer never asks for scrollback');
  }
}

/** C encodes each frame: the bytes TypeScript encodes, which the server decodes to the frame given. */
function assertSameEncoding(frames: FrameFromViewer[], label: string): void {
  const answers = oracle(frames.map(encodeRequest));
  frames.forEach((frame, i) => {
    const c = answers[i]!;
    const what = `${label} #${i}: ${JSON.stringify(frame, (_k, v: unknown) => (v instanceof Uint8Array ? toHex(v) : v))}`;
    assert.equal(c.error, undefined, `${what}: C refused: ${String(c.error)}`);
    const bytes = fromHex(c.hex as string);
    assert.equal(toHex(bytes), toHex(encodeFrameToServer(frame)), `${what}: C's bytes differ from TypeScript's`);
    assert.deepEqual(decodeFrameFromViewer(bytes), frame, what);
  });
}

// ---------------------------------------------------------------- fixed frames

/** Every mode off, the cursor at the origin. */
const modesOff: ScreenModes = { ...DEFAULT_MODES, wraparound: false };

const TEXTS = ['', 'plain', 'vim — 편집', '😀👨‍👩‍👧', '"quoted" \\ back\\slash', '\x00\x01\x1b[1m\x7f\r\n\t', '\ufeffbom first', 'line\u2028sep\u2029', '\ufffd', 'é'.repeat(300)];

function fixedServerFrames(): FrameFromServer[] {
  const frames: FrameFromServer[] = [];
  const longName = 'n'.repeat(MAX_NAME_BYTES);
  for (const [boot, version] of [['5c1e0d', '0.9.1'], ['', ''], ['부트', 'v✓'], [longName, 'x']]) {
    for (const protocolVersion of [0, 2, 65535]) frames.push({ type: 'welcome', protocolVersion, serverBoot: boot!, serverVersion: version! });
    frames.push({ type: 'welcome', protocolVersion: 2, serverBoot: boot!, serverVersion: version!, serverBuild: version! });
  }
  const snapshot = (over: Partial<Extract<FrameFromServer, { type: 'snapshot' }>>): FrameFromServer => ({
    type: 'snapshot', channel: 1, boot: 'h-1', seq: 0, cols: 80, rows: 24, modes: modesOff, data: '', ...over,
  });
  for (const flag of MODE_FLAGS) frames.push(snapshot({ modes: { ...modesOff, [flag]: true } }));
  frames.push(snapshot({ modes: { ...modesOff, ...Object.fromEntries(MODE_FLAGS.map((f) => [f, true])) } }));
  frames.push(snapshot({ view: true, data: '\x1b[1;1Hview' }));
  frames.push(snapshot({ view: true, modes: { ...modesOff, wraparound: true, altScreen: true, cursorX: 999, cursorY: 65535 } }));
  for (const mouseTracking of MOUSE_TRACKINGS) for (const mouseEncoding of MOUSE_ENCODINGS) frames.push(snapshot({ modes: { ...modesOff, mouseTracking, mouseEncoding } }));
  for (const data of TEXTS) frames.push(snapshot({ data }));
  frames.push(snapshot({ seq: MAX_SEQ, cols: 1, rows: 1, channel: 0xffff_ffff, boot: longName }));
  frames.push(snapshot({ seq: 2 ** 32, cols: 1000, rows: 1000, channel: 0 }));
  frames.push(snapshot({ data: `\x1b[H\x1b[2J${'a row of plain text, mostly ascii, as screens are \x1b[31mred\x1b[0m 한\r\n'.repeat(20_000)}` }));
  const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (const [seq, data] of [[0, new Uint8Array(0)], [MAX_SEQ, allBytes], [2 ** 32 + 1, utf8('hello\r\n')], [12345, fromHex('ffffffffffffffffc0')]] as const) {
    frames.push({ type: 'data', channel: 3, seq, data });
  }
  for (const [cols, rows] of [[1, 1], [1000, 1000], [80, 24]]) frames.push({ type: 'resize', channel: 3, cols: cols!, rows: rows! });
  for (const title of TEXTS) frames.push({ type: 'title', channel: 3, title });
  for (const [code, signal] of [[0, 0], [-1, 9], [-0x8000_0000, 0x7fff_ffff], [255, 0]]) frames.push({ type: 'exit', channel: 3, code: code!, signal: signal! });
  for (const state of [{}, { degraded: true }, { agent: { state: 'working', since: 1.5e12 }, bell: false, cwd: '/home/ü', tags: [1, -2.5e-7, null, 'x'] }, { '': { '': [[[{}]]] } }, { 'é😀\u2028': '\\"\n' }]) {
    frames.push({ type: 'state', channel: 3, state });
  }
  for (let code = 0; code <= 13; code++) frames.push({ type: 'error', channel: code % 2, code, message: TEXTS[code % TEXTS.length]! });
  frames.push({ type: 'error', channel: 0, code: 65535, message: 'last' });
  for (const reason of Object.values(CloseReason)) frames.push({ type: 'closed', channel: 5, reason, message: TEXTS[reason]! });
  frames.push({ type: 'scrollback', channel: 3, firstRow: MAX_SEQ, rows: 2, dropped: 0, oldest: false, text: '\x1b[31mred\x1b[0m\r\nplain' });
  frames.push({ type: 'scrollback', channel: 3, firstRow: 0, rows: 0, dropped: 123, oldest: true, text: '' });
  for (const total of [0, 1, 2 ** 32, MAX_SEQ]) frames.push({ type: 'input-taken', channel: 9, total });
  return frames;
}

function fixedViewerFrames(): FrameFromViewer[] {
  const writer = Uint8Array.from({ length: 16 }, (_, i) => 0xf0 + i);
  const frames: FrameFromViewer[] = [];
  for (const clientKind of ['cli', 'web', 'script'] as ClientKind[]) {
    for (const readOnly of [false, true]) {
      frames.push({ type: 'hello', protocolVersion: 2, clientKind, readOnly, writer });
      frames.push({ type: 'hello', protocolVersion: 2, clientKind, readOnly });
      frames.push({ type: 'hello', protocolVersion: 2, clientKind, readOnly, writer, asksBuild: true });
    }
  }
  for (const keepsHistory of [false, true]) {
    for (const repaint of [false, true]) {
      const flags = { ...(keepsHistory ? { keepsHistory: true } : {}), ...(repaint ? { repaint: true } : {}) };
      frames.push({ type: 'subscribe', channel: 1, sessionId: 's-3f9a', cols: 80, rows: 24, ...flags });
      frames.push({ type: 'subscribe', channel: 2, sessionId: 'build·테스트', resume: { boot: 'b0a7', seq: MAX_SEQ }, cols: 1000, rows: 1, ...flags });
    }
  }
  frames.push({ type: 'subscribe', channel: 0xffff_ffff, sessionId: '', resume: { boot: '', seq: 0 }, cols: 1, rows: 1000 });
  frames.push({ type: 'subscribe', channel: 0, sessionId: 's'.repeat(MAX_NAME_BYTES), resume: { boot: 'b'.repeat(C_MAX_RESUME_BOOT_BYTES), seq: 2 ** 32 }, cols: 80, rows: 24 });
  frames.push({ type: 'unsubscribe', channel: 0 }, { type: 'unsubscribe', channel: 0xffff_ffff });
  for (const data of [new Uint8Array(0), utf8('한국어 😀\r'), Uint8Array.from({ length: 256 }, (_, i) => i), new Uint8Array(64 * 1024).fill(0x61)]) {
    frames.push({ type: 'input', channel: 2, data });
    frames.push({ type: 'input-at', channel: 2, at: data.length === 0 ? MAX_SEQ : MAX_SEQ - data.length, data });
    frames.push({ type: 'input-at', channel: 2, at: 0, data });
  }
  frames.push({ type: 'resize-request', channel: 2, cols: 132, rows: 50 }, { type: 'resize-request', channel: 2, cols: 1, rows: 1 }, { type: 'resize-request', channel: 2, cols: 1000, rows: 1000 });
  for (const seq of [0, 1, 2 ** 32 - 1, 2 ** 32, 281_474_976_710_656 + 12345, MAX_SEQ]) frames.push({ type: 'ack', channel: 4, seq });
  return frames;
}

/** Frames both sides must refuse, byte by byte: each names what is wrong with it. */
function malformedServerFrames(): Array<[string, Uint8Array]> {
  const w = (frame: FrameFromServer) => encodeFrameToViewer(frame);
  const patch = (bytes: Uint8Array, at: number, ...values: number[]) => {
    const copy = bytes.slice();
    values.forEach((v, i) => (copy[at + i] = v));
    return copy;
  };
  const cut = (bytes: Uint8Array, n: number) => bytes.slice(0, bytes.length - n);
  const plus = (bytes: Uint8Array, ...more: number[]) => Uint8Array.from([...bytes, ...more]);
  const snapshot = w({ type: 'snapshot', channel: 1, boot: 'b', seq: 5, cols: 80, rows: 24, modes: modesOff, data: 'x' });
  const welcome = w({ type: 'welcome', protocolVersion: 2, serverBoot: 'ab', serverVersion: 'v' });
  const data = w({ type: 'data', channel: 1, seq: 5, data: utf8('hi') });
  return [
    ['empty', new Uint8Array(0)],
    ['shorter than the header', fromHex('83010000')],
    ['a viewer frame (INPUT)', encodeFrameToServer({ type: 'input', channel: 1, data: utf8('ls\r') })],
    ['a viewer frame (ACK)', encodeFrameToServer({ type: 'ack', channel: 1, seq: 5 })],
    ['an unknown server type 0x8c', fromHex('8c00000000')],
    ['an unknown server type 0xff', fromHex('ff000000000000000000000000')],
    ['type 0x80', fromHex('8000000000')],
    ['WELCOME on channel 1', patch(welcome, 1, 1)],
    ['WELCOME one byte too long', plus(welcome, 0)],
    ['WELCOME cut in its version name', cut(welcome, 1)],
    ['WELCOME name length past the end', patch(welcome, 7, 9)],
    ['WELCOME name of 1025 bytes', Uint8Array.from([0x81, 0, 0, 0, 0, 2, 0, 0x01, 0x04, ...new Uint8Array(1025).fill(0x61), 0, 0])],
    ['WELCOME boot not UTF-8', patch(welcome, 9, 0xc3, 0x28)],
    ['SNAPSHOT seq 2^53', patch(snapshot, 5, 0, 0, 0, 0, 0, 0, 0x20, 0)],
    ['SNAPSHOT seq 2^64 - 1', patch(snapshot, 5, 255, 255, 255, 255, 255, 255, 255, 255)],
    ['SNAPSHOT cols 0', patch(snapshot, 13, 0, 0)],
    ['SNAPSHOT cols 1001', patch(snapshot, 13, 0xe9, 0x03)],
    ['SNAPSHOT rows 0', patch(snapshot, 15, 0, 0)],
    ['SNAPSHOT mouse tracking 5', patch(snapshot, 23, 5)],
    ['SNAPSHOT mouse encoding 6', patch(snapshot, 24, 6)],
    ['SNAPSHOT boot length past the end', patch(snapshot, 25, 50)],
    ['SNAPSHOT data a lone continuation byte', plus(snapshot, 0x80)],
    ['SNAPSHOT data a surrogate', plus(snapshot, 0xed, 0xa0, 0x80)],
    ['SNAPSHOT data an overlong NUL', plus(snapshot, 0xc0, 0x80)],
    ['SNAPSHOT data past U+10FFFF', plus(snapshot, 0xf4, 0x90, 0x80, 0x80)],
    ['SNAPSHOT data a cut emoji', plus(snapshot, 0xf0, 0x9f, 0x98)],
    ['DATA seq 2^53', patch(data, 5, 0, 0, 0, 0, 0, 0, 0x20, 0)],
    ['DATA cut in its seq', data.slice(0, 12)],
    ['RESIZE 0x24', w({ type: 'resize', channel: 1, cols: 80, rows: 24 }).map((b, i) => (i === 5 ? 0 : b))],
    ['RESIZE 80x1001', patch(w({ type: 'resize', channel: 1, cols: 80, rows: 24 }), 7, 0xe9, 0x03)],
    ['RESIZE one byte too long', plus(w({ type: 'resize', channel: 1, cols: 80, rows: 24 }), 0)],
    ['TITLE not UTF-8', plus(w({ type: 'title', channel: 1, title: 'vim' }), 0xff)],
    ['EXIT short', cut(w({ type: 'exit', channel: 1, code: 0, signal: 0 }), 1)],
    ['EXIT long', plus(w({ type: 'exit', channel: 1, code: 0, signal: 0 }), 0)],
    ['STATE an array', plus(fromHex('8701000000'), ...utf8('[1]'))],
    ['STATE a string', plus(fromHex('8701000000'), ...utf8('"{}"'))],
    ['STATE null', plus(fromHex('8701000000'), ...utf8('null'))],
    ['STATE empty', fromHex('8701000000')],
    ['STATE cut', plus(fromHex('8701000000'), ...utf8('{"a":1'))],
    ['STATE trailing comma', plus(fromHex('8701000000'), ...utf8('{"a":1,}'))],
    ['STATE after a BOM', plus(fromHex('8701000000'), 0xef, 0xbb, 0xbf, ...utf8('{}'))],
    ['STATE not UTF-8', plus(fromHex('8701000000'), ...utf8('{"a":"'), 0xff, ...utf8('"}'))],
    ['STATE an array closed by a brace', plus(fromHex('8701000000'), ...utf8('{"a":[1}}'))],
    ['STATE an object closed by a bracket', plus(fromHex('8701000000'), ...utf8('{"a":{"b":1]]'))],
    ['STATE a raw tab in a string', plus(fromHex('8701000000'), ...utf8('{"a":"\t"}'))],
    ['ERROR cut in its code', fromHex('880000000006')],
    ['ERROR message not UTF-8', plus(w({ type: 'error', channel: 0, code: 6, message: 'x' }), 0xc3)],
    ['CLOSED reason 0', patch(w({ type: 'closed', channel: 1, reason: CloseReason.UNSUBSCRIBED, message: 'bye' }), 5, 0)],
    ['CLOSED reason 5', patch(w({ type: 'closed', channel: 1, reason: CloseReason.UNSUBSCRIBED, message: 'bye' }), 5, 5)],
    ['CLOSED without a reason', fromHex('8901000000')],
    ['SCROLLBACK short', fromHex('8a01000000000000000000000000000000')],
    ['SCROLLBACK first row 2^53', patch(w({ type: 'scrollback', channel: 1, firstRow: 0, rows: 0, dropped: 0, oldest: false, text: '' }), 11, 0x20)],
    ['SCROLLBACK text not UTF-8', plus(w({ type: 'scrollback', channel: 1, firstRow: 0, rows: 0, dropped: 0, oldest: false, text: '' }), 0xfe)],
    ['INPUT_TAKEN 2^53', patch(w({ type: 'input-taken', channel: 1, total: 0 }), 11, 0x20)],
    ['INPUT_TAKEN long', plus(w({ type: 'input-taken', channel: 1, total: 0 }), 0)],
  ];
}

// ---------------------------------------------------------------- random frames

function randomString(random: () => number, maxChars: number): string {
  const pieces = ['a', 'Z', '0', ' ', '"', '\\', '/', '\x00', '\x1b', '\x7f', '\r\n', 'é', 'ß', '─', '한', '\u4e00', '\ufeff', '\u2028', '\ufffd', '😀', '\u{10ffff}'];
  let s = '';
  const n = Math.floor(random() * (maxChars + 1));
  for (let i = 0; i < n; i++) s += pieces[Math.floor(random() * pieces.length)]!;
  return s;
}

function randomBytes(random: () => number, max: number): Uint8Array {
  return Uint8Array.from({ length: Math.floor(random() * (max + 1)) }, () => Math.floor(random() * 256));
}

/** A seq with every width: small, near 2^32, near 2^53. */
function randomSeq(random: () => number): number {
  const r = random();
  if (r < 0.3) return Math.floor(random() * 1000);
  if (r < 0.5) return 2 ** 32 - 2 + Math.floor(random() * 4);
  if (r < 0.7) return MAX_SEQ - Math.floor(random() * 1000);
  return Math.floor(random() * MAX_SEQ);
}

function randomServerFrame(random: () => number): FrameFromServer {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const int = (max: number) => Math.floor(random() * (max + 1));
  const channel = random() < 0.5 ? int(3) : int(0xffff_ffff);
  switch (int(10)) {
    case 0:
      return { type: 'welcome', protocolVersion: int(65535), serverBoot: randomString(random, 20), serverVersion: randomString(random, 8), ...(random() < 0.5 ? { serverBuild: randomString(random, 16) } : {}) };
    case 1: {
      const modes: ScreenModes = { ...modesOff, cursorX: int(65535), cursorY: int(65535), mouseTracking: pick(MOUSE_TRACKINGS), mouseEncoding: pick(MOUSE_ENCODINGS) };
      for (const flag of MODE_FLAGS) modes[flag] = random() < 0.5;
      const frame: FrameFromServer = { type: 'snapshot', channel, boot: randomString(random, 12), seq: randomSeq(random), cols: 1 + int(999), rows: 1 + int(999), modes, data: randomString(random, 200) };
      if (random() < 0.3) frame.view = true;
      return frame;
    }
    case 2:
      return { type: 'data', channel, seq: randomSeq(random), data: randomBytes(random, 300) };
    case 3:
      return { type: 'resize', channel, cols: 1 + int(999), rows: 1 + int(999) };
    case 4:
      return { type: 'title', channel, title: randomString(random, 40) };
    case 5:
      return { type: 'exit', channel, code: int(0xffff_ffff) - 0x8000_0000, signal: int(64) };
    case 6:
      return { type: 'state', channel, state: { agent: randomString(random, 6), n: int(1e9) / 7, ok: random() < 0.5, list: [randomString(random, 3), null, -int(99)], nested: { [randomString(random, 4)]: {} } } };
    case 7:
      return { type: 'error', channel, code: int(65535), message: randomString(random, 40) };
    case 8:
      return { type: 'closed', channel, reason: pick(Object.values(CloseReason)), message: randomString(random, 40) };
    case 9:
      return { type: 'scrollback', channel, firstRow: randomSeq(random), rows: int(0xffff_ffff), dropped: int(0xffff_ffff), oldest: random() < 0.5, text: randomString(random, 40) };
    default:
      return { type: 'input-taken', channel, total: randomSeq(random) };
  }
}

function randomViewerFrame(random: () => number): FrameFromViewer {
  const int = (max: number) => Math.floor(random() * (max + 1));
  const channel = random() < 0.5 ? int(3) : int(0xffff_ffff);
  // No NUL in names: the C encoders take them as C strings.
  const name = (max: number) => randomString(random, max).replaceAll('\x00', '');
  switch (int(6)) {
    case 0: {
      const frame: FrameFromViewer = { type: 'hello', protocolVersion: 2, clientKind: (['cli', 'web', 'script'] as const)[int(2)]!, readOnly: random() < 0.5 };
      if (random() < 0.7) frame.writer = Uint8Array.from({ length: 16 }, () => int(255));
      if (random() < 0.5) frame.asksBuild = true;
      return frame;
    }
    case 1: {
      const frame: FrameFromViewer = { type: 'subscribe', channel, sessionId: name(30), cols: 1 + int(999), rows: 1 + int(999) };
      if (random() < 0.5) {
        let boot = name(12);
        while (utf8(boot).length > C_MAX_RESUME_BOOT_BYTES) boot = boot.slice(0, -1);
        frame.resume = { boot, seq: randomSeq(random) };
      }
      if (random() < 0.5) frame.keepsHistory = true;
      if (random() < 0.5) frame.repaint = true;
      return frame;
    }
    case 2:
      return { type: 'unsubscribe', channel };
    case 3:
      return { type: 'input', channel, data: randomBytes(random, 300) };
    case 4: {
      const data = randomBytes(random, 300);
      return { type: 'input-at', channel, at: Math.max(0, randomSeq(random) - data.length), data };
    }
    case 5:
      return { type: 'resize-request', channel, cols: 1 + int(999), rows: 1 + int(999) };
    default:
      return { type: 'ack', channel, seq: randomSeq(random) };
  }
}

/** A valid frame broken a little: cut, lengthened, a byte changed, or a seq or length field pushed up. */
function mutate(random: () => number, bytes: Uint8Array): Uint8Array {
  const int = (max: number) => Math.floor(random() * (max + 1));
  const copy = bytes.slice();
  switch (int(4)) {
    case 0:
      return bytes.slice(0, int(bytes.length - 1));
    case 1:
      return Uint8Array.from([...bytes, ...randomBytes(random, 4)]);
    case 2:
      if (copy.length > 0) copy[int(copy.length - 1)] = int(255);
      return copy;
    case 3:
      // The high bytes of a seq (at 5..12 in most server frames) near 2^53.
      if (copy.length >= 13) copy[11] = [0x1f, 0x20, 0x3f, 0xff][int(3)]!;
      return copy;
    default:
      for (let i = 0; i < 1 + int(3) && copy.length > 0; i++) {
        const at = int(copy.length - 1);
        copy[at] = copy[at]! ^ (1 << int(7));
      }
      return copy;
  }
}

// ---------------------------------------------------------------- tests

describe('the native viewer frame codec matches viewer-frames.ts', () => {
  test('every kind of server frame the server encodes decodes in C to the values TypeScript reads', () => {
    const frames = fixedServerFrames();
    const { accepted } = assertSameDecoding(frames.map(encodeFrameToViewer), 'fixed server frame');
    assert.equal(accepted, frames.length);
    // And those values are the ones encoded (round trip through TypeScript is exact for these).
    const answers = oracle(frames.map((f) => `decode ${toHex(encodeFrameToViewer(f))}`));
    frames.forEach((frame, i) => assert.deepEqual(answers[i], oracleShape(frame), `fixed server frame #${i}`));
  });

  test('every viewer frame C encodes is byte for byte what TypeScript encodes, and the server reads the values given', () => {
    assertSameEncoding(fixedViewerFrames(), 'fixed viewer frame');
  });

  test('malformed server frames are refused by both', () => {
    const cases = malformedServerFrames();
    for (const [what, bytes] of cases) assert.equal(tsDecodeServer(bytes), null, `TypeScript takes "${what}"`);
    const answers = oracle(cases.map(([, bytes]) => `decode ${toHex(bytes)}`));
    cases.forEach(([what, bytes], i) => assert.equal(typeof answers[i]!.error, 'string', `C takes "${what}" (${toHex(bytes)}): ${JSON.stringify(answers[i])}`));
  });

  test('viewer frames TypeScript refuses to encode, C refuses too', () => {
    const refusals: Array<[string, FrameFromViewer]> = [
      ['cols 0', { type: 'resize-request', channel: 1, cols: 0, rows: 24 }],
      ['cols 1001', { type: 'resize-request', channel: 1, cols: 1001, rows: 24 }],
      ['rows 1001 in a subscribe', { type: 'subscribe', channel: 1, sessionId: 's', cols: 80, rows: 1001 }],
      ['an ack of 2^53', { type: 'ack', channel: 1, seq: 2 ** 53 }],
      ['an INPUT_AT at 2^53', { type: 'input-at', channel: 1, at: 2 ** 53, data: new Uint8Array(0) }],
      ['a resume seq of 2^53', { type: 'subscribe', channel: 1, sessionId: 's', resume: { boot: 'b', seq: 2 ** 53 }, cols: 80, rows: 24 }],
      ['a session id over 1024 bytes', { type: 'subscribe', channel: 1, sessionId: 'é'.repeat(513), cols: 80, rows: 24 }],
      ['an unknown client kind', { type: 'hello', protocolVersion: 2, clientKind: 'tty' as ClientKind, readOnly: false }],
    ];
    const answers = oracle(refusals.map(([, frame]) => encodeRequest(frame)));
    refusals.forEach(([what, frame], i) => {
      assert.throws(() => encodeFrameToServer(frame), { code: 'TEND_ERR_FRAME_BAD_FIELD' }, `TypeScript encodes ${what}`);
      assert.equal(typeof answers[i]!.error, 'string', `C encodes ${what}: ${JSON.stringify(answers[i])}`);
    });
    // An INPUT_AT whose last byte is past 2^53 - 1: TypeScript writes it and the server
    // refuses it; C does not write it at all.
    const past: FrameFromViewer = { type: 'input-at', channel: 1, at: MAX_SEQ, data: utf8('x') };
    assert.throws(() => decodeFrameFromViewer(encodeFrameToServer(past)), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD' });
    assert.equal(typeof oracle([encodeRequest(past)])[0]!.error, 'string');
  });

  test('a few hundred seeded random frames agree both ways, and so do their mutations', () => {
    const random = seededRandom(0x7e9d);
    const serverFrames = Array.from({ length: 400 }, () => randomServerFrame(random));
    const serverBytes = serverFrames.map(encodeFrameToViewer);
    const { accepted } = assertSameDecoding(serverBytes, 'random server frame');
    assert.equal(accepted, serverFrames.length);

    assertSameEncoding(Array.from({ length: 400 }, () => randomViewerFrame(random)), 'random viewer frame');

    // Mutations of valid frames: C takes exactly what TypeScript takes. Some of
    // each must go each way, or the mutations test nothing.
    const mutated = Array.from({ length: 3000 }, () => mutate(random, serverBytes[Math.floor(random() * serverBytes.length)]!));
    const split = assertSameDecoding(mutated, 'mutated server frame');
    assert.ok(split.accepted > 300 && split.refused > 300, `mutations accepted ${split.accepted}, refused ${split.refused}`);
  });

  test('STATE: C takes exactly the JSON objects JSON.parse takes', () => {
    const random = seededRandom(0x57a7e);
    const seeds = ['{}', '{"a":1}', '{"x":[1,[2,{}],[]],"y":{"z":[true]}}', '{"agent":{"state":"working","n":[1,-2.5e+3,0.1,1E9,null,true,false]},"s":"\\u00e9\\n\\"\\/"}', ' {"x" : [ ] , "y" : { } } ', '{"a":"\\ud800"}'];
    const alphabet = ['{', '}', '[', ']', '"', ':', ',', ' ', '\t', '\n', '\\', 'u', '0', '1', '9', '-', '+', '.', 'e', 'E', 't', 'r', 'f', 'n', 'a', 'l', 's', '\x01', 'é'];
    const texts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const chars = [...seeds[Math.floor(random() * seeds.length)]!];
      for (let k = 0; k < 1 + Math.floor(random() * 3); k++) {
        const at = Math.floor(random() * (chars.length + 1));
        const op = random();
        if (op < 0.4) chars.splice(at, 1);
        else if (op < 0.8) chars.splice(at, 0, alphabet[Math.floor(random() * alphabet.length)]!);
        else chars[Math.min(at, chars.length - 1)] = alphabet[Math.floor(random() * alphabet.length)]!;
      }
      texts.push(chars.join(''));
    }
    const frames = texts.map((t) => Uint8Array.from([0x87, 1, 0, 0, 0, ...utf8(t)]));
    const split = assertSameDecoding(frames, 'mutated STATE');
    assert.ok(split.accepted > 100 && split.refused > 100, `STATE mutations accepted ${split.accepted}, refused ${split.refused}`);
  });
});
