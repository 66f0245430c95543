import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DetachKeyError, describeDetachKey, parseDetachKey } from './detach-key.js';

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

  test('shows a prefix as Ctrl- and its key', () => {
    assert.equal(describeDetachKey(0x1c), 'Ctrl-\\');
    assert.equal(describeDetachKey(0x01), 'Ctrl-A');
  });
});
