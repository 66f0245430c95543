// The byte lane between the loop and the screen host: positions only grow,
// bytes come out as they went in across the ring's end, and a full lane says
// so (-1) until the reader releases what it has copied out.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LaneReader, LaneWriter, createByteLane } from './byte-lane.js';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('byte lane', () => {
  test('hands back what was put, at growing positions', () => {
    const lane = createByteLane(16);
    const writer = new LaneWriter(lane);
    const reader = new LaneReader(lane);
    assert.equal(writer.put(bytes(1, 2, 3)), 0);
    assert.equal(writer.put(bytes(4, 5)), 3);
    assert.deepEqual([...reader.copy(0, 3)], [1, 2, 3]);
    assert.deepEqual([...reader.copy(3, 5)], [4, 5]);
  });

  test('is full until released, then wraps across the end of the ring', () => {
    const lane = createByteLane(8);
    const writer = new LaneWriter(lane);
    const reader = new LaneReader(lane);
    assert.equal(writer.put(bytes(1, 2, 3, 4, 5, 6)), 0);
    assert.equal(writer.put(bytes(7, 8, 9)), -1, 'three bytes do not fit in the two left');
    reader.release(6);
    assert.equal(writer.put(bytes(7, 8, 9, 10, 11)), 6, 'written across the end: 2 bytes at 6, 3 at 0');
    assert.deepEqual([...reader.copy(6, 11)], [7, 8, 9, 10, 11]);
    assert.equal(writer.put(bytes(0, 0, 0, 0)), -1, 'only 3 bytes are free until 11 is released');
    reader.release(11);
    assert.equal(writer.put(bytes(12, 13, 14, 15, 16, 17, 18, 19)), 11, 'the whole ring once released');
    assert.deepEqual([...reader.copy(11, 19)], [12, 13, 14, 15, 16, 17, 18, 19]);
  });

  test('a write larger than the ring never fits; an empty one always does', () => {
    const lane = createByteLane(4);
    const writer = new LaneWriter(lane);
    assert.equal(writer.put(new Uint8Array(5)), -1);
    assert.equal(writer.put(new Uint8Array(0)), 0);
  });

  test('refuses a size that is not a positive whole number', () => {
    assert.throws(() => createByteLane(0), RangeError);
    assert.throws(() => createByteLane(1.5), RangeError);
  });
});
