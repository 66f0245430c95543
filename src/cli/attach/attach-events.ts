// `tend attach --json`: what happens to an attach, as one JSON object a line,
// for a script: it was attached, the server went away and came back, `prefix
// s` showed another session, it detached (and why), the session exited (with
// its code), or an error ended it. Fields are camelCase like every other
// `--json` output of the CLI; `at` is Unix milliseconds, as the API's times.
// Where the lines go is the verb's choice (stdout for a watcher without a
// terminal, stderr beside a terminal): never among the terminal's bytes.
import type { CliError } from '../cli-error.js';

export interface SessionRef {
  id: string;
  name: string | null;
}

/** A session being shown: its size as last shown, and whether this attach may type into it. */
export interface ShownSession extends SessionRef {
  cols: number;
  rows: number;
  readOnly: boolean;
}

/** Why an attach left a session that keeps running. */
export type DetachReason =
  /** The detach key (prefix d). */
  | 'detach-key'
  /** The attach was sent SIGHUP, SIGTERM or SIGINT (`signal` names it). */
  | 'signal'
  /** The server ended this viewer's subscription. */
  | 'server';

export type AttachEvent =
  | ({ event: 'attached' } & ShownSession)
  /** The server went away (a restart, a crash); the attach is trying to reach it again. */
  | ({ event: 'reconnecting'; why: string } & SessionRef)
  | ({ event: 'reconnected' } & ShownSession)
  /** `prefix s` showed another session; `from` is the one shown before. */
  | ({ event: 'switched'; from: SessionRef } & ShownSession)
  | ({ event: 'detached'; reason: DetachReason; signal?: string } & SessionRef)
  /** The session's program ended: its exit code, or the signal that ended it (code null). */
  | ({ event: 'exited'; code: number | null; signal: number | null } & SessionRef)
  /** The attach could not go on: code and details as every verb's `--json` error has them. */
  | { event: 'error'; code: string; message: string; [detail: string]: unknown };

/** Writes events to one stream, one JSON object a line, each stamped with when it happened. */
export class AttachEventWriter {
  constructor(private readonly stream: { write(text: string): unknown }) {}

  write(event: AttachEvent): void {
    this.stream.write(`${JSON.stringify({ ...event, at: Date.now() })}\n`);
  }

  /** An error as its event: the same code and details a verb's `{"error": …}` carries. */
  error(err: CliError): void {
    this.write({ event: 'error', code: err.code, message: err.message, ...err.details });
  }
}

/**
 * Where a watcher's screen goes: nowhere. Writes complete at once, so the
 * attach acks what it was sent as if a terminal had drawn it and the server
 * never holds the stream back for it.
 */
export const discardedOutput = {
  isTTY: false,
  write(_data: Uint8Array | string, done?: () => void): boolean {
    if (done) queueMicrotask(done);
    return true;
  },
  on(): void {},
  off(): void {},
};
