import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leastSquaresSlope, sampleProcess } from './proc-sample.js';

test('least squares: the slope of a line, of noise around a flat line, of too few points', () => {
  assert.equal(leastSquaresSlope([[0, 10], [1, 12], [2, 14], [3, 16]]), 2);
  assert.equal(leastSquaresSlope([[0, 5], [1, 7], [2, 3], [3, 5], [4, 5]]), -0.2);
  assert.equal(leastSquaresSlope([[1, 1]]), 0);
});

test('a sample of this process has its resident memory and open descriptors', () => {
  const s = sampleProcess(process.pid);
  assert.ok(s.rssKb > 1000, `RSS ${s.rssKb} kB`);
  assert.ok(s.fds >= 3, `${s.fds} fds`);
});
