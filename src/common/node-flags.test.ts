import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverArgs, serverNodeFlags } from './node-flags.js';

test('V8 gets one background thread per core beyond the event loop, at least one and at most four, and no memory reducer', () => {
  assert.deepEqual(serverNodeFlags(1), ['--v8-pool-size=1', '--no-memory-reducer']);
  assert.deepEqual(serverNodeFlags(2), ['--v8-pool-size=1', '--no-memory-reducer']);
  assert.deepEqual(serverNodeFlags(3), ['--v8-pool-size=2', '--no-memory-reducer']);
  assert.deepEqual(serverNodeFlags(64), ['--v8-pool-size=4', '--no-memory-reducer']);
});

test('the server gets these flags, then the caller ones (which can override them), its main and the ready pipe', () => {
  assert.deepEqual(serverArgs('main.js', ['--v8-pool-size=4', '--trace-gc']), [...serverNodeFlags(), '--v8-pool-size=4', '--trace-gc', 'main.js', '--ready-fd', '3']);
  assert.deepEqual(serverArgs('main.js'), [...serverNodeFlags(), 'main.js', '--ready-fd', '3']);
});
