// Every text `tend mcp` answers with is bounded: a command that printed a
// million lines must not flood the model (clients warn at 10 000 tokens and
// cut at 25 000). What is kept is whole lines (the tail for output, where the
// end is what matters; the head when a range was asked for), and what was
// left out is said, with how to read it.
import { z } from 'zod';

/** Characters of text in one answer by default: a few thousand tokens, well under the clients' caps. */
export const DEFAULT_MAX_CHARS = 20_000;
/** The most a call may ask for (about 20 000 tokens). */
export const MAX_MAX_CHARS = 80_000;
/** The least: enough for a screen of a wide terminal. */
export const MIN_MAX_CHARS = 1_000;

/** The `max_chars` argument every tool that answers with text takes. */
export const maxCharsArg = z
  .number()
  .int()
  .min(MIN_MAX_CHARS)
  .max(MAX_MAX_CHARS)
  .optional()
  .describe(`Most characters of text to return (${MIN_MAX_CHARS}–${MAX_MAX_CHARS}; default ${DEFAULT_MAX_CHARS}). Longer text is cut to whole lines, and the answer says what was left out and how to read it.`);

/** What was left out of a text, for the answer's `cut` field (null when nothing was). */
export interface TextCut {
  /** Which end was kept. */
  kept: 'tail' | 'head';
  /** Lines of the whole text. */
  total_lines: number;
  /** The lines shown, 1-based and inclusive, numbered in the whole text. */
  first_line: number;
  last_line: number;
  /** Lines of the whole text not shown whole (before the shown ones, after them, and a line shown only in part). */
  omitted_lines: number;
  /** Characters of the whole text not shown. */
  omitted_chars: number;
  /** In words, with how to read the rest. */
  note: string;
}

export const textCutSchema = z
  .object({
    kept: z.enum(['tail', 'head']),
    total_lines: z.number().int(),
    first_line: z.number().int(),
    last_line: z.number().int(),
    omitted_lines: z.number().int(),
    omitted_chars: z.number().int(),
    note: z.string(),
  })
  .nullable()
  .describe('Null when the whole text is shown; else what was left out and how to read it.');

export interface BoundedText {
  text: string;
  cut: TextCut | null;
}

/** The lines of a text; a final newline ends the last line rather than starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Characters a line takes in a text: itself and the newline that ends it. */
function lineChars(line: string): number {
  return line.length + 1;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
/** The second half of a character that takes two UTF-16 units: a cut must not fall just before it. */
export const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** The last `n` characters of `s`, never starting in the middle of a character that takes two. */
function endOf(s: string, n: number): string {
  let start = Math.max(0, s.length - n);
  if (start > 0 && isLowSurrogate(s.charCodeAt(start))) start++;
  return s.slice(start);
}

/** The first `n` characters of `s`, never ending in the middle of a character that takes two. */
function startOf(s: string, n: number): string {
  let end = Math.min(s.length, n);
  if (end < s.length && end > 0 && isHighSurrogate(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

/** Said of a line shown only in part: the tools read whole lines, so its middle needs another way. */
const LONG_LINE_HINT = 'a line longer than max_chars is shown only by its ends: to read all of it, print it folded into shorter lines (`fold -w 1000`)';

/** "1 line", "2 lines". */
function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * The last whole lines of `text` that fit in `maxChars`. `readOmitted(n)`
 * says how to read lines 1–n (1-based), those not shown whole, for the note.
 * A last line longer than `maxChars` on its own is shown by its end, and is
 * then the last of the lines not shown whole (so n is never 0).
 */
export function keepTail(text: string, maxChars: number, readOmitted: (lastOmitted: number) => string): BoundedText {
  if (text.length <= maxChars) return { text, cut: null };
  const lines = splitLines(text);
  const newline = text.endsWith('\n') ? '\n' : '';
  // Kept lines cost their characters and newlines, less the one a text without a final newline lacks.
  let chars = newline === '' ? -1 : 0;
  let first = lines.length;
  while (first > 0 && chars + lineChars(lines[first - 1]!) <= maxChars) chars += lineChars(lines[--first]!);
  const partial = first === lines.length;
  if (partial) first = lines.length - 1;
  const shown = partial ? endOf(lines[first]!, maxChars - newline.length) + newline : lines.slice(first).join('\n') + newline;
  const firstLine = first + 1;
  const omittedChars = text.length - shown.length;
  const what = partial
    ? `only the last ${shown.length - newline.length} characters of line ${firstLine} (the last line) are shown`
    : `lines ${firstLine}–${lines.length} of ${lines.length} are shown`;
  const note = `${what}: ${omittedChars} characters${first > 0 ? ` (${count(first, 'whole line')} before it)` : ''} were left out to keep the answer under ${maxChars} characters; ${readOmitted(partial ? firstLine : firstLine - 1)}${partial ? `; ${LONG_LINE_HINT}` : ''}`;
  return {
    text: shown,
    cut: { kept: 'tail', total_lines: lines.length, first_line: firstLine, last_line: lines.length, omitted_lines: first + (partial ? 1 : 0), omitted_chars: omittedChars, note },
  };
}

/**
 * The first whole lines of `lines` that fit in `maxChars`, each ending in a
 * newline, numbered from `firstNumber` in a whole text of `totalLines` lines.
 * `readAfter(n)` says how to read on from line n, for the note.
 * `outsideChars` are the characters of the whole text outside `lines` (for
 * the cut's omitted_chars). The cut is null only when the answer is the whole
 * text; a first line longer than `maxChars` on its own is shown by its start.
 */
export function keepHead(
  lines: readonly string[],
  firstNumber: number,
  totalLines: number,
  maxChars: number,
  readAfter: (next: number) => string,
  outsideChars = 0,
): BoundedText {
  let chars = 0;
  let shownLines = 0;
  while (shownLines < lines.length && chars + lineChars(lines[shownLines]!) <= maxChars) chars += lineChars(lines[shownLines++]!);
  const partial = shownLines === 0 && lines.length > 0;
  const text = partial ? startOf(lines[0]!, maxChars) : lines.slice(0, shownLines).map((l) => `${l}\n`).join('');
  if (partial) shownLines = 1;
  const lastLine = firstNumber + shownLines - 1;
  if (firstNumber === 1 && lastLine >= totalLines && !partial) return { text, cut: null };
  const givenChars = lines.reduce((n, l) => n + lineChars(l), 0);
  const next = lastLine + 1;
  const after = next <= totalLines ? readAfter(next) : `line ${totalLines} is the last`;
  const before = firstNumber > 1 ? `, from line ${firstNumber} as asked` : '';
  const what = partial
    ? `only the first ${text.length} characters of line ${firstNumber} (${lines[0]!.length} characters long) are shown${before}`
    : `lines ${firstNumber}–${lastLine} of ${totalLines} are shown${before}`;
  return {
    text,
    cut: {
      kept: 'head',
      total_lines: totalLines,
      first_line: firstNumber,
      last_line: lastLine,
      omitted_lines: totalLines - shownLines + (partial ? 1 : 0),
      omitted_chars: outsideChars + givenChars - text.length,
      note: `${what}; ${after}${partial ? `; ${LONG_LINE_HINT}` : ''}`,
    },
  };
}
