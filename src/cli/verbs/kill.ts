import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { sessionLabel, type SessionView } from '../format.js';

export const killVerb: Verb = {
  name: 'kill',
  summary: 'end a session and its program',
  usage: `tend kill TARGET... [--json]

Ends each session's program (SIGHUP, then SIGKILL) and forgets the session.
TARGET is an id, a unique id prefix, :name, or an index from \`tend ls\`.`,
  options: { ...jsonOption },
  operands: 'TARGET...',
  async run({ args, client, stdout }) {
    const killed: SessionView[] = [];
    for (const t of args.positionals) killed.push(await client.call<SessionView>('DELETE', `/v1/sessions/${encodeURIComponent(t)}`));
    if (args.values.json) printJson(stdout, killed);
    else for (const s of killed) stdout.write(`killed ${sessionLabel(s)}\n`);
    return 0;
  },
};
