import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { parseWholeNumber } from '../argument-checks.js';
import { API_ROUTES, MAX_SCREEN_SCROLLBACK_ROWS } from '../../protocol/api/index.js';
import { describeExit } from '../../protocol/exit-status.js';
import type { ScreenTextReply } from '../../protocol/api/index.js';

type ScreenView = ScreenTextReply;

/** Why rows are missing: a damaged history file lost some (each reads as lost where it was), the server's memory budget dropped the rest. */
function droppedRowsNotice(s: { dropped: number; lost?: number; shown: number }): string {
  const lost = s.lost ?? 0;
  const budget = s.dropped - lost;
  if (lost === 0) return `${budget} older rows were dropped to keep within the server's history memory budget; showing the ${s.shown} rows of scrollback that remain`;
  const rest = budget > 0 ? `, and ${budget} older rows were dropped to keep within the server's history memory budget` : '';
  return `${lost} rows of scrollback were lost: the session's history file was damaged (each reads as lost; the server's log says where)${rest}; showing the ${s.shown} rows of scrollback there are`;
}

export const screenVerb: Verb = {
  name: 'screen',
  summary: "print a session's screen",
  usage: `tend screen TARGET [--ansi] [--scrollback N] [--json]

Prints the visible screen as text, one line per row.

  -a, --ansi           with colours, attributes and links (OSC 8); a soft-wrapped
                       line comes out as the one line it is, which a terminal of
                       the session's width wraps the same way again
  -S, --scrollback N   include N rows of history above the screen (says so on stderr
                       when older rows were dropped by the server's memory budget or
                       lost from a damaged history file)
  -j, --json           text with size, cursor, title, status (exitCode, exitSignal once it
                       has exited) and scrollback {shown, available, dropped, lost}`,
  options: { ...jsonOption, ansi: { type: 'boolean', short: 'a' }, scrollback: { type: 'string', short: 'S' } },
  operands: 'TARGET',
  async run({ args, client, stdout, stderr }) {
    const target = args.positionals[0]!;
    const q = new URLSearchParams({ format: args.values.ansi ? 'ansi' : 'text' });
    if (typeof args.values.scrollback === 'string') {
      const rows = parseWholeNumber('--scrollback', args.values.scrollback, { min: 0, max: MAX_SCREEN_SCROLLBACK_ROWS, what: 'rows' });
      q.set('scrollback', String(rows));
    }
    const s = await client.callRoute<ScreenView>(API_ROUTES.readScreen, { target }, undefined, Object.fromEntries(q));
    if (args.values.json) printJson(stdout, s);
    else {
      if (s.status === 'exited') stderr.write(`tend: the program in ${target} ${describeExit({ code: s.exitCode ?? null, signal: s.exitSignal ?? null })}; this is its last screen\n`);
      const lost = s.scrollback?.lost ?? 0;
      if (s.degraded && lost === 0) stderr.write('tend: part of this screen\'s output was lost (it left the holder\'s ring, or a damaged file lost it); what follows is incomplete\n');
      if (s.scrollback !== undefined && s.scrollback.dropped > 0) stderr.write(`tend: ${droppedRowsNotice(s.scrollback)}\n`);
      stdout.write(s.text.endsWith('\n') ? s.text : `${s.text}\n`);
    }
    return 0;
  },
};
