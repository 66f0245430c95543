// POST /v1/sessions/:target/input: bytes for the program, answered only once
// the session's holder has them. The holder outlives the server, so an
// answer means the input survives a server crash. A caller that names its
// write with a `key` can send the same body again after a lost answer (a
// crashed or restarted server): the holder drops the bytes it already has of
// that key, so nothing is lost and nothing arrives twice. docs/api.md has the
// contract.
import { randomBytes } from 'node:crypto';
import type { Router } from './router.js';
import { INPUT_KEY_PATTERN, MAX_INPUT_BODY_BYTES, type InputReply } from '../../protocol/api/index.js';
import { ApiError, badRequest } from './errors.js';
import { optString } from './validate.js';
import { SessionStateError, type Session } from '../session.js';
import { InputHoleError, InputNotTakenError, WRITER_ID_BYTES } from '../input/durable-input.js';

/** A checked input body, as the server types it. */
export interface ParsedInput {
  bytes: Buffer;
  /** The write's name, 16 bytes; chosen here when the caller gave none. */
  writer: Buffer;
  /** The caller named the write (so it may be a retry). */
  keyed: boolean;
}

/** The request body, checked whole before anything is typed. */
export function parseInputBody(body: Record<string, unknown>): ParsedInput {
  const text = optString(body, 'text', { max: MAX_INPUT_BODY_BYTES });
  const base64 = optString(body, 'base64', { max: MAX_INPUT_BODY_BYTES });
  if ((text === undefined) === (base64 === undefined)) throw badRequest('give exactly one of "text" (UTF-8) or "base64" (raw bytes)');
  const decoded = base64 === undefined ? undefined : Buffer.from(base64, 'base64');
  // Node skips characters outside the alphabet rather than refusing them: only a body that
  // encodes back to itself is base64 (checked without a regex, which on 64 MiB could run long).
  if (decoded !== undefined && decoded.toString('base64') !== base64) {
    throw badRequest('"base64" is not valid base64 (the standard alphabet A-Z a-z 0-9 + /, padded with = to a multiple of 4 characters); nothing was typed');
  }
  const key = optString(body, 'key', { max: 64 });
  if (key !== undefined && !INPUT_KEY_PATTERN.test(key)) {
    throw badRequest(`"key" must be ${WRITER_ID_BYTES * 2} lowercase hex digits (16 random bytes naming this write), not ${JSON.stringify(key)}`);
  }
  return {
    bytes: decoded ?? Buffer.from(text!, 'utf8'),
    writer: key !== undefined ? Buffer.from(key, 'hex') : randomBytes(WRITER_ID_BYTES),
    keyed: key !== undefined,
  };
}

export function addInputRoute(router: Router, target: (t: string | undefined) => Session): void {
  router.add('sendInput', async (req) => {
    const session = target(req.params.target);
    const input = parseInputBody(await req.json(MAX_INPUT_BODY_BYTES));
    const key = input.writer.toString('hex');
    let alreadyHad = 0;
    try {
      // A named write may be a retry: what the holder has of it is not sent again.
      if (input.keyed) alreadyHad = Math.min(await session.inputTaken(input.writer), input.bytes.length);
      await session.inputAt(input.writer, 0, input.bytes);
    } catch (err) {
      throw inputError(session, err, input.bytes.length, key);
    }
    return { status: 200, json: { bytes: input.bytes.length, key, alreadyHad } satisfies InputReply };
  });
}

/** Why the input did not all arrive, and how much did: a retry with the key sends the rest. */
function inputError(session: Session, err: unknown, length: number, key: string): unknown {
  if (err instanceof SessionStateError) return new ApiError('session_not_running', err.message, { arrived: 0, bytes: length, key });
  if (err instanceof InputHoleError) return badRequest(err.message, { arrived: err.taken, bytes: length, key });
  if (!(err instanceof InputNotTakenError)) return err;
  const arrived = Math.min(err.taken, length);
  const message = `${arrived} of ${length} bytes reached session ${session.label} before ${err.message}`;
  // The session still runs (this server is going away, so it let go of the session): the
  // same body with the same key sends the rest through the next server.
  if (session.status === 'running') {
    return new ApiError('input_interrupted', `${message}; send the same body again with "key": "${key}" to send the rest`, { arrived, bytes: length, key });
  }
  return new ApiError('session_not_running', message, { arrived, bytes: length, key });
}
