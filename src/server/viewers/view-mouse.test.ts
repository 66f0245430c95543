import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { shiftMouseReports } from './view-mouse.js';

const bytes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const text = (b: Uint8Array) => String.fromCharCode(...b);
const window = { originX: 20, originY: 6, cols: 100, rows: 30 };

describe('shiftMouseReports', () => {
  test('an SGR press and release in a cropped view land on the session cell under the pointer', () => {
    assert.equal(text(shiftMouseReports(bytes('\x1b[<0;5;3M\x1b[<0;5;3m'), window)), '\x1b[<0;25;9M\x1b[<0;25;9m');
  });

  test('a default-encoded report is shifted too', () => {
    const report = bytes(`\x1b[M ${String.fromCharCode(32 + 5)}${String.fromCharCode(32 + 3)}`);
    assert.equal(text(shiftMouseReports(report, window)), `\x1b[M ${String.fromCharCode(32 + 25)}${String.fromCharCode(32 + 9)}`);
  });

  test('a click on the dots past a smaller session is dropped; keys around it pass', () => {
    const padded = { originX: 0, originY: 0, cols: 60, rows: 10 };
    assert.equal(text(shiftMouseReports(bytes('a\x1b[<0;70;3Mb\x1b[<0;10;12Mc\x1b[<0;10;3M'), padded)), 'abc\x1b[<0;10;3M');
  });

  test('keys, arrows and partial reports pass unchanged', () => {
    for (const s of ['hello', '\x1b[A\x1b[B', '\x1bOP', '\x1b[<0;5', '\x1b[M !']) {
      assert.equal(text(shiftMouseReports(bytes(s), window)), s);
    }
  });
});
