import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';

export const sendVerb: Verb = {
  name: 'send',
  summary: 'type text into a session',
  usage: `tend send TARGET TEXT... [--enter] [--stdin] [--json]

Types TEXT (words joined by spaces) into the session, as if typed.

  -e, --enter   press Enter after the text
      --stdin   send standard input, byte for byte`,
  options: { ...jsonOption, enter: { type: 'boolean', short: 'e' }, stdin: { type: 'boolean' } },
  async run({ args, client, stdout }) {
    const [target, ...words] = args.positionals;
    if (target === undefined) throw new CliError('usage: tend send TARGET TEXT...', 2);
    const path = `/v1/sessions/${encodeURIComponent(target)}/input`;
    let sent = 0;
    if (args.values.stdin) {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      sent += (await client.call<{ bytes: number }>('POST', path, { base64: Buffer.concat(chunks).toString('base64') })).bytes;
    }
    if (words.length > 0) sent += (await client.call<{ bytes: number }>('POST', path, { text: words.join(' ') })).bytes;
    // Enter goes as its own write: input boxes treat a pasted newline as text.
    if (args.values.enter) sent += (await client.call<{ bytes: number }>('POST', path, { text: '\r' })).bytes;
    if (args.values.json) printJson(stdout, { bytes: sent });
    return 0;
  },
};
