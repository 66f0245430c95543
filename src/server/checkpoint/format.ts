// The checkpoint file format, encode and decode, no file I/O.
//
//   offset  size  field
//   0       8     magic "TENDCKPT"
//   8       2     format version (u16 LE), FORMAT_VERSION
//   10      2     header length in bytes (u16 LE), HEADER_BYTES; a reader skips what it does not know
//   12      4     flags (u32 LE), 0
//   16      8     body length in bytes (u64 LE)
//   24      32    SHA-256 of the body
//   56      …     body: meta length (u32 LE), meta JSON (UTF-8), then the screen (UTF-8) to the end
//
// The screen goes after the JSON rather than inside it: it is megabytes of
// ANSI text, and as a JSON string every ESC would grow to six bytes and cost a
// pass of escaping. Encoding and hashing go in slices with a turn of the event
// loop between them, so a 4 MB screen never holds up other sessions for long.
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';

export interface Checkpoint {
  sessionId: string;
  /** The holder's generation (hex): the offset means something only with it. */
  generation: string;
  /** How many holder bytes the screen covers. */
  offset: number;
  cols: number;
  rows: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Anything JSON can hold: cwd, title, modes, the snapshot's own details… */
  meta: Record<string, unknown>;
  /** The serialized screen (ANSI), possibly megabytes. */
  screen: string;
}

export const MAGIC = Buffer.from('TENDCKPT', 'ascii');
export const FORMAT_VERSION = 1;
export const HEADER_BYTES = 56;
const DIGEST_BYTES = 32;
const META_LENGTH_BYTES = 4;

// A slice is worth about half a millisecond of hashing or UTF-8 work on a
// slow core: small enough for the no-stall-over-10-ms goal, large enough that
// yielding between slices costs little.
export const SLICE_CHARS = 256 * 1024;
export const SLICE_BYTES = 512 * 1024;

