import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RowMarks, WindowRows } from './window-rows.js';

describe('RowMarks', () => {
  test('the top row at a seq is the newest mark at or before it', () => {
    const marks = new RowMarks();
    assert.equal(marks.topRowAt(100), undefined, 'no mark yet');
    marks.note(100, 5);
    marks.note(250, 9);
    marks.note(250, 10); // the same seq again: the later report wins
    marks.note(400, 12);
    assert.equal(marks.topRowAt(99), undefined, 'older than every mark');
    assert.equal(marks.topRowAt(100), 5);
    assert.equal(marks.topRowAt(399), 10, 'between marks: the earlier one (a lower bound of what was scrolled)');
    assert.equal(marks.topRowAt(10_000), 12);
    marks.clear();
    assert.equal(marks.topRowAt(10_000), undefined, 'cleared when the stream is renumbered');
  });

  test('only the last 64 marks are kept', () => {
    const marks = new RowMarks();
    for (let i = 1; i <= 200; i++) marks.note(i * 10, i);
    assert.equal(marks.topRowAt(200 * 10), 200);
    assert.equal(marks.topRowAt(137 * 10), 137, 'the oldest kept');
    assert.equal(marks.topRowAt(137 * 10 - 1), undefined, 'older than the kept marks: not known');
  });
});

describe('WindowRows', () => {
  test('remembers the last row per window, and forgets the least recent past 32', () => {
    const windows = new WindowRows();
    windows.remember('a', 10);
    windows.remember('a', 20);
    assert.equal(windows.heldRow('a'), 20);
    for (let i = 0; i < 31; i++) windows.remember(`w${i}`, i);
    assert.equal(windows.heldRow('a'), 20, '32 windows fit');
    windows.remember('a', 21); // used again: the most recent
    windows.remember('w-new', 1);
    assert.equal(windows.heldRow('w0'), undefined, 'the least recent went');
    assert.equal(windows.heldRow('a'), 21);
  });
});
