import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';

interface SearchView {
  matches: Array<{ row: number; line: string }>;
  total: number;
  truncated: boolean;
  firstRow: number;
  endRow: number;
  dropped: number;
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
  async run({ args, client, stdout, stderr }) {
    const [target, text] = args.positionals;
    if (target === undefined || text === undefined || args.positionals.length > 2) throw new CliError('usage: tend search TARGET TEXT', 2);
    const q = new URLSearchParams({ q: text });
    if (args.values.regex) q.set('regex', '1');
    if (args.values['ignore-case']) q.set('ignore-case', '1');
    if (typeof args.values.max === 'string') {
      if (!/^[1-9][0-9]*$/.test(args.values.max)) throw new CliError(`--max takes a number of matches, not "${args.values.max}"`, 2);
      q.set('max', args.values.max);
    }
    const found = await client.call<SearchView>('GET', `/v1/sessions/${encodeURIComponent(target)}/search?${q}`);
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
