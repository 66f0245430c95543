import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { ago, statusText, table, type SessionView } from '../format.js';

export const lsVerb: Verb = {
  name: 'ls',
  summary: 'list sessions',
  usage: `tend ls [--json]

Lists every session: index, id, name, status, size, viewers, last output,
title or command. The index and the id both work as targets.

  -j, --json   an array of sessions with every field`,
  options: { ...jsonOption },
  async run({ args, client, stdout, stderr }) {
    const sessions = await client.call<SessionView[]>('GET', '/v1/sessions');
    if (args.values.json) {
      printJson(stdout, sessions);
      return 0;
    }
    if (sessions.length === 0) {
      stdout.write('no sessions (start one with `tend new`)\n');
      return 0;
    }
    const rows = [['#', 'ID', 'NAME', 'STATUS', 'SIZE', 'VIEWERS', 'OUTPUT', 'TITLE / CWD']];
    for (const s of sessions) {
      rows.push([String(s.index ?? ''), s.id, s.name ?? '-', statusText(s), `${s.cols}x${s.rows}`, String(s.viewers), ago(s.lastOutputAt), s.title || s.cwd]);
    }
    stdout.write(table(rows));
    // One line per distinct warning: a full disk stops every session's checkpoints at once.
    for (const warning of new Set(sessions.flatMap((s) => (s.warning ? [s.warning] : [])))) stderr.write(`tend: warning: ${warning}\n`);
    return 0;
  },
};
