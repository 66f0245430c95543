// `tend send`: input answered only once the session's holder has it, so an
// exit status of 0 means the bytes survive a server crash. Each part (stdin,
// text, keys, Enter) is one write named by a key; a server that goes away
// mid-write is waited for and the write made again with the same key, and the
// holder drops what it already had: nothing is lost, nothing arrives twice.
import { createHash, randomBytes } from 'node:crypto';
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { KeyNameError, parseKeys } from '../keys.js';
import { RIDE_THROUGH_MS, RideThroughConnection } from '../ride-through.js';
import { API_ROUTES, INPUT_KEY_PATTERN, type InputReply } from '../../protocol/api/index.js';

/** The server answers 503 input_interrupted when it went away while the holder took a write: made again. */
const INTERRUPTED_STATUS = 503;

/** One part's key, from the command's key: the same command line with the same --key names the same writes. */
function partKey(key: string, part: string): string {
  return createHash('sha256').update(`${key} ${part}`).digest('hex').slice(0, 32);
}

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
      --stdin        send standard input, byte for byte, first
      --key HEX      name this send (32 hex digits): the same command with the
                     same key after a failure sends only what did not arrive

Exits 0 once the session's holder has every byte: the input then survives a
server restart or crash. A server that goes away mid-send is waited for (up
to 60 s) and the send completed, nothing doubled.`,
  options: {
    ...jsonOption,
    enter: { type: 'boolean', short: 'e' },
    stdin: { type: 'boolean' },
    keys: { type: 'string', short: 'k', multiple: true },
    key: { type: 'string' },
  },
  operands: 'TARGET [TEXT...]',
  async run({ args, client, stdout, stderr }) {
    const [target, ...words] = args.positionals as [string, ...string[]];
    const text = words.join(' ');
    // Parsed before anything is sent, so a misspelt key sends nothing at all.
    let keys = '';
    const keySpecs = args.values.keys;
    if (Array.isArray(keySpecs)) {
      try {
        keys = parseKeys(keySpecs.filter((k): k is string => typeof k === 'string'));
      } catch (err) {
        if (err instanceof KeyNameError) throw usageError(`--keys: ${err.message}`);
        throw err;
      }
    }
    // A send of nothing succeeding would tell a script its input arrived.
    if (text === '' && keys === '' && !args.values.enter && !args.values.stdin) {
      throw usageError('nothing to send: give TEXT, --keys K, --enter or --stdin');
    }
    const givenKey = args.values.key;
    if (givenKey !== undefined && (typeof givenKey !== 'string' || !INPUT_KEY_PATTERN.test(givenKey))) {
      throw usageError('--key must be 32 lowercase hex digits (e.g. from `openssl rand -hex 16`)');
    }
    const key = typeof givenKey === 'string' ? givenKey : randomBytes(16).toString('hex');
    const conn = new RideThroughConnection(client, {
      away: 'the server went away; waiting for it to come back to finish the send…',
      gaveUp: (why) => `the tend server went away and did not come back within ${RIDE_THROUGH_MS / 1000} s (${why}); part of the input may have arrived: run the same command with --key ${key} to send the rest, nothing twice`,
    }, stderr, [INTERRUPTED_STATUS]);
    const write = async (part: string, body: { text: string } | { base64: string }): Promise<number> =>
      (await conn.callRoute<InputReply>(API_ROUTES.sendInput, { target }, { ...body, key: partKey(key, part) })).bytes;
    let sent = 0;
    if (args.values.stdin) {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      sent += await write('stdin', { base64: Buffer.concat(chunks).toString('base64') });
    }
    if (text !== '') sent += await write('text', { text });
    if (keys !== '') sent += await write('keys', { base64: Buffer.from(keys, 'utf8').toString('base64') });
    // Enter goes as its own write: input boxes treat a pasted newline as text.
    if (args.values.enter) sent += await write('enter', { text: '\r' });
    if (args.values.json) printJson(stdout, { bytes: sent, key });
    return 0;
  },
};
