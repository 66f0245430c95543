import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandLine, oneLineCommand, shortCommandLine } from './command-line.js';

test('the program goes without its directory and each argument as a shell would take it', () => {
  assert.equal(commandLine(['/usr/bin/env', 'sleep', '1000']), 'env sleep 1000');
  assert.equal(commandLine(['grep', '-r', 'two words', "it's", '']), `grep -r 'two words' 'it'\\''s' ''`);
});

test('a sh -c line is shown as the line itself; other shell invocations as they are', () => {
  assert.equal(commandLine(['/bin/sh', '-c', 'make -j8 && ./run "a b"']), 'make -j8 && ./run "a b"');
  assert.equal(commandLine(['bash', '--norc', '-i']), 'bash --norc -i');
  assert.equal(commandLine(['sh', '-c', 'x', 'arg0']), "sh -c x arg0");
});

test('no argv reads as nothing', () => {
  assert.equal(commandLine([]), '');
  assert.equal(commandLine(undefined), '');
});

test('the short form is one line of at most the characters asked for, the cut marked', () => {
  assert.equal(shortCommandLine(['sh', '-c', 'a\n  b\tc'], 60), 'a b c');
  assert.equal(shortCommandLine(['sleep', '1000'], 10), 'sleep 1000');
  assert.equal(shortCommandLine(['sleep', '10000'], 10), 'sleep 100…');
  // Characters, not UTF-16 units: an emoji is never cut in half.
  assert.equal(shortCommandLine(['echo', '😀😀😀'], 6), 'echo …');
  assert.equal([...shortCommandLine(['echo', '😀😀😀😀'], 9)].length, 9);
});

test('a multi-line sh -c script is one line, its newlines and runs of blanks one space each', () => {
  assert.equal(oneLineCommand(['/bin/sh', '-c', 'echo a\n  echo b']), 'echo a echo b');
});
