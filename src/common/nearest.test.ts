import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editDistance, nearest } from './nearest.js';

test('a swap of two neighbouring letters costs one edit, not two', () => {
  assert.equal(editDistance('vmi', 'vim'), 1);
  assert.equal(editDistance('atatch', 'attach'), 1);
  assert.equal(editDistance('ab', 'ba'), 1);
});

test('insertions, deletions and substitutions cost one each', () => {
  assert.equal(editDistance('atach', 'attach'), 1);
  assert.equal(editDistance('attachh', 'attach'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('abc', ''), 3);
  assert.equal(editDistance('same', 'same'), 0);
});

test('a letter is swapped at most once (restricted distance): "ca" to "abc" is 3', () => {
  assert.equal(editDistance('ca', 'abc'), 3);
});

test('nearest finds the verb a typo meant', () => {
  const verbs = ['new', 'attach', 'ls', 'split', 'send', 'screen', 'search', 'kill', 'rename', 'revive'];
  assert.deepEqual(nearest('atach', verbs), ['attach']);
  assert.deepEqual(nearest('attahc', verbs), ['attach']);
  assert.deepEqual(nearest('sned', verbs), ['send']);
});

test('nearest ignores case, and an exact match but for case comes first', () => {
  assert.deepEqual(nearest('HTOP', ['htopx', 'htop', 'top']), ['htop', 'htopx', 'top']);
  assert.deepEqual(nearest('VMI', ['vim', 'emacs']), ['vim']);
});

test('nearest returns closest first, ties in the order given', () => {
  assert.deepEqual(nearest('build', ['builds', 'bulid', 'build2']), ['builds', 'bulid', 'build2']);
  assert.deepEqual(nearest('abcdef', ['abcxyz', 'abcdex', 'abcdxy']), ['abcdex', 'abcdxy']);
});

test('nearest suggests nothing far off: one slip in a short word, a third of a long one', () => {
  assert.deepEqual(nearest('x', ['ls', 'new']), []);
  assert.deepEqual(nearest('zzzzzz', ['attach', 'screen']), []);
  assert.deepEqual(nearest('abcdefghi', ['abcdefxyz']), ['abcdefxyz']);
  assert.deepEqual(nearest('abcdefghi', ['abcdewxyz']), []);
});

test('maxDistance widens or narrows the reach', () => {
  assert.deepEqual(nearest('x', ['ls', 'new'], { maxDistance: 2 }), ['ls']);
  assert.deepEqual(nearest('atach', ['attach'], { maxDistance: 0 }), []);
});

test('no candidates, no suggestions', () => {
  assert.deepEqual(nearest('anything', []), []);
});
