import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Utf8Carry, incompleteUtf8Tail } from './utf8-carry.js';

describe('incompleteUtf8Tail', () => {
  test('is 0 for text ending on a character boundary', () => {
    assert.equal(incompleteUtf8Tail(Buffer.from('abc')), 0);
    assert.equal(incompleteUtf8Tail(Buffer.from('한글')), 0);
    assert.equal(incompleteUtf8Tail(Buffer.from('🙂')), 0);
  });

  test('counts the bytes of a character cut at the end', () => {
    const han = Buffer.from('한'); // 3 bytes
    assert.equal(incompleteUtf8Tail(han.subarray(0, 1)), 1);
    assert.equal(incompleteUtf8Tail(han.subarray(0, 2)), 2);
    const emoji = Buffer.from('a🙂'); // 1 + 4 bytes
    assert.equal(incompleteUtf8Tail(emoji.subarray(0, 4)), 3);
  });

  test('holds nothing back for bytes that are not UTF-8', () => {
    assert.equal(incompleteUtf8Tail(Uint8Array.of(0x41, 0xff)), 0);
    assert.equal(incompleteUtf8Tail(Uint8Array.of(0x80, 0x80, 0x80, 0x80)), 0);
  });
});

describe('Utf8Carry', () => {
  test('rejoins a Korean syllable split across two reads', () => {
    const whole = Buffer.from('가나다');
    const carry = new Utf8Carry();
    const a = carry.push(whole.subarray(0, 4));
    assert.equal(Buffer.from(a).toString('utf8'), '가');
    assert.equal(carry.holding, true);
    const b = carry.push(whole.subarray(4));
    assert.equal(Buffer.from(b).toString('utf8'), '나다');
    assert.equal(carry.holding, false);
  });

  test('gives up a held tail as it is when asked', () => {
    const carry = new Utf8Carry();
    assert.equal(carry.push(Uint8Array.of(0x61, 0xc3)).length, 1);
    assert.deepEqual([...carry.take()], [0xc3]);
    assert.equal(carry.holding, false);
  });
});
