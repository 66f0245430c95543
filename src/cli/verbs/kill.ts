import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { sessionLabel, type SessionView } from '../format.js';
import { API_ROUTES } from '../../protocol/api/index.js';

export const killVerb: Verb = {
  name: 'kill',
  summary: 'end a session and its program',
  usage: `tend kill TARGET... [--json]

Ends each session's program (SIGHUP, then SIGKILL) and forgets the session.
TARGET is an id, a unique id prefix, :name, or an index from \`tend ls\`.`,
  options: { ...jsonOption },
  operands: 'TARGET...',
  async run({ args, client, stdout }) {
    // Every target is looked up before any session ends: indexes shift as sessions go (`tend kill 1 2`
    // would end the first and the third), and a misspelt target must end nothing.
    const ids: string[] = [];
    for (const t of args.positionals) {
      const { id } = await client.callRoute<SessionView>(API_ROUTES.getSession, { target: t });
      if (!ids.includes(id)) ids.push(id);
    }
    const killed: SessionView[] = [];
    for (const id of ids) {
      const s = await client.callRoute<SessionView>(API_ROUTES.killSession, { target: id });
      killed.push(s);
      if (!args.values.json) stdout.write(`killed ${sessionLabel(s)}\n`);
    }
    if (args.values.json) printJson(stdout, killed);
    return 0;
  },
};
