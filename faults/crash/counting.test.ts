import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countNumberedLines } from './numbered-check.js';
import { countPastes, makePaste, RECORD_BYTES } from './pastes.js';

test('numbered lines: a gap counts the lines missing, a repeat the lines shown twice', () => {
  const lines = (ns: number[]) => ns.map((n) => `n${String(n).padStart(8, '0')}`).join('\n');
  assert.deepEqual(countNumberedLines(lines([1, 2, 3, 4])), { lines: 4, lostLines: 0, doubledLines: 0, firstProblem: null });
  const gap = countNumberedLines(lines([1, 2, 6, 7]));
  assert.equal(gap.lostLines, 3);
  assert.equal(gap.firstProblem, 'line n00000006 follows n00000002');
  assert.equal(countNumberedLines(lines([1, 2, 3, 2, 3, 4])).doubledLines, 2);
  // A half-printed last line and other text are not lines.
  assert.equal(countNumberedLines(`${lines([5, 6])}\nn0000\n$ `).lines, 2);
});

test('pastes: acknowledged records missing are lost, extra copies doubled, what a failed paste delivered is counted apart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tf-count-'));
  try {
    const acked = makePaste(1, 4 * RECORD_BYTES, 'api');
    acked.acknowledged = true;
    const failed = makePaste(2, 4 * RECORD_BYTES, 'cli');
    failed.failure = 'tend send exited 1';
    failed.reportedArrived = 2 * RECORD_BYTES;
    const rec = (p: typeof acked, i: number) => p.bytes.subarray(i * RECORD_BYTES, (i + 1) * RECORD_BYTES);
    // Paste 1: record 2 lost, record 3 twice. Paste 2: two records arrived. Then half a record.
    const file = join(dir, 'arrived.bin');
    writeFileSync(file, Buffer.concat([rec(acked, 0), rec(acked, 1), rec(acked, 3), rec(acked, 3), rec(failed, 0), rec(failed, 1), Buffer.from('p0000')]));
    const count = countPastes(file, [acked, failed]);
    assert.equal(count.lostBytes, RECORD_BYTES);
    assert.equal(count.doubledBytes, RECORD_BYTES);
    assert.equal(count.unacknowledgedArrivedBytes, 2 * RECORD_BYTES);
    assert.equal(count.reportedArrivedBytes, 2 * RECORD_BYTES);
    assert.equal(count.garbledBytes, 5);
    assert.equal(count.neverAcknowledged, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
