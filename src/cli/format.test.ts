import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandText } from './format.js';

test('what a session runs is one line, so a tend ls row stays one row', () => {
  assert.equal(commandText(['/bin/sh', '-c', 'echo a\necho b']), 'echo a echo b');
  assert.equal(commandText([]), '-');
});
