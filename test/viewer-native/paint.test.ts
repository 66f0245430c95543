// The native viewer's painter, keys and untaken input (viewer/paint.c,
// keys.c, untaken.c) write and decide byte for byte what the TypeScript
// viewer does: the two hand a terminal and a session's input numbering to
// each other mid-attach, so a difference would show as a wrong repaint, a
// key that means another thing, or a byte typed twice. Each test asks the C
// side through its oracle (viewer/test/oracle_paint.c, one request a line)
// and holds every answer against the TypeScript functions for the same
// inputs: every mode combination, seeded random streams at random
// chunkings, unicode wider than the row, every spelling of a detach key.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AltScreenTracker,
  INPUT_MODES_OFF,
  assertInputModes,
  leaveSequence,
  paintSnapshot,
  paintView,
  statusLine,
} from '../../src/cli/attach/outer-modes.js';
import { DetachKeyError, describeDetachKey, parseDetachKey } from '../../src/cli/attach/detach-key.js';
import { PrefixKeyFilter } from '../../src/cli/attach/prefix-keys.js';
import { incompleteUtf8Tail } from '../../src/cli/attach/utf8-carry.js';
import { UntakenInput } from '../../src/protocol/untaken-input.js';
import { MAX_INPUT_BYTES_PER_FRAME, MODE_FLAG_BITS, type MouseEncoding, type MouseTracking, type ScreenModes } from '../../src/protocol/viewer-frames.js';
import { randomStream, seededRandom } from '../support/random-stream.js';
import { assertSameAnswers, hexOrDash as hex } from './oracle.js';

const TRACKINGS: readonly MouseTracking[] = ['none', 'x10', 'vt200', 'drag', 'any'];
const ENCODINGS: readonly MouseEncoding[] = ['unknown', 'default', 'utf8', 'sgr', 'urxvt', 'sgr-pixels'];
/** The SNAPSHOT mode bits, which the oracle reads modes as. */
const MODE_BITS = MODE_FLAG_BITS;
const ALL_MODE_FLAGS = 0x1ff;
/** MAX_COLS and MAX_ROWS of the protocol: the largest terminal a paint is for. */
const MAX_SIZE = 1000;

const bit = (on: boolean | undefined): string => (on === true ? '1' : '0');

function modesOf(flags: number, tracking: MouseTracking, encoding: MouseEncoding, cursorX = 0, cursorY = 0): ScreenModes {
  const modes: Record<string, unknown> = { cursorX, cursorY, mouseTracking: tracking, mouseEncoding: encoding };
  for (const [name, mask] of MODE_BITS) modes[name] = (flags & mask) !== 0;
  return modes as unknown as ScreenModes;
}
const modesWord = (flags: number, tracking: MouseTracking, encoding: MouseEncoding): string => `${flags},${tracking},${encoding}`;

function randomBytes(random: () => number, length: number, alphabet: readonly number[]): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = random() < 0.1 ? Math.floor(random() * 256) : alphabet[Math.floor(random() * alphabet.length)]!;
  return out;
}

/** Cuts bytes into random reads (some empty, some one byte, some long). */
function randomChunks(random: () => number, bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const r = random();
    const length = r < 0.05 ? 0 : r < 0.4 ? 1 : Math.floor(random() * 24);
    chunks.push(bytes.subarray(at, at + length));
    at += length;
  }
  return chunks;
}

const codes = (text: string): number[] => [...Buffer.from(text, 'latin1')];