export class CheckpointFormatError extends Error {
  override readonly name = 'CheckpointFormatError';
  constructor(
    readonly reason: 'corrupt' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a writer may hand in: the screen as one string or as the parts it was
 * built from. Parts matter for big screens: a string built by appending rows
 * is a rope, and V8 flattens a 4 MB rope in one go (6–14 ms measured) the
 * first time anything reads it; parts are read one by one, never flattened.
 */
export type CheckpointInput = Omit<Checkpoint, 'screen'> & { screen: string | readonly string[] };

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The screen as UTF-8 slices, never splitting a surrogate pair, yielding between slices. */
async function encodeScreen(screen: string | readonly string[]): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let carry = ''; // a high surrogate whose low half starts the next part
  const parts = typeof screen === 'string' ? [screen] : screen;
  let sinceYield = 0; // characters encoded since the last turn of the loop: many small parts share a turn
  for (let p = 0; p < parts.length; p++) {
    const part = carry + parts[p]!;
    carry = '';
    for (let start = 0; start < part.length; ) {
      let end = Math.min(start + SLICE_CHARS, part.length);
      if (isHighSurrogate(part.charCodeAt(end - 1)) && (end < part.length || p < parts.length - 1)) end -= 1;
      if (end === start) {
        carry = part.slice(start);
        break;
      }
      out.push(Buffer.from(part.slice(start, end), 'utf8'));
      sinceYield += end - start;
      start = end;
      if (sinceYield >= SLICE_CHARS) {
        sinceYield = 0;
        await nextTurn();
      }
    }
  }
  if (carry) out.push(Buffer.from(carry, 'utf8'));
  return out;
}

async function digestOf(parts: readonly Buffer[]): Promise<Buffer> {
  const hash = createHash('sha256');
  for (const part of parts) {
    for (let at = 0; at < part.length; at += SLICE_BYTES) {
      hash.update(part.subarray(at, at + SLICE_BYTES));
      if (at + SLICE_BYTES < part.length) await nextTurn();
    }
  }
  return hash.digest();
}

/** Encodes a checkpoint as the buffers of one file, header first. */
export async function encodeCheckpoint(cp: CheckpointInput): Promise<Buffer[]> {
  const { screen, ...rest } = cp;
  const meta = Buffer.from(JSON.stringify(rest), 'utf8');
  const metaLength = Buffer.alloc(META_LENGTH_BYTES);
  metaLength.writeUInt32LE(meta.length, 0);
  const body = [metaLength, meta, ...(await encodeScreen(screen))];
  const bodyLength = body.reduce((n, b) => n + b.length, 0);
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt16LE(FORMAT_VERSION, 8);
  header.writeUInt16LE(HEADER_BYTES, 10);
  header.writeUInt32LE(0, 12);
  header.writeBigUInt64LE(BigInt(bodyLength), 16);
  (await digestOf(body)).copy(header, 24);
  return [header, ...body];
}

function corrupt(message: string): CheckpointFormatError {
  return new CheckpointFormatError('corrupt', message);
}

function checkShape(value: unknown, sessionId: string): Omit<Checkpoint, 'screen'> {
  if (!value || typeof value !== 'object') throw corrupt('its metadata is not an object');
  const v = value as Record<string, unknown>;
  const isCount = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (v.sessionId !== sessionId) throw corrupt(`it belongs to session ${String(v.sessionId)}, not ${sessionId}`);
  if (typeof v.generation !== 'string' || !/^[0-9a-f]+$/i.test(v.generation)) throw corrupt('its generation is not hex');
  for (const key of ['offset', 'cols', 'rows', 'createdAt'] as const) {
    if (!isCount(v[key])) throw corrupt(`its ${key} is not a whole number`);
  }
  if (!v.meta || typeof v.meta !== 'object' || Array.isArray(v.meta)) throw corrupt('its meta is not an object');
  return v as unknown as Omit<Checkpoint, 'screen'>;
}

/**
 * Decodes one file's bytes. Throws CheckpointFormatError: 'unsupported' for a
 * newer format version (a newer tend wrote it), 'corrupt' for anything else
 * wrong — short, bad magic, wrong length, checksum mismatch, unparsable.
 */
export async function decodeCheckpoint(file: Buffer, sessionId: string): Promise<Checkpoint> {
  if (file.length < HEADER_BYTES) throw corrupt(`it is ${file.length} bytes, shorter than its ${HEADER_BYTES}-byte header`);
  if (!file.subarray(0, MAGIC.length).equals(MAGIC)) throw corrupt('it does not start with TENDCKPT');
  const version = file.readUInt16LE(8);
  if (version > FORMAT_VERSION) {
    throw new CheckpointFormatError('unsupported', `it has format version ${version}; this tend reads up to ${FORMAT_VERSION}`);
  }
  if (version < 1) throw corrupt(`it has format version ${version}`);
  const headerLength = file.readUInt16LE(10);
  if (headerLength < HEADER_BYTES || headerLength > file.length) throw corrupt(`its header length ${headerLength} is impossible`);
  const declared = file.readBigUInt64LE(16);
  const actual = BigInt(file.length - headerLength);
  if (declared !== actual) throw corrupt(`its body is ${actual} bytes but its header says ${declared} (truncated or extended)`);
  const body = file.subarray(headerLength);
  const digest = await digestOf([body]);
  if (!digest.equals(file.subarray(24, 24 + DIGEST_BYTES))) throw corrupt('its SHA-256 checksum does not match its body');
  if (body.length < META_LENGTH_BYTES) throw corrupt('its body has no metadata');
  const metaLength = body.readUInt32LE(0);
  if (META_LENGTH_BYTES + metaLength > body.length) throw corrupt(`its metadata length ${metaLength} runs past the end`);
  let meta: unknown;
  try {
    meta = JSON.parse(body.subarray(META_LENGTH_BYTES, META_LENGTH_BYTES + metaLength).toString('utf8'));
  } catch (err) {
    throw corrupt(`its metadata is not JSON (${(err as Error).message})`);
  }
  const head = checkShape(meta, sessionId);
  const screen = await decodeScreen(body.subarray(META_LENGTH_BYTES + metaLength));
  return { ...head, screen };
}

async function decodeScreen(bytes: Buffer): Promise<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  try {
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
      const end = Math.min(at + SLICE_BYTES, bytes.length);
      parts.push(decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length }));
      if (end < bytes.length) await nextTurn();
    }
    parts.push(decoder.decode());
  } catch {
    throw corrupt('its screen is not valid UTF-8');
  }
  return parts.join('');
}
