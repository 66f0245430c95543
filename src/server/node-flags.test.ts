import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverNodeFlags } from './node-flags.js';

test('V8 gets one background thread per core beyond the event loop, at least one and at most four', () => {
  assert.deepEqual(serverNodeFlags(1), ['--v8-pool-size=1']);
  assert.deepEqual(serverNodeFlags(2), ['--v8-pool-size=1']);
  assert.deepEqual(serverNodeFlags(3), ['--v8-pool-size=2']);
  assert.deepEqual(serverNodeFlags(64), ['--v8-pool-size=4']);
});
