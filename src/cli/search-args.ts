// What `tend search` (one session) and `tend grep` (every session) share:
// their options, the check of the text to find, made before anything is
// sent, and the query both search routes take.
import { usageError } from './cli-error.js';
import { parseWholeNumber } from './argument-checks.js';
import { MAX_SEARCH_MATCHES, MAX_SEARCH_PATTERN_CHARS } from '../protocol/api/index.js';
import type { VerbArgs } from './verb.js';

export const searchOptions = {
  regex: { type: 'boolean', short: 'e' },
  'ignore-case': { type: 'boolean', short: 'i' },
  max: { type: 'string', short: 'm' },
} as const;

/**
 * The text as the server will take it: not empty, not too long, and with
 * --regex a pattern (in the server's flags). `operand` names it as the
 * verb's usage does (TEXT, PATTERN).
 */
export function checkSearchText(operand: string, text: string, how: { regex: boolean; ignoreCase: boolean }): void {
  if (text === '') throw usageError(`${operand} is empty: give the text to find`);
  if (text.length > MAX_SEARCH_PATTERN_CHARS) throw usageError(`${operand} is ${text.length} characters; tend searches for at most ${MAX_SEARCH_PATTERN_CHARS}`);
  if (!how.regex) return;
  try {
    new RegExp(text, how.ignoreCase ? 'iu' : 'u');
  } catch (err) {
    throw usageError(`${operand} is not a regular expression (--regex): ${(err as Error).message}`);
  }
}

/** `q`, `regex`, `ignore-case` and `max` for a search route, from the text and searchOptions, each checked. */
export function searchQuery(operand: string, text: string, values: VerbArgs['values']): Record<string, string> {
  const regex = values.regex === true;
  const ignoreCase = values['ignore-case'] === true;
  checkSearchText(operand, text, { regex, ignoreCase });
  const query: Record<string, string> = { q: text };
  if (regex) query.regex = '1';
  if (ignoreCase) query['ignore-case'] = '1';
  if (typeof values.max === 'string') {
    query.max = String(parseWholeNumber('--max', values.max, { min: 1, max: MAX_SEARCH_MATCHES, what: 'matches' }));
  }
  return query;
}
