import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineDiff } from './line-diff.js';

const labels = { before: 'a (as it is)', after: 'a (after)' };

test('a change shows as hunks with three lines of context and the line numbers of each side', () => {
  const before = ['{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4,', '  "e": 5', '}', ''].join('\n');
  const after = ['{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4,', '  "e": 5,', '  "f": 6', '}', ''].join('\n');
  assert.equal(lineDiff(before, after, labels), [
    '--- a (as it is)',
    '+++ a (after)',
    '@@ -3,5 +3,6 @@',
    '   "b": 2,',
    '   "c": 3,',
    '   "d": 4,',
    '-  "e": 5',
    '+  "e": 5,',
    '+  "f": 6',
    ' }',
    '',
  ].join('\n'));
});

test('changes far apart get hunks of their own; a new file starts at 0,0; no change is no diff', () => {
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
  const changed = [...lines];
  changed[1] = 'one';
  changed[18] = 'eighteen';
  const diff = lineDiff(`${lines.join('\n')}\n`, `${changed.join('\n')}\n`, labels);
  assert.deepEqual(diff.split('\n').filter((l) => l.startsWith('@@')), ['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
  assert.equal(lineDiff('', '{\n}\n', labels), '--- a (as it is)\n+++ a (after)\n@@ -0,0 +1,2 @@\n+{\n+}\n');
  assert.equal(lineDiff('{}\r\n', '{}\r\n', labels), '');
});
