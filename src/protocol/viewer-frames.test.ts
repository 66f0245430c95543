import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CloseReason,
  FrameType,
  MAX_WINDOW_KEY_BYTES,
  ViewerErrorCode,
  ViewerFrameError,
  decodeFrameFromServer,
  decodeFrameFromViewer,
  encodeFrameToServer,
  encodeFrameToViewer,
  splitInput,
  type FrameFromServer,
  type FrameFromViewer,
  type ScreenModes,
} from './viewer-frames.js';

const hex = (s: string) => Uint8Array.from(s.replace(/\s+/g, '').match(/../g)!.map((b) => parseInt(b, 16)));
const toHex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
const utf8 = (s: string) => new TextEncoder().encode(s);

const modes: ScreenModes = {
  cursorX: 7,
  cursorY: 23,
  cursorHidden: true,
  altScreen: false,
  applicationCursorKeys: true,
  applicationKeypad: false,
  bracketedPaste: true,
  sendFocus: false,
  originMode: false,
  insertMode: false,
  wraparound: true,
  mouseTracking: 'drag',
  mouseEncoding: 'unknown',
};

const fromViewer: FrameFromViewer[] = [
  { type: 'hello', protocolVersion: 1, clientKind: 'cli', readOnly: false },
  { type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: true },
  { type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: false, typesToHolder: true, writer: new Uint8Array(16).fill(7) },
  { type: 'hello', protocolVersion: 65535, clientKind: 'script', readOnly: false },
  { type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: false, writer: Uint8Array.from({ length: 16 }, (_, i) => 0xf0 + i) },
  { type: 'subscribe', channel: 1, sessionId: 's-3f9a', cols: 80, rows: 24 },
  { type: 'subscribe', channel: 0xffff_ffff, sessionId: 'build·테스트', resume: { boot: 'b0a7', seq: 2 ** 53 - 1 }, cols: 1000, rows: 1 },
  { type: 'subscribe', channel: 2, sessionId: 's-1', resume: { boot: '9c1e', seq: 4096 }, cols: 100, rows: 30, keepsHistory: true, repaint: true },
  { type: 'subscribe', channel: 3, sessionId: 's-2', cols: 80, rows: 24, window: 'w1:8800:4242:917' },
  { type: 'unsubscribe', channel: 9 },
  { type: 'input', channel: 2, data: utf8('한국어 😀\r') },
  { type: 'input', channel: 2, data: new Uint8Array(0) },
  { type: 'input-at', channel: 2, at: 0, data: utf8('한국어 😀\r') },
  { type: 'input-at', channel: 2, at: 2 ** 53 - 1, data: new Uint8Array(0) },
  { type: 'resize-request', channel: 2, cols: 132, rows: 50 },
  { type: 'ack', channel: 4, seq: 0 },
  { type: 'ack', channel: 4, seq: 281_474_976_710_656 + 12345 },
  { type: 'scrollback-request', channel: 4, beforeRow: 10_000, count: 500 },
  { type: 'scrollback-request', channel: 4, beforeRow: 2 ** 53 - 1, count: 10_000 },
];

