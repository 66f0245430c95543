import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CopySlabs, MIN_SLAB_USE_BYTES, SLAB_BYTES } from './copy-slabs.js';

test('flood-sized copies reuse slabs given back; small, oversized and foreign buffers never enter the pool', () => {
  const slabs = new CopySlabs(2);
  const small = slabs.take(MIN_SLAB_USE_BYTES - 1);
  const big = slabs.take(SLAB_BYTES + 1);
  assert.equal(small.byteLength, MIN_SLAB_USE_BYTES - 1);
  assert.equal(big.byteLength, SLAB_BYTES + 1);
  slabs.give(small);
  slabs.give(big);
  slabs.give(new Uint8Array(SLAB_BYTES)); // not the pool's own: someone else may hold it
  assert.equal(slabs.spareCount, 0);

  const a = slabs.take(5000);
  assert.equal(a.byteLength, 5000);
  assert.equal(a.buffer.byteLength, SLAB_BYTES);
  slabs.give(a);
  slabs.give(a); // twice: it must still go out only once
  assert.equal(slabs.spareCount, 1);
  const b = slabs.take(SLAB_BYTES);
  assert.equal(b.buffer, a.buffer, 'the slab given back is used again');
  const c = slabs.take(MIN_SLAB_USE_BYTES);
  assert.notEqual(c.buffer, b.buffer, 'a slab in use is not handed out again');

  const d = slabs.take(MIN_SLAB_USE_BYTES);
  for (const view of [b, c, d]) slabs.give(view);
  assert.equal(slabs.spareCount, 2, 'no more spares than the pool keeps');
});
