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
  omitted_lines: number;
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

/**
 * The last whole lines of `text` that fit in `maxChars`. `readBefore(n)`
 * says how to read the lines before line n (1-based), for the note.
 */
export function keepTail(text: string, maxChars: number, readBefore: (firstShown: number) => string): BoundedText {
  if (text.length <= maxChars) return { text, cut: null };
  const lines = splitLines(text);
  let chars = 0;
  let first = lines.length;
  while (first > 0 && chars + lines[first - 1]!.length + 1 <= maxChars) chars += lines[--first]!.length + 1;
  let shown: string;
  let partial = false;
  if (first === lines.length) {
    // One line longer than the limit: its end is shown.
    first = lines.length - 1;
    shown = lines[first]!.slice(-maxChars);
    partial = true;
  } else {
    shown = lines.slice(first).join('\n') + (text.endsWith('\n') ? '\n' : '');
  }
  const omittedChars = text.length - shown.length;
  const firstLine = first + 1;
  const note = `${partial ? `only the end of line ${firstLine} is shown` : `lines ${firstLine}–${lines.length} of ${lines.length} are shown`}: ${first} earlier lines (${omittedChars} characters) were left out to keep the answer small; ${readBefore(firstLine)}`;
  return {
    text: shown,
    cut: { kept: 'tail', total_lines: lines.length, first_line: firstLine, last_line: lines.length, omitted_lines: first, omitted_chars: omittedChars, note },
  };
}

/**
 * The first whole lines of `lines` that fit in `maxChars`, numbered from
 * `firstNumber` in the whole text of `totalLines` lines. `readAfter(n)`
 * says how to read on from line n, for the note.
 */
export function keepHead(lines: readonly string[], firstNumber: number, totalLines: number, maxChars: number, readAfter: (next: number) => string): BoundedText {
  let chars = 0;
  let count = 0;
  while (count < lines.length && chars + lines[count]!.length + 1 <= maxChars) chars += lines[count++]!.length + 1;
  if (count === lines.length) {
    const text = lines.join('\n') + (lines.length > 0 ? '\n' : '');
    const omitted = totalLines - (firstNumber - 1) - count;
    if (omitted <= 0 || lines.length === 0) return { text, cut: null };
  }
  let text: string;
  let partial = false;
  if (count === 0 && lines.length > 0) {
    text = lines[0]!.slice(0, maxChars);
    count = 1;
    partial = true;
  } else {
    text = lines.slice(0, count).join('\n') + (count > 0 ? '\n' : '');
  }
  const lastLine = firstNumber + count - 1;
  const shownChars = text.length;
  const wholeChars = lines.reduce((n, l) => n + l.length + 1, 0);
  const next = lastLine + 1;
  const more = next <= totalLines ? `; ${readAfter(next)}` : '';
  const note = partial
    ? `only the start of line ${firstNumber} is shown (it is longer than the answer may be)${more}`
    : `lines ${firstNumber}–${lastLine} of ${totalLines} are shown${more}`;
  return {
    text,
    cut: {
      kept: 'head',
      total_lines: totalLines,
      first_line: firstNumber,
      last_line: lastLine,
      omitted_lines: totalLines - count,
      omitted_chars: Math.max(0, wholeChars - shownChars),
      note,
    },
  };
}