const fromServer: FrameFromServer[] = [
  { type: 'welcome', protocolVersion: 1, serverBoot: '5c1e0d', serverVersion: '0.1.0' },
  { type: 'snapshot', channel: 3, boot: '5c1e0d', seq: 123_456_789_012, cols: 80, rows: 24, modes, data: '\x1b[1mbold\x1b[0m 한\r\n$ ' },
  { type: 'snapshot', channel: 3, boot: 'b', seq: 0, cols: 1, rows: 1, modes: { ...modes, mouseTracking: 'none', mouseEncoding: 'sgr', altScreen: true }, data: '' },
  // A view rendered for the viewer's size (SNAPSHOT_VIEW_FLAG) beside every mode flag.
  { type: 'snapshot', channel: 3, boot: 'b', seq: 7, cols: 80, rows: 24, modes: { ...modes, wraparound: true, cursorHidden: true }, data: '\x1b[1;1Hx', view: true },
  { type: 'data', channel: 3, seq: 2 ** 40, data: utf8('hello\r\n') },
  { type: 'data', channel: 3, seq: 5, data: new Uint8Array(0) },
  { type: 'resize', channel: 3, cols: 100, rows: 40 },
  { type: 'title', channel: 3, title: 'vim — 편집' },
  { type: 'exit', channel: 3, code: -1, signal: 9 },
  { type: 'exit', channel: 3, code: 0, signal: 0 },
  { type: 'state', channel: 3, state: { agent: 'waiting', bell: true, cwd: '/home/u', nested: { n: 1 } } },
  { type: 'error', channel: 0, code: ViewerErrorCode.BAD_ACK, message: 'ack 9 is past 5' },
  { type: 'closed', channel: 3, reason: CloseReason.SESSION_ENDED, message: 'the shell exited' },
  { type: 'scrollback', channel: 3, firstRow: 2 ** 40 + 7, rows: 2, dropped: 0, oldest: false, text: '\x1b[0;31mred\x1b[0m\r\nplain' },
  { type: 'scrollback', channel: 3, firstRow: 0, rows: 0, dropped: 123, oldest: true, text: '' },
  { type: 'input-taken', channel: 3, total: 0 },
  { type: 'input-taken', channel: 3, total: 2 ** 53 - 1 },
  { type: 'input-route', channel: 3, holderSocket: '/run/user/1000/tend/h/0123abcd.sock' },
  { type: 'input-route', channel: 3, holderSocket: '' },
];

