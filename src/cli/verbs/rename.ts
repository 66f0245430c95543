import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { checkName } from '../argument-checks.js';
import type { SessionView } from '../format.js';
import { API_ROUTES } from '../../protocol/api/index.js';

export const renameVerb: Verb = {
  name: 'rename',
  summary: 'rename a session',
  usage: `tend rename TARGET NAME [--json]

Gives the session a new name (target it as :NAME). An empty NAME ("") removes the name.`,
  options: { ...jsonOption },
  operands: 'TARGET NAME',
  async run({ args, client, stdout }) {
    const [target, typed] = args.positionals as [string, string];
    const name = typed === '' ? null : checkName('NAME', typed.replace(/^:/, ''));
    const s = await client.callRoute<SessionView>(API_ROUTES.renameSession, { target }, { name });
    if (args.values.json) printJson(stdout, s);
    else stdout.write(`${s.id} is now ${s.name ? `:${s.name}` : 'unnamed'}\n`);
    return 0;
  },
};