describe('the native painter writes what outer-modes.ts writes', () => {
  test('input modes: every flag, tracking and encoding combination, and the modes-off string', () => {
    const cases = [{ request: 'off', want: hex(INPUT_MODES_OFF) }];
    for (let flags = 0; flags <= ALL_MODE_FLAGS; flags++) {
      for (const tracking of TRACKINGS) {
        for (const encoding of ENCODINGS) {
          cases.push({ request: `modes ${modesWord(flags, tracking, encoding)}`, want: hex(assertInputModes(modesOf(flags, tracking, encoding))) });
        }
      }
    }
    assertSameAnswers('oracle-paint', cases);
  });

  test('snapshots and views: seeded random screens, sizes, modes, first paints and alternate screens', () => {
    const random = seededRandom(29);
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 600; i++) {
      const cols = 1 + Math.floor(random() * (random() < 0.8 ? 200 : MAX_SIZE));
      const rows = 1 + Math.floor(random() * (random() < 0.8 ? 60 : MAX_SIZE));
      const data = i % 17 === 0 ? '' : randomStream(random, 1 + Math.floor(random() * 40), Math.min(cols, 120), Math.min(rows, 40));
      const flags = Math.floor(random() * (ALL_MODE_FLAGS + 1));
      const tracking = TRACKINGS[Math.floor(random() * TRACKINGS.length)]!;
      const encoding = ENCODINGS[Math.floor(random() * ENCODINGS.length)]!;
      const modes = modesOf(flags, tracking, encoding, Math.floor(random() * cols), Math.floor(random() * rows));
      const word = modesWord(flags, tracking, encoding);
      const inAltScreen = random() < 0.5;
      const first = random() < 0.5;
      cases.push({
        request: `snapshot ${hex(data)} ${word} ${rows} ${cols} ${bit(inAltScreen)} ${bit(first)}`,
        want: hex(paintSnapshot({ data, modes }, { outerRows: rows, outerCols: cols, inAltScreen, first })),
      });
      cases.push({ request: `view ${hex(data)} ${word} ${bit(inAltScreen)}`, want: hex(paintView({ data, modes }, { inAltScreen })) });
    }
    assertSameAnswers('oracle-paint', cases);
  });

  test('leaving: alternate screen and origin mode on and off, at many sizes (tab stops across every width)', () => {
    const cases: Array<{ request: string; want: string }> = [];
    for (const inAltScreen of [false, true]) {
      for (const originMode of [false, true]) {
        for (const cols of [1, 2, 7, 8, 9, 16, 17, 79, 80, 81, 132, 500, MAX_SIZE]) {
          for (const rows of [1, 2, 24, 50, MAX_SIZE]) {
            cases.push({
              request: `leave ${bit(inAltScreen)} ${bit(originMode)} ${cols} ${rows}`,
              want: hex(leaveSequence({ inAltScreen, originMode, cols, rows })),
            });
          }
        }
      }
    }
    assertSameAnswers('oracle-paint', cases);
  });

  test('status lines: unicode text cut to the columns in characters (not bytes, not UTF-16 units)', () => {
    const random = seededRandom(7);
    const pieces = ['a', 'Z', ' ', ':', 'é', 'e\u0301', '\u4e00', '\u754c', '\u{1f600}', '\u{1f468}\u200d\u{1f469}', 'ｱ', '─', '\u00a0', '\\', '%s'];
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 500; i++) {
      let text = '';
      const length = Math.floor(random() * 40);
      for (let k = 0; k < length; k++) text += pieces[Math.floor(random() * pieces.length)]!;
      const chars = [...text].length;
      const cols = Math.floor(random() * (chars + 4));
      const rows = 1 + Math.floor(random() * 100);
      cases.push({ request: `status ${hex(text)} ${cols} ${rows}`, want: hex(statusLine(text, { cols, rows })) });
    }
    cases.push({ request: `status ${hex('tend: reconnecting…')} 80 24`, want: hex(statusLine('tend: reconnecting…', { cols: 80, rows: 24 })) });
    assertSameAnswers('oracle-paint', cases);
  });

  test('the alternate-screen tracker: seeded random byte streams at random chunkings, state after every read', () => {
    const random = seededRandom(1049);
    const alphabet = codes('\x1b\x1b\x1b[[[???1049;;;6647hhhll0123x\n');
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 1500; i++) {
      // Mostly mode-switch soup; some real terminal output (the random screen streams), and
      // parameter runs around the 32 bytes the tracker reads before it gives a sequence up.
      const bytes = i % 5 === 0
        ? Buffer.from(randomStream(random, 30, 80, 24), 'utf8')
        : i % 5 === 1
          ? Buffer.from(`x\x1b[?${';'.repeat(24 + Math.floor(random() * 8))}${['1049', '47', '6', '6;1049'][i % 4]}${random() < 0.5 ? 'h' : 'l'}`, 'latin1')
          : randomBytes(random, Math.floor(random() * 200), alphabet);
      const chunks = randomChunks(random, bytes);
      const startActive = random() < 0.3;
      const tracker = new AltScreenTracker(startActive);
      const states = chunks.map((chunk) => {
        tracker.feed(chunk);
        return `${bit(tracker.active)}${bit(tracker.originMode)}`;
      });
      cases.push({ request: ['track', bit(startActive), ...chunks.map(hex)].join(' '), want: states.join(' ') });
    }
    assertSameAnswers('oracle-paint', cases);
  });
});

