import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { parseWholeNumber } from '../argument-checks.js';
import { API_ROUTES, MAX_SEARCH_MATCHES, MAX_SEARCH_PATTERN_CHARS } from '../../protocol/api/index.js';
import type { SearchReply } from '../../protocol/api/index.js';

type SearchView = SearchReply;

/** TEXT as the server will take it: not empty, not too long, and with --regex a pattern (in the server's flags). */
function checkSearchText(text: string, how: { regex: boolean; ignoreCase: boolean }): void {
  if (text === '') throw usageError('TEXT is empty: give the text to find');
  if (text.length > MAX_SEARCH_PATTERN_CHARS) throw usageError(`TEXT is ${text.length} characters; tend searches for at most ${MAX_SEARCH_PATTERN_CHARS}`);
  if (!how.regex) return;
  try {
    new RegExp(text, how.ignoreCase ? 'iu' : 'u');
  } catch (err) {
    throw usageError(`TEXT is not a regular expression (--regex): ${(err as Error).message}`);
  }
}

export const searchVerb: Verb = {
  name: 'search',
  summary: "find lines in a session's history and screen",
  usage: `tend search TARGET TEXT [--regex] [--ignore-case] [--max N] [--json]

Prints the lines (wrapped rows joined) of the session's whole history and
screen that contain TEXT, oldest first, each after its row number, as
\`grep -n\` does. Only the last N matches are printed (default 100).

  -e, --regex         TEXT is a regular expression (JavaScript syntax)
  -i, --ignore-case   match regardless of case
  -m, --max N         at most the last N matches (1 to 10000)
  -j, --json          { matches: [{ row, line }], total, truncated, firstRow, endRow, dropped }`,
  options: {
    ...jsonOption,
    regex: { type: 'boolean', short: 'e' },
    'ignore-case': { type: 'boolean', short: 'i' },
    max: { type: 'string', short: 'm' },
  },
  operands: 'TARGET TEXT',
  exits: [{ status: 1, meaning: 'nothing matched (as grep), or failed (the message says why)' }],
  async run({ args, client, stdout, stderr }) {
    const [target, text] = args.positionals as [string, string];
    checkSearchText(text, { regex: args.values.regex === true, ignoreCase: args.values['ignore-case'] === true });
    const q = new URLSearchParams({ q: text });
    if (args.values.regex) q.set('regex', '1');
    if (args.values['ignore-case']) q.set('ignore-case', '1');
    if (typeof args.values.max === 'string') {
      q.set('max', String(parseWholeNumber('--max', args.values.max, { min: 1, max: MAX_SEARCH_MATCHES, what: 'matches' })));
    }
    const found = await client.callRoute<SearchView>(API_ROUTES.searchSession, { target }, undefined, Object.fromEntries(q));
    if (args.values.json) {
      printJson(stdout, found);
      return found.total > 0 ? 0 : 1;
    }
    for (const m of found.matches) stdout.write(`${m.row}:${m.line}\n`);
    if (found.truncated) stderr.write(`tend: ${found.total} lines matched; these are the last ${found.matches.length} (--max N for more)\n`);
    if (found.dropped > 0) stderr.write(`tend: ${found.dropped} rows are missing (dropped by the server's history memory budget, or lost from a damaged history file) and were not searched\n`);
    // as grep: 1 when nothing matched
    return found.total > 0 ? 0 : 1;
  },
};
