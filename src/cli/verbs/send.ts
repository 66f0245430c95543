import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { KeyNameError, parseKeys } from '../keys.js';

export const sendVerb: Verb = {
  name: 'send',
  summary: 'type text or keys into a session',
  usage: `tend send TARGET [TEXT...] [--keys K,K...] [--enter] [--stdin] [--json]

Types TEXT (words joined by spaces) into the session, as if typed; then the
named keys; then Enter.

  -k, --keys K,K...  named keys, e.g. C-c  Up,Up,Enter  M-x  F5  BSpace
                     (C-a..C-z, M-KEY, Enter, Tab, BTab, Escape, Space, Comma, BSpace,
                     Up, Down, Left, Right, Home, End, Insert, Delete, PageUp, PageDown,
                     F1..F12, or one character); may be repeated
  -e, --enter        press Enter after the text and keys
      --stdin        send standard input, byte for byte, first`,
  options: {
    ...jsonOption,
    enter: { type: 'boolean', short: 'e' },
    stdin: { type: 'boolean' },
    keys: { type: 'string', short: 'k', multiple: true },
  },
  async run({ args, client, stdout }) {
    const [target, ...words] = args.positionals;
    if (target === undefined) throw new CliError('usage: tend send TARGET [TEXT...] [--keys K,K...]', 2);
    // Parsed before anything is sent, so a misspelt key sends nothing at all.
    let keys = '';
    const keySpecs = args.values.keys;
    if (Array.isArray(keySpecs)) {
      try {
        keys = parseKeys(keySpecs.filter((k): k is string => typeof k === 'string'));
      } catch (err) {
        if (err instanceof KeyNameError) throw new CliError(`--keys: ${err.message}`, 2);
        throw err;
      }
    }
    const path = `/v1/sessions/${encodeURIComponent(target)}/input`;
    let sent = 0;
    if (args.values.stdin) {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      sent += (await client.call<{ bytes: number }>('POST', path, { base64: Buffer.concat(chunks).toString('base64') })).bytes;
    }
    if (words.length > 0) sent += (await client.call<{ bytes: number }>('POST', path, { text: words.join(' ') })).bytes;
    if (keys !== '') sent += (await client.call<{ bytes: number }>('POST', path, { base64: Buffer.from(keys, 'utf8').toString('base64') })).bytes;
    // Enter goes as its own write: input boxes treat a pasted newline as text.
    if (args.values.enter) sent += (await client.call<{ bytes: number }>('POST', path, { text: '\r' })).bytes;
    if (args.values.json) printJson(stdout, { bytes: sent });
    return 0;
  },
};