describe('the native keys decide what detach-key.ts, prefix-keys.ts and utf8-carry.ts decide', () => {
  test('the prefix filter: seeded random typing at random chunkings, with several prefixes', () => {
    const random = seededRandom(0x1c);
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 1500; i++) {
      const prefix = [0x1c, 0x1c, 0x01, 0x1d, 0x00, 0x02][i % 6]!;
      const alphabet = [prefix, prefix, prefix, 0x1b, 0x1b, ...codes('[[O;<1234567890dds?xM~A \x01\x7f'), 0xc3, 0xa9, 0xe4, 0xb8, 0x80, 0xf0, 0x9f, 0x98];
      const chunks = randomChunks(random, randomBytes(random, Math.floor(random() * 120), alphabet));
      const filter = new PrefixKeyFilter(prefix);
      const feeds: string[] = [];
      for (const chunk of chunks) {
        // As the viewer's loop feeds it: after a command, the rest of the read again.
        let rest = chunk;
        do {
          const r = filter.feed(rest);
          feeds.push(`${hex(r.forward)}:${r.command ?? 'none'}`);
          rest = r.command === null ? new Uint8Array(0) : r.rest;
        } while (rest.length > 0);
      }
      cases.push({ request: ['prefix', String(prefix), ...chunks.map(hex)].join(' '), want: feeds.join(' ') });
    }
    assertSameAnswers('oracle-paint', cases);
  });

  test('detach keys: every spelling of every ASCII key, unicode look-alikes, padding, and the refusals with their messages', () => {
    const spellings = new Set<string>(['', ' ', '\t', 'C-', '^', 'ctrl', 'ctrl-', 'C-ab', 'alt-a', 'M-a', 'Ctrl-\\\\', 'C-\\', ' C-\\ ']);
    for (let code = 0; code < 0x80; code++) {
      const ch = String.fromCharCode(code);
      spellings.add(ch);
      for (const word of ['c-', 'C-', 'ctrl-', 'CTRL-', 'Ctrl+', 'cTrL+', '^', 'ctl-', 'c+']) spellings.add(word + ch);
    }
    // Characters past ASCII whose upper case begins with a letter (ß is SS), others that do not, two UTF-16 units, line breaks.
    const unicode = ['ß', 'ı', 'ſ', 'ǰ', 'ẖ', 'ẗ', 'ẘ', 'ẙ', 'ẚ', 'ﬀ', 'ﬁ', 'ﬂ', 'ﬃ', 'ﬄ', 'ﬅ', 'ﬆ', 'é', 'K', 'İ', 'ａ', '\u{1f600}', '\u2028', '\u0085', 'Ω'];
    for (const ch of unicode) for (const word of ['c-', 'CTRL+', '^']) spellings.add(word + ch);
    // JavaScript's trim takes these off both ends (and the C viewer must too).
    for (const space of [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u0085', '\u200b']) {
      spellings.add(`${space}C-a${space}`);
      spellings.add(`${space}\x01`);
      spellings.add(`^]${space}`);
    }
    const cases: Array<{ request: string; want: string }> = [];
    // An argument never holds a NUL (it ends a C string): the C viewer cannot be given one.
    for (const spec of [...spellings].filter((s) => !s.includes('\0'))) {
      let want: string;
      try {
        want = `ok ${parseDetachKey(spec)}`;
      } catch (e) {
        assert.ok(e instanceof DetachKeyError);
        want = `error ${hex(e.message)}`;
      }
      cases.push({ request: `detach-key ${hex(spec)}`, want });
    }
    for (let prefix = 0; prefix < 0x20; prefix++) cases.push({ request: `describe ${prefix}`, want: hex(describeDetachKey(prefix)) });
    assertSameAnswers('oracle-paint', cases);
  });

  test('incomplete UTF-8 tails: seeded random ends of reads', () => {
    const random = seededRandom(8);
    const alphabet = [0x61, 0x80, 0x9f, 0xbf, 0xc0, 0xc2, 0xc3, 0xdf, 0xe0, 0xe4, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xff];
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 2000; i++) {
      const bytes = randomBytes(random, Math.floor(random() * 7), alphabet);
      cases.push({ request: `tail ${hex(bytes)}`, want: String(incompleteUtf8Tail(bytes)) });
    }
    assertSameAnswers('oracle-paint', cases);
  });
});

