// Pattern threads are lent to one search at a time and kept between
// searches: a search after another reuses its thread (even with another
// pattern), searches at once each get their own, and a thread whose pattern
// backtracked is stopped and never lent again.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPatternThread } from './pattern-thread.js';

const BACKTRACKING_LINE = `${'a'.repeat(32)}b`;

describe('pattern threads', () => {
  test('a search after another reuses its thread, with its own pattern and flags', async () => {
    const first = await openPatternThread('^a+b$', 'u');
    assert.deepEqual([...(await first.test(['aab', 'ab c', 'b']))], [1, 0, 0]);
    const firstThread = first.threadId;
    assert.equal(typeof firstThread, 'number');
    first.dispose();
    const second = await openPatternThread('B', 'iu');
    assert.deepEqual([...(await second.test(['aab', 'xyz']))], [1, 0]);
    assert.equal(second.threadId, firstThread, 'the second search ran on the first one\'s thread');
    second.dispose();
    // A search that ended is done with it: its matcher no longer answers.
    await assert.rejects(first.test(['aab']), /the search is over/);
  });

  test('searches at once each have a thread of their own', async () => {
    const a = await openPatternThread('x', 'u');
    const b = await openPatternThread('y', 'u');
    try {
      const [hitsA, hitsB] = await Promise.all([a.test(['x', 'y']), b.test(['x', 'y'])]);
      assert.deepEqual([[...hitsA], [...hitsB]], [[1, 0], [0, 1]]);
      assert.notEqual(a.threadId, b.threadId);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  test('a pattern that backtracks is stopped with its thread; the next search gets a new one', async () => {
    const warm = await openPatternThread('a', 'u');
    await warm.test(['a']);
    const warmThread = warm.threadId;
    warm.dispose();
    const slow = await openPatternThread('(a+)+$', 'u');
    assert.equal(slow.threadId, warmThread, 'the idle thread was lent');
    await assert.rejects(slow.test([BACKTRACKING_LINE]), (err: Error & { reason?: string }) => err.reason === 'pattern_too_slow' && /backtracks/.test(err.message));
    slow.dispose();
    const next = await openPatternThread('a+b$', 'u');
    try {
      assert.notEqual(next.threadId, warmThread, 'the stopped thread was not lent again');
      assert.deepEqual([...(await next.test([BACKTRACKING_LINE]))], [1]);
    } finally {
      next.dispose();
    }
  });
});
