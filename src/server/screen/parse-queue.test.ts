import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ParseQueue } from './parse-queue.js';
import { ParseScheduler } from './parse-scheduler.js';

/** A full collection on demand, without starting node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

test('a queue that never empties lets go of the bytes it has parsed', async () => {
  const gc = collector();
  const scheduler = new ParseScheduler();
  const parsed: number[] = [];
  const queue = new ParseQueue(scheduler, (data) => parsed.push(data.length));
  const writes: Array<WeakRef<Uint8Array>> = [];
  for (let i = 0; i < 8; i++) {
    const bytes = new Uint8Array(1024 + i);
    writes.push(new WeakRef(bytes));
    queue.pushBytes(bytes, 'live');
  }
  scheduler.cancel(queue); // this test hands out the parse time itself
  // A deadline already past: one piece (here one whole write) per call.
  for (let i = 0; i < 5; i++) assert.equal(queue.parse(0), true);
  assert.deepEqual(parsed, [1024, 1025, 1026, 1027, 1028]);
  // WeakRefs made in this job hold their targets until it ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.deepEqual(writes.map((w) => w.deref() !== undefined), [false, false, false, false, false, true, true, true]);
  assert.equal(queue.backlogBytes, 1029 + 1030 + 1031);
  queue.close();
});