describe('the native untaken input numbers and splits as untaken-input.ts does', () => {
  const piecesOf = (data: Uint8Array): string => {
    const input = new UntakenInput();
    input.add(data);
    return input.unsent().map((p) => `${p.at}:${hex(p.data)}`).join(' ');
  };

  test('pastes past MAX_INPUT_BYTES_PER_FRAME split without cutting a UTF-8 character (and not-UTF-8 bytes stepped back at most 3)', () => {
    const random = seededRandom(64);
    const characters = ['a', 'é', '\u4e00', '\u{1f600}', '\n'].map((c) => Buffer.from(c, 'utf8'));
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 24; i++) {
      const length = MAX_INPUT_BYTES_PER_FRAME - 8 + Math.floor(random() * MAX_INPUT_BYTES_PER_FRAME * 2.2);
      const parts: Buffer[] = [];
      let size = 0;
      while (size < length) {
        // A run of one kind, so the limit falls inside each kind of character.
        const kind = characters[Math.floor(random() * characters.length)]!;
        const run = 1 + Math.floor(random() * 3000);
        for (let k = 0; k < run && size < length; k++, size += kind.length) parts.push(kind);
      }
      const data = i % 6 === 5 ? new Uint8Array(length).fill(0x80) : new Uint8Array(Buffer.concat(parts));
      cases.push({ request: `split ${hex(data)}`, want: piecesOf(data) });
    }
    for (const small of ['', 'a', 'héllo']) cases.push({ request: `split ${hex(small)}`, want: piecesOf(Buffer.from(small, 'utf8')) });
    assertSameAnswers('oracle-paint', cases);
  });

  test('add, take, rewind and send again: seeded random scripts give the same numbers and pieces', () => {
    const random = seededRandom(0x8b);
    const cases: Array<{ request: string; want: string }> = [];
    for (let i = 0; i < 400; i++) {
      const input = new UntakenInput();
      const ops: string[] = [];
      const answers: string[] = [];
      for (let step = 0; step < 30; step++) {
        const r = random();
        if (r < 0.35) {
          const data = Buffer.from('x'.repeat(Math.floor(random() * 6)) + (random() < 0.3 ? 'é' : ''), 'utf8');
          input.add(data);
          ops.push(`a:${hex(data)}`);
          answers.push('a');
        } else if (r < 0.6) {
          // Totals below, at and past what was typed (not this viewer's count).
          const total = Math.max(0, input.nextAt + Math.floor(random() * 8) - 6);
          ops.push(`t:${total}`);
          answers.push(`t${input.take(total) ? 1 : 0}`);
        } else if (r < 0.7) {
          input.rewind();
          ops.push('r');
          answers.push('r');
        } else if (r < 0.9) {
          ops.push('u');
          answers.push(`u${input.unsent().map((p) => `${p.at}:${p.data.length}`).join(',')}`);
        } else {
          ops.push('b');
          answers.push(`b${input.untakenBytes}`);
        }
      }
      cases.push({ request: ['untaken', ...ops].join(' '), want: answers.join(' ') });
    }
    assertSameAnswers('oracle-paint', cases);
  });
});
