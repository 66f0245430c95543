import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DetachKeyFilter, DetachKeyError, parseDetachKey } from './detach-key.js';

const bytes = (s: string) => Uint8Array.from(Buffer.from(s, 'binary'));
const text = (b: Uint8Array) => Buffer.from(b).toString('binary');

describe('parseDetachKey', () => {
  test('reads C-x, ctrl-x, ^X and a raw control character', () => {
    assert.equal(parseDetachKey('C-\\'), 0x1c);
    assert.equal(parseDetachKey('C-a'), 0x01);
    assert.equal(parseDetachKey('ctrl-A'), 0x01);
    assert.equal(parseDetachKey('^]'), 0x1d);
    assert.equal(parseDetachKey('\x02'), 0x02);
  });

  test('refuses printable keys and DEL with a message that names a valid form', () => {
    assert.throws(() => parseDetachKey('a'), (err: unknown) => err instanceof DetachKeyError && /C-a/.test(err.message));
    assert.throws(() => parseDetachKey('C-1'), DetachKeyError);
    assert.throws(() => parseDetachKey('C-?'), /Backspace/);
  });
});

describe('DetachKeyFilter', () => {
  test('passes a read without the prefix through as the same bytes', () => {
    const f = new DetachKeyFilter();
    const chunk = bytes('hello \xed\x95\x9c');
    const out = f.feed(chunk);
    assert.equal(out.detach, false);
    assert.equal(out.forward, chunk);
  });

  test('detaches on the prefix then d, forwarding what came before it', () => {
    const out = new DetachKeyFilter().feed(bytes('ls\x1cdrest'));
    assert.equal(out.detach, true);
    assert.equal(text(out.forward), 'ls');
  });

  test('detaches when the prefix and d arrive in separate reads', () => {
    const f = new DetachKeyFilter();
    const first = f.feed(bytes('x\x1c'));
    assert.equal(text(first.forward), 'x');
    assert.equal(f.isPending, true);
    assert.equal(f.feed(bytes('d')).detach, true);
  });

  test('sends the prefix and the next byte when the next byte is not d', () => {
    const out = new DetachKeyFilter().feed(bytes('\x1cx'));
    assert.equal(out.detach, false);
    assert.equal(text(out.forward), '\x1cx');
  });

  test('sends one prefix for the prefix pressed twice, then goes on', () => {
    const f = new DetachKeyFilter();
    assert.equal(text(f.feed(bytes('\x1c\x1cd')).forward), '\x1cd');
    assert.equal(f.isPending, false);
  });

  test('uses a configured prefix and leaves the default one alone', () => {
    const f = new DetachKeyFilter(0x01);
    assert.equal(text(f.feed(bytes('\x1cd')).forward), '\x1cd');
    assert.equal(f.feed(bytes('\x01d')).detach, true);
  });
});
