import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLastLines } from './last-lines.js';

function withLog(current: string, rotated: string | null, run: (log: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'tend-log-'));
  try {
    const log = join(dir, 'server.log');
    writeFileSync(log, current);
    if (rotated !== null) writeFileSync(`${log}.1`, rotated);
    run(log);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function lastLines(log: string, count: number): string {
  const tail = readLastLines(log, `${log}.1`, count);
  closeSync(tail.fd);
  return tail.text.toString('utf8');
}

const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i} ${'x'.repeat(60)}\n`).join('');

test('the last N lines of a log much longer than one read, and where the follower goes on from', () => {
  const text = numbered(1, 5000); // ~340 KB: several reads back from the end
  withLog(text, null, (log) => {
    assert.equal(lastLines(log, 3), numbered(4998, 5000));
    assert.equal(lastLines(log, 2000), numbered(3001, 5000));
    const tail = readLastLines(log, `${log}.1`, 1);
    closeSync(tail.fd);
    assert.equal(tail.endOffset, Buffer.byteLength(text));
  });
});

test('a last line without its newline yet counts as a line; zero lines is nothing', () => {
  withLog('one\ntwo\nthree', null, (log) => {
    assert.equal(lastLines(log, 2), 'two\nthree');
    assert.equal(lastLines(log, 0), '');
  });
});

test('a log shorter than asked for is given whole, after the rotated file\'s last lines', () => {
  withLog(numbered(11, 12), numbered(1, 10), (log) => {
    assert.equal(lastLines(log, 5), numbered(8, 12));
    assert.equal(lastLines(log, 50), numbered(1, 12));
  });
  withLog('', numbered(1, 3), (log) => assert.equal(lastLines(log, 2), numbered(2, 3)));
});

test('a missing log throws ENOENT for the verb to word', () => {
  assert.throws(() => readLastLines(join(tmpdir(), 'tend-no-such-dir', 'server.log'), 'x', 5), { code: 'ENOENT' });
});
