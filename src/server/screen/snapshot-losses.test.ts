// One test per loss the stock serializer has (measured in the project's research),
// each inside ordinary output, restored and then continued on both sides.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { roundTrip, type RoundTripOptions } from '../../../test/support/round-trip-check.js';

const BEFORE = 'user@host:~$ ls\r\nsrc  test  README.md\r\n';

async function expectExact(input: string, options: RoundTripOptions): Promise<void> {
  const result = await roundTrip(BEFORE + input, options);
  assert.equal(result.unrestorable, undefined);
  assert.deepEqual(result.restored, [], `restore of ${JSON.stringify(input)}`);
  assert.deepEqual(result.continued, [], `continuation ${JSON.stringify(options.continuation)}`);
}

describe('snapshot keeps what the stock serializer loses', { timeout: 30_000 }, () => {
  test('1: a wrapped row whose continuation begins with blanks stays its own row', () =>
    expectExact('abcdabcdefghij\r\x1b[3X\r\nnext line\r\n\x1b[44mabcdabcdefgh\r\x1b[2Cx\x1b[0m', { cols: 10, rows: 8, continuation: 'tail\r\nmore' }));
  test('2: a soft-wrapped row with no characters gets no stray dash', () =>
    expectExact('ab\r\n\x1b[10G\u4e00z\r\n\x1b[9G\t\u754c', { cols: 10, rows: 6, continuation: 'q' }));
  test('3: the cursor comes back in its column after a full-width last row', () =>
    expectExact('\x1b[24;1H' + 'F1 Help  F2 Save  '.repeat(5).slice(0, 80) + '\x1b[5;7H', { continuation: 'typed' }));
  test('4: blanks keep inverse and underline', () =>
    expectExact('\x1b[7m\u4e00\x08a\x1b[0m \x1b[4;31m\u754c\x08b\x1b[0m', { continuation: 'c' }));
  test('5: bold+dim followed by dim only keeps the dim', () =>
    expectExact('\x1b[1;2mab\x1b[22;2mcd\x1b[0;2mef\x1b[1mgh', { continuation: 'ij' }));
  test('6: underline styles and underline colour', () =>
    expectExact('\x1b[4:2md\x1b[21mD\x1b[4:3mc\x1b[4:4mo\x1b[4:5ma\x1b[58;5;100mx\x1b[58;2;1;2;3my\x1b[58:2::9:8:7mz', { continuation: 'w' }));
  test('7: 256-colour indices below 16 stay 256-colour', () =>
    expectExact('\x1b[38;5;1mA\x1b[48;5;9mB\x1b[31mC\x1b[101mD', { continuation: 'E' }));
  test('8: OSC 8 hyperlinks stay links, not underlines', () =>
    expectExact('see \x1b]8;id=doc;https://example.com/doc\x1b\\the docs\x1b]8;;\x1b\\ and \x1b]8;;https://x.y/\x1b\\more', { continuation: ' still linked\x1b]8;;\x1b\\ plain' }));
  test('9: the title', async () => {
    const result = await roundTrip('\x1b]2;vim README.md\x07text', { continuation: '' });
    assert.deepEqual(result.restored, []);
    assert.equal(result.snapshot.title, 'vim README.md');
  });
  test('10: a hidden cursor and the cursor style', () =>
    expectExact('\x1b[?25l\x1b[6 qmonitor', { continuation: 'x' }));
  test('11: origin mode does not home the cursor, and later origin addressing lands right', () =>
    expectExact('\x1b[3;20r\x1b[?6h\x1b[5;9Hinside', { continuation: '\x1b[1;1Htop of region\x1b[30;1Hbottom' }));
  test('12: the scroll region, normal and alternate', () =>
    expectExact('\x1b[2;22r\x1b[22;1Hlast\x1b[?1049hedit\x1b[1;23r\x1b[23;1H', { continuation: '\n\n\nscrolled\x1b[?1049l\n\n\nout' }));
  test('13: custom tab stops', () =>
    expectExact('\x1b[3g\x1b[5G\x1bH\x1b[13G\x1bH\x1b[30G\x1bH\r', { continuation: 'a\tb\tc\td' }));
  test('14: charsets G0/G1 and the shift state', () =>
    expectExact('\x1b(0lqqk\x1b(B \x1b)0\x0exx\x1b*A', { continuation: 'lqk\x0fabc\x1bn#' }));
  test('15: the saved cursor, with its attributes', () =>
    expectExact('\x1b[5;5H\x1b[1;31m\x1b7\x1b[0m\x1b[12;1Hprompt\x1b[s\x1b[2;2H', { continuation: '\x1b8red\x1b[u plain' }));
  test('16: the mouse encoding', () =>
    expectExact('\x1b[?1002h\x1b[?1006h', { continuation: '' }));
  test('17: reverse video (DECSCNM) is not modelled by xterm.js: both sides ignore it', () =>
    expectExact('\x1b[?5hreverse?', { continuation: '\x1b[?5l' }));
  test('the pending-wrap position after a full row survives', () =>
    expectExact('x'.repeat(80), { continuation: 'wrapped' }));
  test('the alternate screen over a normal screen with scrollback', () =>
    expectExact('line\r\n'.repeat(60) + '\x1b[?1049h\x1b[2;3H\x1b[44mpane\x1b[K\x1b[0m', { continuation: 'X\x1b[?1049lafter' }));
  test("the normal screen's saved cursor, pen and charset while a program is on the alternate screen", () =>
    expectExact('line\r\n'.repeat(30) + '\x1b[7;12H\x1b[1;44m\x1b(0\x1b[?1049h\x1b[0m\x1b(B\x1b[2;3Hpane\x1b[20;1H', { continuation: '\x1b[?1049lqX\x1b[0mY' }));
  test('a screen-only snapshot of a buffer with scrollback', async () => {
    const result = await roundTrip('l\r\n'.repeat(100) + '\x1b[32mgreen', { snapshotScrollbackRows: 0, continuation: ' more' });
    assert.equal(result.snapshot.scrollbackRows, 0);
    assert.deepEqual(result.restored, []);
    assert.deepEqual(result.continued, []);
  });
});
