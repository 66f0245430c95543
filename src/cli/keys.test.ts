import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyBytes, parseKeys, KeyNameError } from './keys.js';

test('control keys are the letter with bits 5 and 6 cleared, in either case', () => {
  assert.equal(keyBytes('C-c'), '\x03');
  assert.equal(keyBytes('C-C'), '\x03');
  assert.equal(keyBytes('C-d'), '\x04');
  assert.equal(keyBytes('C-['), '\x1b');
  assert.equal(keyBytes('C-@'), '\x00');
  assert.equal(keyBytes('C-Space'), '\x00');
  assert.equal(keyBytes('C-?'), '\x7f');
});

test('meta prefixes ESC, and combines with control in any order', () => {
  assert.equal(keyBytes('M-x'), '\x1bx');
  assert.equal(keyBytes('M-C-x'), '\x1b\x18');
  assert.equal(keyBytes('C-M-x'), '\x1b\x18');
  assert.equal(keyBytes('M-Up'), '\x1b\x1b[A');
});

test('named keys send what a terminal in normal mode sends', () => {
  assert.equal(keyBytes('Enter'), '\r');
  assert.equal(keyBytes('BSpace'), '\x7f');
  assert.equal(keyBytes('Up'), '\x1b[A');
  assert.equal(keyBytes('left'), '\x1b[D');
  assert.equal(keyBytes('PageDown'), '\x1b[6~');
  assert.equal(keyBytes('F1'), '\x1bOP');
  assert.equal(keyBytes('F12'), '\x1b[24~');
  assert.equal(keyBytes('Esc'), '\x1b');
  assert.equal(keyBytes('y'), 'y');
});

test('a list of names becomes their bytes in order', () => {
  assert.equal(parseKeys(['C-c,Up, Enter', 'Comma']), '\x03\x1b[A\r,');
});

test('an unknown name is an error that lists the known ones', () => {
  assert.throws(() => parseKeys(['Up,Bogus']), (err: unknown) => err instanceof KeyNameError && /"Bogus" is not a key name; known keys: .*BSpace/.test(err.message));
  assert.throws(() => parseKeys(['C-1']), KeyNameError);
  assert.throws(() => parseKeys(['F13']), KeyNameError);
});
