import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import type { SessionView } from '../format.js';

export const renameVerb: Verb = {
  name: 'rename',
  summary: 'rename a session',
  usage: `tend rename TARGET NAME [--json]

Gives the session a new name (target it as :NAME). An empty NAME ("") removes the name.`,
  options: { ...jsonOption },
  async run({ args, client, stdout }) {
    const [target, name] = args.positionals;
    if (target === undefined || name === undefined || args.positionals.length > 2) throw new CliError('usage: tend rename TARGET NAME', 2);
    const s = await client.call<SessionView>('PATCH', `/v1/sessions/${encodeURIComponent(target)}`, { name: name === '' ? null : name.replace(/^:/, '') });
    if (args.values.json) printJson(stdout, s);
    else stdout.write(`${s.id} is now ${s.name ? `:${s.name}` : 'unnamed'}\n`);
    return 0;
  },
};
