import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeExit, describeExitShort, exitStatusOf } from './exit-status.js';

test("the holder's code -1 with a signal becomes code null and the signal", () => {
  assert.deepEqual(exitStatusOf(-1, 9), { code: null, signal: 9 });
  assert.deepEqual(exitStatusOf(2, 0), { code: 2, signal: null });
  assert.deepEqual(exitStatusOf(0, null), { code: 0, signal: null });
  assert.deepEqual(exitStatusOf(null, null), { code: null, signal: null });
});

test('a signal death reads as killed by the signal, by number and name, never as code -1', () => {
  assert.equal(describeExit({ code: -1, signal: 9 }), 'was killed by signal 9 (SIGKILL)');
  assert.equal(describeExit({ code: null, signal: 15 }), 'was killed by signal 15 (SIGTERM)');
  assert.equal(describeExit({ code: null, signal: 40 }), 'was killed by signal 40');
  assert.equal(describeExitShort({ code: -1, signal: 11 }), 'killed (SIGSEGV)');
  assert.equal(describeExitShort({ code: null, signal: 40 }), 'killed (signal 40)');
});

test('an exit reads with its code, an unknown end as ended', () => {
  assert.equal(describeExit({ code: 0, signal: 0 }), 'exited with code 0');
  assert.equal(describeExit({ code: 127, signal: null }), 'exited with code 127');
  assert.equal(describeExit({ code: null, signal: null }), 'ended');
  assert.equal(describeExitShort({ code: 3, signal: null }), 'exited (3)');
  assert.equal(describeExitShort({ code: null, signal: null }), 'exited');
});
