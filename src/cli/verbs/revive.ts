import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { sessionLabel, type SessionView } from '../format.js';
import { commandAfterDash } from '../argument-checks.js';
import { API_ROUTES } from '../../protocol/api/index.js';

export const reviveVerb: Verb = {
  name: 'revive',
  summary: 'start a new shell in a cold or exited session',
  usage: `tend revive TARGET [--json] [-- CMD ARGS...]

A session is cold when its process is gone (the machine rebooted, the holder
was killed). Its last screen is kept; revive starts a new shell (or CMD) in
its last working directory, below that screen.`,
  options: { ...jsonOption },
  operands: 'TARGET',
  afterDash: 'CMD ARGS...',
  async run({ args, client, stdout }) {
    const target = args.positionals[0]!;
    const argv = commandAfterDash(args.rest);
    const body = argv === null ? {} : { argv };
    const s = await client.callRoute<SessionView>(API_ROUTES.reviveSession, { target }, body);
    if (args.values.json) printJson(stdout, s);
    else stdout.write(`revived ${sessionLabel(s)}\n`);
    return 0;
  },
};