describe('viewer frames', () => {
  test('every viewer frame survives encode then decode', () => {
    for (const frame of fromViewer) assert.deepEqual(decodeFrameFromViewer(encodeFrameToServer(frame)), frame);
  });

  test('every server frame survives encode then decode', () => {
    for (const frame of fromServer) assert.deepEqual(decodeFrameFromServer(encodeFrameToViewer(frame)), frame);
  });

  test('golden frames have the documented bytes', () => {
    const golden: Array<[Uint8Array, string]> = [
      // type, channel u32 LE, then the payload
      [encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: true }), '01 00000000 0100 02 01'],
      [encodeFrameToServer({ type: 'ack', channel: 3, seq: 0x01_0203_0405 }), '06 03000000 0504030201000000'],
      [encodeFrameToServer({ type: 'input', channel: 1, data: utf8('한') }), '04 01000000 ed959c'],
      [
        encodeFrameToServer({ type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: false, writer: Uint8Array.from({ length: 16 }, (_, i) => i) }),
        '01 00000000 0200 01 00 000102030405060708090a0b0c0d0e0f',
      ],
      [encodeFrameToServer({ type: 'input-at', channel: 1, at: 0x0102, data: utf8('ok') }), '08 01000000 0201000000000000 6f6b'],
      [encodeFrameToViewer({ type: 'input-taken', channel: 1, total: 2 ** 32 + 3 }), '8b 01000000 0300000001000000'],
      [encodeFrameToViewer({ type: 'input-route', channel: 1, holderSocket: 'h.s' }), '8c 01000000 0300 682e73'],
      [encodeFrameToServer({ type: 'resize-request', channel: 2, cols: 80, rows: 24 }), '05 02000000 5000 1800'],
      [
        encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 'ab', resume: { boot: 'z', seq: 256 }, cols: 80, rows: 24 }),
        '02 01000000 5000 1800 01 0001000000000000 0100 7a 0200 6162',
      ],
      [
        encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 'ab', cols: 80, rows: 24, keepsHistory: true, window: 'w' }),
        // flags KEEPS_HISTORY|WINDOW, no resume (seq 0, empty stream), then the window key as a name
        '02 01000000 5000 1800 0a 0000000000000000 0000 0200 6162 0100 77',
      ],
      [encodeFrameToViewer({ type: 'data', channel: 7, seq: 2 ** 32 + 1, data: utf8('ok') }), '83 07000000 0100000001000000 6f6b'],
      [encodeFrameToViewer({ type: 'welcome', protocolVersion: 1, serverBoot: 'b', serverVersion: '1' }), '81 00000000 0100 0100 62 0100 31'],
      [encodeFrameToViewer({ type: 'exit', channel: 1, code: -1, signal: 15 }), '86 01000000 ffffffff 0f000000'],
      [encodeFrameToViewer({ type: 'error', channel: 0, code: 6, message: 'x' }), '88 00000000 0600 78'],
      [encodeFrameToViewer({ type: 'closed', channel: 5, reason: CloseReason.UNSUBSCRIBED, message: '' }), '89 05000000 01'],
      [
        encodeFrameToViewer({ type: 'snapshot', channel: 1, boot: 'b', seq: 9, cols: 2, rows: 1, modes, data: 'A' }),
        // seq, cols, rows, cursor x, y, flags (hidden|app-cursor|paste|wrap = 0x115), drag=3, unknown=0, boot, data
        '82 01000000 0900000000000000 0200 0100 0700 1700 1501 03 00 0100 62 41',
      ],
    ];
    for (const [bytes, want] of golden) assert.equal(toHex(bytes), want.replace(/\s+/g, ''));
  });

  test('decodes a frame that sits at an offset inside a larger buffer', () => {
    const frame = encodeFrameToServer({ type: 'ack', channel: 3, seq: 77 });
    const big = new Uint8Array(frame.length + 10);
    big.set(frame, 7);
    assert.deepEqual(decodeFrameFromViewer(big.subarray(7, 7 + frame.length)), { type: 'ack', channel: 3, seq: 77 });
  });

  test('a server frame given to the server-side decoder is an error, not a misparse', () => {
    for (const frame of fromServer) {
      assert.throws(
        () => decodeFrameFromViewer(encodeFrameToViewer(frame)),
        (err: unknown) => err instanceof ViewerFrameError && err.code === 'TEND_ERR_FRAME_WRONG_DIRECTION' && /sent by the server/.test(err.message),
      );
    }
  });

  test('a viewer frame given to the viewer-side decoder is an error, not a misparse', () => {
    for (const frame of fromViewer) {
      assert.throws(
        () => decodeFrameFromServer(encodeFrameToServer(frame)),
        (err: unknown) => err instanceof ViewerFrameError && err.code === 'TEND_ERR_FRAME_WRONG_DIRECTION' && /sent by viewers/.test(err.message),
      );
    }
  });

  test('Korean text committed in one INPUT frame decodes whole', () => {
    // What an IME commits at once: whole syllables, never a part of one.
    const committed = utf8('안녕하세요, 세계');
    const frame = decodeFrameFromViewer(encodeFrameToServer({ type: 'input', channel: 1, data: committed }));
    assert.equal(frame.type, 'input');
    assert.deepEqual(frame.type === 'input' && frame.data, committed);
    assert.equal(new TextDecoder('utf-8', { fatal: true }).decode(frame.type === 'input' ? frame.data : undefined), '안녕하세요, 세계');
  });

  test('an INPUT frame that starts with bytes that look like a seq still decodes as raw input', () => {
    // The bug this protocol was designed against: a shared decoder read an
    // input frame's first 8 bytes as a seq. Here they must stay data.
    const data = hex('ffffffffffffffff ed959c');
    const frame = decodeFrameFromViewer(encodeFrameToServer({ type: 'input', channel: 1, data }));
    assert.deepEqual(frame, { type: 'input', channel: 1, data });
  });

  test('a frame over the size limit is refused before any field is read', () => {
    const big = encodeFrameToServer({ type: 'input', channel: 1, data: new Uint8Array(2000) });
    assert.throws(
      () => decodeFrameFromViewer(big, { maxFrameBytes: 1000 }),
      (err: unknown) => err instanceof ViewerFrameError && err.code === 'TEND_ERR_FRAME_TOO_LARGE' && err.wireCode === ViewerErrorCode.TOO_LARGE,
    );
    // Even when the type byte is garbage: the length is checked first.
    const junk = new Uint8Array(2000).fill(0x7f);
    assert.throws(() => decodeFrameFromViewer(junk, { maxFrameBytes: 1000 }), { code: 'TEND_ERR_FRAME_TOO_LARGE' });
    assert.throws(() => decodeFrameFromServer(new Uint8Array(33 * 1024 * 1024)), { code: 'TEND_ERR_FRAME_TOO_LARGE' });
  });

  test('truncated, overlong and unknown frames are errors with stable codes', () => {
    const ack = encodeFrameToServer({ type: 'ack', channel: 1, seq: 5 });
    assert.throws(() => decodeFrameFromViewer(ack.subarray(0, ack.length - 1)), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /truncated/ });
    const longer = new Uint8Array(ack.length + 1);
    longer.set(ack);
    assert.throws(() => decodeFrameFromViewer(longer), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /too many/ });
    assert.throws(() => decodeFrameFromViewer(hex('01 0000')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /header/ });
    assert.throws(() => decodeFrameFromViewer(hex('3f 00000000')), { code: 'TEND_ERR_FRAME_UNKNOWN' });
    assert.throws(() => decodeFrameFromServer(hex('bf 00000000')), { code: 'TEND_ERR_FRAME_UNKNOWN' });
  });

  test('a SUBSCRIBE window key is 1 to MAX_WINDOW_KEY_BYTES bytes, on either side', () => {
    const sub = (window: string): FrameFromViewer => ({ type: 'subscribe', channel: 1, sessionId: 's', cols: 80, rows: 24, window });
    assert.throws(() => encodeFrameToServer(sub('')), /window is 0 bytes/);
    assert.throws(() => encodeFrameToServer(sub('x'.repeat(MAX_WINDOW_KEY_BYTES + 1))), /window is 65 bytes/);
    assert.equal((decodeFrameFromViewer(encodeFrameToServer(sub('x'.repeat(MAX_WINDOW_KEY_BYTES)))) as { window: string }).window.length, MAX_WINDOW_KEY_BYTES);
    // The flag with an empty key, and with one too long, written by hand.
    assert.throws(() => decodeFrameFromViewer(hex('02 01000000 5000 1800 08 0000000000000000 0000 0100 73 0000')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /window is 0 bytes/ });
    const long = encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's', cols: 80, rows: 24 });
    const withLong = new Uint8Array(long.length + 2 + 65);
    withLong.set(long);
    withLong[9] = 0x08;
    withLong[long.length] = 65;
    withLong.fill(0x78, long.length + 2);
    assert.throws(() => decodeFrameFromViewer(withLong), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /window is 65 bytes/ });
    // The flag without the key: the frame is short.
    assert.throws(() => decodeFrameFromViewer(hex('02 01000000 5000 1800 08 0000000000000000 0000 0100 73')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /truncated/ });
  });

  test('a seq past 2^53 - 1 is refused rather than rounded', () => {
    assert.throws(() => decodeFrameFromViewer(hex('06 01000000 0000000000002000')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /2\^53/ });
    assert.equal((decodeFrameFromViewer(hex('06 01000000 ffffffffffff1f00')) as { seq: number }).seq, Number.MAX_SAFE_INTEGER);
  });

  test('acks that are negative, fractional or unsafe cannot be encoded', () => {
    for (const seq of [-1, 1.5, 2 ** 53, Number.NaN, Infinity]) {
      assert.throws(() => encodeFrameToServer({ type: 'ack', channel: 1, seq }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
    }
  });

  test('sizes outside 1..1000 are refused both ways', () => {
    assert.throws(() => encodeFrameToServer({ type: 'resize-request', channel: 1, cols: 0, rows: 24 }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
    assert.throws(() => encodeFrameToViewer({ type: 'resize', channel: 1, cols: 80, rows: 1001 }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
    assert.throws(() => decodeFrameFromViewer(hex('05 01000000 0000 1800')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /size/ });
  });

  test('a HELLO writer is 16 bytes or absent: any other length is refused both ways', () => {
    assert.throws(() => encodeFrameToServer({ type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: false, writer: new Uint8Array(15) }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
    assert.throws(() => decodeFrameFromViewer(hex('01 00000000 0200 01 00 0102')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /writer/ });
    // The version-1 HELLO, four bytes, stays valid: that viewer just has no writer.
    assert.equal((decodeFrameFromViewer(hex('01 00000000 0100 01 00')) as { writer?: Uint8Array }).writer, undefined);
  });

  test('an INPUT_AT whose last byte would be past 2^53 - 1 is refused', () => {
    assert.throws(() => decodeFrameFromViewer(hex('08 01000000 ffffffffffff1f00 61')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /2\^53/ });
  });

  test('a HELLO may ask for the server\'s build (flag 0x02), and only then does WELCOME carry it, after the version', () => {
    const asking = encodeFrameToServer({ type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: true, asksBuild: true });
    assert.equal(toHex(asking), '010000000002000103');
    assert.deepEqual(decodeFrameFromViewer(asking), { type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: true, asksBuild: true });
    // A HELLO from before the flag decodes as it always did, without the field.
    assert.deepEqual(decodeFrameFromViewer(hex('01 00000000 0200 01 01')), { type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: true });
    const welcome = encodeFrameToViewer({ type: 'welcome', protocolVersion: 2, serverBoot: 'b', serverVersion: '1', serverBuild: 'c9' });
    assert.equal(toHex(welcome), '81000000000200' + '010062' + '010031' + '02006339');
    assert.deepEqual(decodeFrameFromServer(welcome), { type: 'welcome', protocolVersion: 2, serverBoot: 'b', serverVersion: '1', serverBuild: 'c9' });
    // Without the build it is byte for byte the WELCOME every older viewer reads (and refuses any longer).
    assert.equal(toHex(encodeFrameToViewer({ type: 'welcome', protocolVersion: 2, serverBoot: 'b', serverVersion: '1' })), '81000000000200010062010031');
  });

  test('fields a later server appends to WELCOME after the build are ignored; a torn build is refused', () => {
    const later = hex('81 00000000 0200 0100 62 0100 31 0200 6339 07 0500 6c61746572');
    assert.deepEqual(decodeFrameFromServer(later), { type: 'welcome', protocolVersion: 2, serverBoot: 'b', serverVersion: '1', serverBuild: 'c9' });
    assert.throws(() => decodeFrameFromServer(hex('81 00000000 0200 0100 62 0100 31 00')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD' });
    assert.throws(() => decodeFrameFromServer(hex('81 00000000 0200 0100 62 0100 31 0500 6339')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD' });
  });

  test('HELLO and WELCOME travel on channel 0 only', () => {
    assert.throws(() => decodeFrameFromViewer(hex('01 01000000 0100 01 00')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD', message: /channel 0/ });
    assert.throws(() => decodeFrameFromServer(hex('81 02000000 0100 0100 62 0100 31')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD' });
  });

  test('names and texts that are not UTF-8 are refused', () => {
    assert.throws(() => decodeFrameFromViewer(hex('02 01000000 5000 1800 00 0000000000000000 0000 0200 ff61')), {
      code: 'TEND_ERR_FRAME_BAD_PAYLOAD',
      message: /UTF-8/,
    });
    assert.throws(() => decodeFrameFromServer(hex('85 01000000 c3')), { message: /UTF-8/ });
    // Input is raw bytes, never judged as text.
    assert.deepEqual(decodeFrameFromViewer(hex('04 01000000 c3')), { type: 'input', channel: 1, data: hex('c3') });
  });

  test('a text or name that starts with U+FEFF keeps it on the way through', () => {
    const title = '\uFEFF\uFEFFtitle';
    assert.equal((decodeFrameFromServer(encodeFrameToViewer({ type: 'title', channel: 1, title })) as { title: string }).title, title);
    const sub: FrameFromViewer = { type: 'subscribe', channel: 1, sessionId: '\uFEFFs1', cols: 80, rows: 24 };
    assert.deepEqual(decodeFrameFromViewer(encodeFrameToServer(sub)), sub);
  });

  test('a name length past the frame is refused before reading it', () => {
    assert.throws(() => decodeFrameFromViewer(hex('02 01000000 5000 1800 00 0000000000000000 ff00')), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD' });
    assert.throws(() => decodeFrameFromViewer(hex('02 01000000 5000 1800 00 0000000000000000 ffff')), { message: /limit/ });
  });

  test('STATE must carry a JSON object', () => {
    assert.throws(() => decodeFrameFromServer(concat(hex('87 01000000'), utf8('[1]'))), { message: /object/ });
    assert.throws(() => decodeFrameFromServer(concat(hex('87 01000000'), utf8('{oops'))), { message: /JSON/ });
    assert.throws(() => encodeFrameToViewer({ type: 'state', channel: 1, state: null as unknown as Record<string, unknown> }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
  });

  test('the DATA bytes decoded are a copy the caller may keep', () => {
    const wire = encodeFrameToViewer({ type: 'data', channel: 1, seq: 3, data: utf8('abc') });
    const frame = decodeFrameFromServer(wire);
    wire.fill(0);
    assert.deepEqual(frame.type === 'data' && frame.data, utf8('abc'));
  });

  test('FrameType keeps the direction in the high bit', () => {
    for (const [name, type] of Object.entries(FrameType)) {
      const fromServerSide = ['WELCOME', 'SNAPSHOT', 'DATA', 'RESIZE', 'TITLE', 'EXIT', 'STATE', 'ERROR', 'CLOSED', 'SCROLLBACK', 'INPUT_TAKEN', 'INPUT_ROUTE'].includes(name);
      assert.equal((type & 0x80) !== 0, fromServerSide, name);
    }
  });
});

describe('splitInput', () => {
  test('a 10 MB paste of mixed scripts splits into frames that each decode as whole UTF-8', () => {
    const unit = 'ascii text, 한국어 문장, emoji 😀👍🏽, combining é\n';
    const text = unit.repeat(Math.ceil((10 * 1024 * 1024) / utf8(unit).length));
    const bytes = utf8(text);
    const pieces = splitInput(bytes);
    const strict = new TextDecoder('utf-8', { fatal: true });
    let rebuilt = '';
    let total = 0;
    for (const [i, piece] of pieces.entries()) {
      assert.ok(piece.length <= 64 * 1024);
      // Only the last piece may be short; the others lose at most 3 bytes to a boundary.
      if (i < pieces.length - 1) assert.ok(piece.length > 64 * 1024 - 4);
      rebuilt += strict.decode(piece);
      total += piece.length;
    }
    assert.equal(total, bytes.length);
    assert.equal(rebuilt, text);
  });

  test('a cut that would fall inside a 4-byte emoji moves back to its first byte', () => {
    const bytes = utf8('ab😀cd'); // a b f0 9f 98 80 c d
    assert.deepEqual(splitInput(bytes, 4).map((p) => [...p]), [[0x61, 0x62], [0xf0, 0x9f, 0x98, 0x80], [0x63, 0x64]]);
  });

  test('input that fits is one piece, and empty input is one empty piece', () => {
    assert.equal(splitInput(utf8('hi')).length, 1);
    assert.deepEqual(splitInput(new Uint8Array(0)), [new Uint8Array(0)]);
  });

  test('bytes that are not UTF-8 are still all delivered, in order', () => {
    const junk = new Uint8Array(100).fill(0x80);
    const pieces = splitInput(junk, 8);
    assert.equal(pieces.reduce((n, p) => n + p.length, 0), 100);
  });
});

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
