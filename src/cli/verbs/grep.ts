// `tend grep PATTERN [TARGET...]`: `tend search` over every session at
// once (GET /v1/search), printed as `grep -n` prints several files.
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { searchOptions, searchQuery } from '../search-args.js';
import { API_ROUTES, type SearchAllReply, type SessionSearchHits } from '../../protocol/api/index.js';

/** How a hit names its session: `:name` for a named one, else its id (as `tend ls` and every verb take it). */
function sessionLabel(s: { id: string; name: string | null }): string {
  return s.name === null ? s.id : `:${s.name}`;
}

/** What stderr says about one session's hits beside them: matches not printed, rows not searched. */
function notesOn(hits: SessionSearchHits): string[] {
  const label = sessionLabel(hits);
  const notes: string[] = [];
  if (hits.truncated) notes.push(`${label}: ${hits.total} lines matched; these are the last ${hits.matches.length} (--max N for more)`);
  if (hits.dropped > 0) notes.push(`${label}: ${hits.dropped} rows are missing (dropped by the server's history memory budget, or lost from a damaged history file) and were not searched`);
  return notes;
}

export const grepVerb: Verb = {
  name: 'grep',
  summary: "find lines in every session's history and screen",
  usage: `tend grep PATTERN [TARGET...] [--regex] [--ignore-case] [--max N] [--json]

Prints the lines (wrapped rows joined) of every session's whole history and
screen that contain PATTERN, one per line as SESSION:ROW:LINE, where SESSION
is :name for a named session and its id otherwise, as \`grep -n\` prints
FILE:LINE:TEXT. Sessions come in \`tend ls\` order, exited and cold ones
included; each session's lines oldest first, only its last N matches (default
100). With TARGETs, only those sessions are searched. The whole search takes
at most 30 s: a session not searched, or not to its end (the 30 s ran out
before or during its turn, or it was removed meanwhile) is named on stderr;
\`tend search\` reads one session alone.

  -e, --regex         PATTERN is a regular expression (JavaScript syntax)
  -i, --ignore-case   match regardless of case
  -m, --max N         at most the last N matches of each session (1 to 10000)
  -j, --json          { sessions: [{ id, name, index, status, matches: [{ row, line }],
                      total, truncated, firstRow, endRow, dropped }], searched, total,
                      skipped: [{ id, name, reason, message }] }`,
  options: {
    ...jsonOption,
    ...searchOptions,
  },
  operands: 'PATTERN [TARGET...]',
  exits: [{ status: 1, meaning: 'nothing matched (as grep), or failed (the message says why)' }],
  async run({ args, client, stdout, stderr }) {
    const [pattern, ...targets] = args.positionals as [string, ...string[]];
    const query: Record<string, string> = searchQuery('PATTERN', pattern, args.values);
    // The API takes the targets comma-separated; no target has a comma (docs/api.md, "Targets").
    const odd = targets.find((t) => t.trim() === '' || t.includes(','));
    if (odd !== undefined) throw usageError(`TARGET ${JSON.stringify(odd)} is no session: give each as its own word (an id, :name, or index from \`tend ls\`)`);
    if (targets.length > 0) query.sessions = targets.join(',');
    const found = await client.callRoute<SearchAllReply>(API_ROUTES.searchSessions, {}, undefined, query);
    if (args.values.json) {
      printJson(stdout, found);
      return found.total > 0 ? 0 : 1;
    }
    for (const hits of found.sessions) {
      const label = sessionLabel(hits);
      for (const m of hits.matches) stdout.write(`${label}:${m.row}:${m.line}\n`);
    }
    for (const hits of found.sessions) for (const note of notesOn(hits)) stderr.write(`tend: ${note}\n`);
    for (const skip of found.skipped) stderr.write(`tend: ${sessionLabel(skip)}: ${skip.message}\n`);
    // as grep: 1 when nothing matched
    return found.total > 0 ? 0 : 1;
  },
};
