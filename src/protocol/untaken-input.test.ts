import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_INPUT_BYTES_PER_FRAME, WRITER_ID_BYTES } from './viewer-frames.js';
import { UntakenInput, newWriterId } from './untaken-input.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (pieces: ReadonlyArray<{ data: Uint8Array }>) => pieces.map((p) => new TextDecoder().decode(p.data)).join('');
const numbered = (pieces: ReadonlyArray<{ at: number; data: Uint8Array }>) => pieces.map((p) => [p.at, text([p])]);

describe('UntakenInput', () => {
  test('numbers bytes typed from 0 in the order typed, and hands each piece out once per connection', () => {
    const input = new UntakenInput();
    input.add(utf8('ls'));
    assert.deepEqual(numbered(input.unsent()), [[0, 'ls']]);
    input.add(utf8(' -l\r'));
    assert.deepEqual(numbered(input.unsent()), [[2, ' -l\r']]);
    assert.deepEqual(input.unsent(), []);
    assert.equal(input.nextAt, 6);
    assert.equal(input.untakenBytes, 6);
  });

  test('after a rewind (a new connection) everything not yet taken is handed out again at its numbers', () => {
    const input = new UntakenInput();
    input.add(utf8('abc'));
    input.add(utf8('def'));
    input.add(utf8('ghi'));
    input.unsent();
    assert.equal(input.take(4), true);
    input.rewind();
    // "abc" is gone; "def" was taken in part and goes again whole (the holder drops the part it has).
    assert.deepEqual(numbered(input.unsent()), [[3, 'def'], [6, 'ghi']]);
    assert.equal(input.untakenBytes, 5);
    assert.equal(input.take(9), true);
    input.rewind();
    assert.deepEqual(input.unsent(), []);
    assert.equal(input.untakenBytes, 0);
  });

  test('bytes typed while away are handed out after the ones kept from before', () => {
    const input = new UntakenInput();
    input.add(utf8('one'));
    input.unsent();
    input.add(utf8('two'));
    input.rewind();
    assert.deepEqual(numbered(input.unsent()), [[0, 'one'], [3, 'two']]);
  });

  test('an INPUT_TAKEN answered late (lower) or past what was typed changes nothing', () => {
    const input = new UntakenInput();
    input.add(utf8('hello'));
    assert.equal(input.take(3), true);
    assert.equal(input.take(2), false);
    assert.equal(input.take(3), false);
    assert.equal(input.take(6), false, 'not this viewer\'s count');
    assert.equal(input.taken, 3);
    assert.equal(text(input.unsent()), 'hello');
  });

  test('a paste is cut into INPUT_AT pieces of at most 64 KiB, never inside a character', () => {
    const input = new UntakenInput();
    input.add(utf8('한'.repeat(50_000))); // 150 000 bytes of 3-byte characters
    const pieces = input.unsent();
    assert.ok(pieces.length === 3 && pieces.every((p) => p.data.length <= MAX_INPUT_BYTES_PER_FRAME && p.data.length % 3 === 0));
    assert.deepEqual(pieces.map((p) => p.at), pieces.map((_, i) => pieces.slice(0, i).reduce((n, q) => n + q.data.length, 0)));
    assert.equal(text(pieces), '한'.repeat(50_000));
  });

  test('keeps its own copy: the caller may reuse its buffer', () => {
    const input = new UntakenInput();
    const buffer = utf8('abc');
    input.add(buffer);
    buffer.fill(0x7a);
    assert.equal(text(input.unsent()), 'abc');
  });

  test('forgetting (a revived session: another program) drops what was not taken and numbers on', () => {
    const input = new UntakenInput();
    input.add(utf8('for the old shell'));
    input.forget();
    input.rewind();
    assert.deepEqual(input.unsent(), []);
    assert.equal(input.untakenBytes, 0);
    input.add(utf8('x'));
    assert.deepEqual(numbered(input.unsent()), [[17, 'x']]);
  });

  test('writer ids are 16 random bytes', () => {
    const a = newWriterId();
    const b = newWriterId();
    assert.equal(a.length, WRITER_ID_BYTES);
    assert.notDeepEqual(a, b);
  });

  test('resumed goes on from another viewer\'s state: the same numbers, and what was not taken is sent again', () => {
    const resumed = UntakenInput.resumed({ next: 9, taken: 4, pieces: [{ at: 3, data: utf8('def') }, { at: 6, data: utf8('ghi') }] });
    assert.equal(resumed.nextAt, 9);
    assert.equal(resumed.taken, 4);
    assert.equal(resumed.untakenBytes, 5);
    assert.deepEqual(numbered(resumed.unsent()), [[3, 'def'], [6, 'ghi']]);
    resumed.add(utf8('j'));
    assert.deepEqual(numbered(resumed.unsent()), [[9, 'j']]);
    assert.equal(resumed.take(10), true);
    assert.equal(resumed.untakenBytes, 0);
    assert.equal(UntakenInput.resumed({ next: 5, taken: 5, pieces: [] }).nextAt, 5);
  });

  test('resumed refuses pieces that do not run, without a gap, from what was taken to next', () => {
    const piece = (at: number, s: string) => ({ at, data: utf8(s) });
    assert.throws(() => UntakenInput.resumed({ next: 3, taken: 4, pieces: [] }), RangeError);
    assert.throws(() => UntakenInput.resumed({ next: 6, taken: 0, pieces: [piece(1, 'bcdef')] }), RangeError, 'a gap before the first piece');
    assert.throws(() => UntakenInput.resumed({ next: 6, taken: 3, pieces: [piece(0, 'abc'), piece(3, 'def')] }), RangeError, 'a first piece wholly taken');
    assert.throws(() => UntakenInput.resumed({ next: 7, taken: 0, pieces: [piece(0, 'abc'), piece(4, 'efg')] }), RangeError, 'a gap between pieces');
    assert.throws(() => UntakenInput.resumed({ next: 9, taken: 0, pieces: [piece(0, 'abc')] }), RangeError, 'pieces short of next');
    assert.throws(() => UntakenInput.resumed({ next: 2 ** 53, taken: 0, pieces: [] }), RangeError);
  });
});
