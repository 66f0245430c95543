import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { searchOptions, searchQuery } from '../search-args.js';
import { API_ROUTES } from '../../protocol/api/index.js';
import type { SearchReply } from '../../protocol/api/index.js';

type SearchView = SearchReply;

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
    ...searchOptions,
  },
  operands: 'TARGET TEXT',
  exits: [{ status: 1, meaning: 'nothing matched (as grep), or failed (the message says why)' }],
  async run({ args, client, stdout, stderr }) {
    const [target, text] = args.positionals as [string, string];
    const query = searchQuery('TEXT', text, args.values);
    const found = await client.callRoute<SearchView>(API_ROUTES.searchSession, { target }, undefined, query);
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
