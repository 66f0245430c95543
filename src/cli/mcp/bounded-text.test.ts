// What `tend mcp` keeps of a text too long for one answer, and the numbers
// its note and cut give: whole lines, the tail or the head, a final newline
// kept as it was, a line longer than the limit shown by one end.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { keepHead, keepTail, splitLines } from './bounded-text.js';

/** "1\n2\n…\nn\n", as `seq 1 n` prints it. */
function seq(n: number): string {
  let s = '';
  for (let i = 1; i <= n; i++) s += `${i}\n`;
  return s;
}

const omitted = (n: number) => `READ-OMITTED(${n})`;
const after = (n: number) => `READ-AFTER(${n})`;

describe('splitLines', () => {
  test('a final newline ends the last line; an empty text has no lines; an empty line inside is kept', () => {
    assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
    assert.deepEqual(splitLines('a\nb'), ['a', 'b']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('\n'), ['']);
    assert.deepEqual(splitLines('a\n\nb\n'), ['a', '', 'b']);
  });
});

describe('keepTail', () => {
  test('a text within the limit is returned whole, with no cut', () => {
    const text = seq(10);
    assert.deepEqual(keepTail(text, text.length, omitted), { text, cut: null });
  });

  test('keeps the last whole lines that fit, the final newline kept, and says what was left out', () => {
    // seq 1 100: 9 one-digit lines (18 chars), 90 two-digit (270), "100\n" (4): 292 characters.
    const text = seq(100);
    const { text: shown, cut } = keepTail(text, 30, omitted);
    // From the end: "100\n" (4) + 8 × 3 ("92\n"…"99\n") = 28; one more would be 31.
    assert.equal(shown, '92\n93\n94\n95\n96\n97\n98\n99\n100\n');
    assert.ok(shown.length <= 30);
    assert.deepEqual({ ...cut, note: undefined }, {
      kept: 'tail',
      total_lines: 100,
      first_line: 92,
      last_line: 100,
      omitted_lines: 91,
      omitted_chars: 292 - 28,
      note: undefined,
    });
    assert.equal(cut!.note, 'lines 92–100 of 100 are shown: 264 characters (91 whole lines before it) were left out to keep the answer under 30 characters; READ-OMITTED(91)', 'lines 1–91 are the ones to read');
  });

  test('a text without a final newline: the limit is met exactly, and none is added', () => {
    const text = 'aaaa\nbbbb\ncccc';
    // "bbbb\ncccc" is 9 characters: it fits a limit of 9 exactly.
    const { text: shown, cut } = keepTail(text, 9, omitted);
    assert.equal(shown, 'bbbb\ncccc');
    assert.equal(cut!.first_line, 2);
    assert.equal(cut!.omitted_lines, 1);
    assert.equal(cut!.omitted_chars, 5);
  });

  test('a last line longer than the limit is shown by its end, and counted as left out', () => {
    const long = 'x'.repeat(50) + 'END';
    const text = `first\n${long}\n`;
    const { text: shown, cut } = keepTail(text, 20, omitted);
    assert.equal(shown, `${'x'.repeat(16)}END\n`);
    assert.equal(shown.length, 20);
    assert.equal(cut!.first_line, 2);
    assert.equal(cut!.last_line, 2);
    assert.equal(cut!.omitted_lines, 2, 'the first line, and the second shown only in part');
    assert.equal(cut!.omitted_chars, text.length - 20);
    assert.match(cut!.note, /^only the last 19 characters of line 2 \(the last line\) are shown: 40 characters \(1 whole line before it\)/);
    assert.match(cut!.note, /; READ-OMITTED\(2\); a line longer than max_chars is shown only by its ends: .*fold -w 1000/, 'line 2 is among the lines to read, and how to read its middle is said');
  });

  test('a text of one line longer than the limit: the line to read is line 1, never "line 0"', () => {
    const { cut } = keepTail(`${'z'.repeat(100)}\n`, 10, omitted);
    assert.deepEqual([cut!.first_line, cut!.last_line, cut!.omitted_lines], [1, 1, 1]);
    assert.match(cut!.note, /READ-OMITTED\(1\)/);
  });

  test('never splits a character that takes two UTF-16 units', () => {
    const text = `a\n${'😀'.repeat(10)}\n`;
    const { text: shown } = keepTail(text, 6, omitted);
    // 5 units of room before the newline: two emoji (4 units), not a half of a third.
    assert.equal(shown, '😀😀\n');
  });
});

describe('keepHead', () => {
  test('the whole text from line 1 within the limit: no cut', () => {
    assert.deepEqual(keepHead(['a', 'b'], 1, 2, 100, after), { text: 'a\nb\n', cut: null });
  });

  test('keeps the first whole lines that fit, each with its newline, and says where to read on', () => {
    const lines = splitLines(seq(100)).slice(49); // lines 50–100 asked for
    const outside = splitLines(seq(100)).slice(0, 49).reduce((n, l) => n + l.length + 1, 0);
    const { text, cut } = keepHead(lines, 50, 100, 10, after, outside);
    assert.equal(text, '50\n51\n52\n');
    assert.deepEqual({ ...cut, note: undefined }, {
      kept: 'head',
      total_lines: 100,
      first_line: 50,
      last_line: 52,
      omitted_lines: 97,
      omitted_chars: 292 - 9,
      note: undefined,
    });
    assert.equal(cut!.note, 'lines 50–52 of 100 are shown, from line 50 as asked; READ-AFTER(53)');
  });

  test('a range that reaches the end, after line 1: a cut that says the last line was reached', () => {
    const { text, cut } = keepHead(['9', '10'], 9, 10, 100, after, 16);
    assert.equal(text, '9\n10\n');
    assert.equal(cut!.last_line, 10);
    assert.equal(cut!.omitted_lines, 8);
    assert.equal(cut!.omitted_chars, 16);
    assert.equal(cut!.note, 'lines 9–10 of 10 are shown, from line 9 as asked; line 10 is the last');
  });

  test('a range that ends before the text does: its end is said even when it fits', () => {
    const { text, cut } = keepHead(['1', '2'], 1, 5, 100, after, 6);
    assert.equal(text, '1\n2\n');
    assert.equal(cut!.note, 'lines 1–2 of 5 are shown; READ-AFTER(3)');
  });

  test('a first line longer than the limit is shown by its start, and reading on goes to the next line', () => {
    const { text, cut } = keepHead(['y'.repeat(30), 'z'], 4, 5, 12, after);
    assert.equal(text, 'y'.repeat(12));
    assert.equal(cut!.first_line, 4);
    assert.equal(cut!.last_line, 4);
    assert.equal(cut!.omitted_lines, 5);
    assert.equal(cut!.omitted_chars, 31 + 2 - 12);
    assert.match(cut!.note, /^only the first 12 characters of line 4 \(30 characters long\) are shown, from line 4 as asked; READ-AFTER\(5\); a line longer than max_chars is shown only by its ends/);
  });

  test('never splits a character that takes two UTF-16 units', () => {
    const { text } = keepHead(['😀'.repeat(10)], 1, 1, 5, after);
    assert.equal(text, '😀😀');
  });
});
