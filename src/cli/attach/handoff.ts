// The state `tend attach`'s native viewer (viewer/, in C) hands over when a
// prefix key asks for what only this viewer has (the keys panel, the session
// list): it execs `tend attach ID --handoff FD`, FD an unlinked file holding
// the state as JSON (viewer/handoff.c writes it). With it this viewer goes on
// from where the native one stood: the same writer id and input numbers at
// the holder (each byte typed arrives once), the position written (the new
// subscription resumes: no row reaches the outer scrollback twice), what the
// outer terminal shows, and the terminal settings to put back at the end.
// Nothing in it is trusted: every field is checked before it is used.
import { closeSync, fstatSync, readFileSync } from 'node:fs';
import { MAX_INPUT_BYTES_PER_FRAME, WRITER_ID_BYTES, type ResumePoint } from '../../protocol/viewer-frames.js';
import { UntakenInput, type InputPiece } from '../../protocol/untaken-input.js';
import type { PrefixCommand } from './prefix-keys.js';

/** Far more than the native viewer writes (it keeps ~1 MiB of input, in hex). */
const MAX_HANDOFF_BYTES = 8 * 1024 * 1024;
const HANDOFF_VERSION = 1;
/** What `stty -g` prints (GNU: hex words and colons; BSD: gfmt1:name=value:…), and nothing a shell would read. */
const STTY_SETTINGS = /^[0-9A-Za-z:=]{1,2048}$/;

export interface HandoffState {
  session: { id: string; name: string | null };
  readOnly: boolean;
  detachPrefix: number;
  writer: Uint8Array;
  /** A screen of the session is on the outer terminal. */
  painted: boolean;
  written: ResumePoint | null;
  /** The outer terminal's scrollback holds this session's history. */
  keepsHistory: boolean;
  viewShown: boolean;
  altScreen: { active: boolean; originMode: boolean };
  untaken: UntakenInput;
  /** The prefix key's command that asked for the hand-off. */
  command: Exclude<PrefixCommand, 'detach'> | null;
  /** Rows were drawn over the screen: the first subscription asks for a repaint. */
  covered: boolean;
  /** Read after the command's key: typed on once the command runs. */
  typed: Uint8Array;
  /** The outer terminal's settings before the native viewer made it raw, for `stty` (null: unknown). */
  stty: string | null;
}

/** The hand-off cannot be used; the message says why, for a person. */
export class HandoffError extends Error {}

/** Reads the state from the file descriptor `--handoff` names, and closes it. */
export function readHandoff(fdText: string): HandoffState {
  if (!/^\d{1,9}$/.test(fdText)) throw new HandoffError(`--handoff takes the number of an open file, not ${JSON.stringify(fdText)}`);
  const fd = Number(fdText);
  let text: string;
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_HANDOFF_BYTES) throw new HandoffError(`--handoff ${fd}: the file holds ${size} bytes, more than a hand-off (${MAX_HANDOFF_BYTES})`);
    text = readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof HandoffError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new HandoffError(`--handoff ${fd}: cannot read it (${code ?? String(err)}); it is how tend attach's native viewer hands over to this one, not an option to type`);
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Not open: said above.
    }
  }
  return parseHandoff(text);
}

/** Checks every field of the hand-off's JSON. */
export function parseHandoff(text: string): HandoffState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HandoffError('--handoff: the file is not JSON, so not a hand-off of tend attach');
  }
  const top = object(value, 'the hand-off');
  if (top.v !== HANDOFF_VERSION) throw new HandoffError(`--handoff: version ${JSON.stringify(top.v)} is not this tend's (${HANDOFF_VERSION}): the native viewer and the CLI come from different builds; run \`npm install\``);
  const session = object(top.session, 'session');
  const written = top.written === null ? null : object(top.written, 'written');
  const alt = object(top.altScreen, 'altScreen');
  const untaken = object(top.untaken, 'untaken');
  const pieces = array(untaken.pieces, 'untaken.pieces').map((p, i): InputPiece => {
    const piece = object(p, `untaken.pieces[${i}]`);
    const data = hex(piece.hex, `untaken.pieces[${i}].hex`);
    if (data.length > MAX_INPUT_BYTES_PER_FRAME) throw bad(`untaken.pieces[${i}]`, `at most ${MAX_INPUT_BYTES_PER_FRAME} bytes`);
    return { at: count(piece.at, `untaken.pieces[${i}].at`), data };
  });
  const command = top.command;
  if (command !== null && command !== 'keys' && command !== 'sessions') throw bad('command', '"keys", "sessions" or null');
  const writer = hex(top.writer, 'writer');
  if (writer.length !== WRITER_ID_BYTES) throw bad('writer', `${WRITER_ID_BYTES} bytes`);
  const detachPrefix = count(top.detachPrefix, 'detachPrefix');
  if (detachPrefix > 0x1f) throw bad('detachPrefix', 'a control character (0 to 31)');
  const stty = top.stty;
  if (stty !== null && (typeof stty !== 'string' || !STTY_SETTINGS.test(stty))) throw bad('stty', 'settings as `stty -g` prints them, or null');
  let seeded: UntakenInput;
  try {
    seeded = UntakenInput.resumed({ next: count(untaken.next, 'untaken.next'), taken: count(untaken.taken, 'untaken.taken'), pieces });
  } catch (err) {
    if (err instanceof HandoffError) throw err;
    throw bad('untaken', `pieces running to "next" (${err instanceof Error ? err.message : String(err)})`);
  }
  const name = session.name;
  if (name !== null && typeof name !== 'string') throw bad('session.name', 'a string or null');
  return {
    session: { id: nonEmpty(session.id, 'session.id'), name },
    readOnly: bool(top.readOnly, 'readOnly'),
    detachPrefix,
    writer,
    painted: bool(top.painted, 'painted'),
    written: written === null ? null : { boot: nonEmpty(written.boot, 'written.boot'), seq: count(written.seq, 'written.seq') },
    keepsHistory: bool(top.keepsHistory, 'keepsHistory'),
    viewShown: bool(top.viewShown, 'viewShown'),
    altScreen: { active: bool(alt.active, 'altScreen.active'), originMode: bool(alt.originMode, 'altScreen.originMode') },
    untaken: seeded,
    command,
    covered: bool(top.covered, 'covered'),
    typed: hex(top.typed, 'typed'),
    stty,
  };
}

function bad(field: string, expected: string): HandoffError {
  return new HandoffError(`--handoff: "${field}" must be ${expected}: the file is not a hand-off of tend attach`);
}

function object(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(field, 'an object');
  return v as Record<string, unknown>;
}

function array(v: unknown, field: string): unknown[] {
  if (!Array.isArray(v)) throw bad(field, 'an array');
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw bad(field, 'true or false');
  return v;
}

function count(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(field, 'a whole number, 0 or more');
  return v;
}

function nonEmpty(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '' || v.length > 1024) throw bad(field, 'a non-empty string');
  return v;
}

function hex(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string' || v.length % 2 !== 0 || !/^[0-9a-f]*$/.test(v)) throw bad(field, 'bytes in lower-case hex');
  return Uint8Array.from(Buffer.from(v, 'hex'));
}
