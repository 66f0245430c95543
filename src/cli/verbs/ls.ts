import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { agentText, ago, colourFor, commandText, shorten, statusText, table, wantsPersonCell } from '../format.js';
import type { ListedSession } from '../../protocol/api/index.js';
import { API_ROUTES, agentWantsPerson } from '../../protocol/api/index.js';

/** The COMMAND column's width when the output is no terminal (scripts that want it whole read --json). */
const COMMAND_CHARS_PIPED = 40;
/** On a narrow terminal the COMMAND column still shows this much. */
const COMMAND_CHARS_MIN = 12;
/** Columns a line gives the last column (TITLE / CWD) at least, on a terminal. */
const LAST_COLUMN_CHARS_MIN = 16;

export const lsVerb: Verb = {
  name: 'ls',
  summary: 'list sessions',
  usage: `tend ls [--json]

Lists every session: index, id, name, status, the AI agent in it and its
state (\`claude idle\`, \`codex needs-permission\`: see \`tend agent\`), size,
viewers, last output, the command it runs (shortened to fit), and its title
or directory. The index and the id both work as targets.

  -j, --json   an array of sessions with every field (the whole command is
               argv, the agent is \`agent\`)`,
  options: { ...jsonOption },
  operands: '',
  async run({ args, client, stdout, stderr }) {
    const sessions = await client.callRoute<ListedSession[]>(API_ROUTES.listSessions);
    if (args.values.json) {
      printJson(stdout, sessions);
      return 0;
    }
    if (sessions.length === 0) {
      stdout.write('no sessions (start one with `tend new`)\n');
      return 0;
    }
    const head = ['#', 'ID', 'NAME', 'STATUS', 'AGENT', 'SIZE', 'VIEWERS', 'OUTPUT', 'COMMAND', 'TITLE / CWD'];
    const agentColumn = head.indexOf('AGENT');
    const rows = sessions.map((s) => [
      String(s.index), s.id, s.name ?? '-', statusText(s), agentText(s.agent), `${s.cols}x${s.rows}`, String(s.viewers), ago(s.lastOutputAt),
      commandText(s.argv ?? []), s.title || s.cwd,
    ]);
    // Row 0 is the head; row n is sessions[n - 1].
    const wantsPerson = (row: number) => row > 0 && sessions[row - 1]!.agent != null && agentWantsPerson(sessions[row - 1]!.agent!.state);
    const styled = colourFor(stdout)
      ? (row: number, column: number, cell: string) => (column === agentColumn && wantsPerson(row) ? wantsPersonCell(cell) : cell)
      : undefined;
    stdout.write(table([head, ...fitted(head, rows, stdout.isTTY ? stdout.columns : null)], styled));
    // One line per distinct warning: a full disk stops every session's checkpoints at once.
    for (const warning of new Set(sessions.flatMap((s) => (s.warning ? [s.warning] : [])))) stderr.write(`tend: warning: ${warning}\n`);
    return 0;
  },
};

/**
 * The rows with COMMAND (second to last) and TITLE / CWD (last) shortened so
 * a line fits the terminal's width; piped, COMMAND is only capped.
 */
function fitted(head: string[], rows: string[][], columns: number | null): string[][] {
  const command = head.length - 2;
  const width = (c: number) => Math.max(...[head, ...rows].map((r) => [...r[c]!].length));
  if (columns === null) return rows.map((r) => r.map((cell, c) => (c === command ? shorten(cell, COMMAND_CHARS_PIPED) : cell)));
  // Two spaces between columns, as table() puts them.
  const fixed = head.slice(0, command).reduce((sum, _, c) => sum + width(c) + 2, 0);
  const commandChars = Math.max(COMMAND_CHARS_MIN, Math.min(width(command), columns - fixed - 2 - LAST_COLUMN_CHARS_MIN));
  const lastChars = Math.max(LAST_COLUMN_CHARS_MIN, columns - fixed - Math.min(width(command), commandChars) - 2);
  return rows.map((r) => r.map((cell, c) => (c === command ? shorten(cell, commandChars) : c === command + 1 ? shorten(cell, lastChars) : cell)));
}
