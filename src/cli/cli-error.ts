// What goes wrong in `tend VERB`, and how it is said: one line on stderr for
// a person, or with --json one JSON object, `{"error": {code, message, …}}`,
// that a script can branch on. An error the server answered keeps the API's
// code and details (candidates, arrived…) as docs/api.md lists them; an
// error of the CLI's own has one of CLI_ERROR_CODES. The exit status is the
// same either way.
import { EXIT } from './exit-codes.js';

export const CLI_ERROR_CODES = {
  usage: 'the command line is wrong: an unknown verb or option, a missing, extra or bad argument',
  failed: 'something the CLI itself could not do (the message says what)',
  server_unreachable: 'the server could not be reached, or went away and did not come back',
  server_start_failed: 'no server was running and one could not be started',
  server_incompatible: 'the server is a tend that shares no API version with this one: nothing was asked of it',
  internal: 'a bug in tend: please report it with the message',
} as const;

export type CliErrorCode = keyof typeof CLI_ERROR_CODES;

export interface CliErrorOptions {
  /** A code of CLI_ERROR_CODES, or the API's code for an error the server answered. */
  code?: string;
  /** Beside code and message in --json output: the API's details, a usage line, candidates. */
  details?: Record<string, unknown>;
}

export class CliError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(message: string, readonly exitCode: number = EXIT.failed, options: CliErrorOptions = {}) {
    super(message);
    this.code = options.code ?? (exitCode === EXIT.usage ? 'usage' : 'failed');
    this.details = options.details ?? {};
  }
}

/** A command line that cannot be right; `usage` is the verb's usage line, shown under the message. */
export function usageError(message: string, details: { usage?: string; candidates?: string[] } = {}): CliError {
  return new CliError(message, EXIT.usage, { code: 'usage', details });
}

interface ApiErrorObject {
  code: string;
  message: string;
  [detail: string]: unknown;
}

function apiErrorObject(body: unknown): ApiErrorObject | null {
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const error = (body as { error: unknown }).error;
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return null;
  return error as ApiErrorObject;
}

/**
 * An error answer of the API as the CLI's error, its code and details kept.
 * A 400 exits 2: the CLI checks its arguments before it asks, so what the
 * server still finds malformed is the user's input (a directory that does
 * not exist, a program that cannot start).
 */
export function errorFromApi(status: number, body: unknown): CliError {
  const exitCode = status === 400 ? EXIT.usage : EXIT.failed;
  const error = apiErrorObject(body);
  if (error === null) {
    const text = typeof body === 'string' && body.trim() !== '' ? body.trim() : `the server answered ${status} without saying why`;
    return new CliError(text, exitCode, { code: 'failed', details: { status } });
  }
  const { code, message, ...details } = error;
  return new CliError(message, exitCode, { code, details });
}

/** Says an error: `tend: MESSAGE` (and the usage line under it), or the JSON object. */
export function writeError(err: CliError, out: { json: boolean; stderr: NodeJS.WritableStream }): void {
  if (out.json) {
    out.stderr.write(`${JSON.stringify({ error: { code: err.code, message: err.message, ...err.details } })}\n`);
    return;
  }
  const usage = typeof err.details.usage === 'string' ? `usage: ${err.details.usage}\n` : '';
  out.stderr.write(`tend: ${err.message}\n${usage}`);
}

/** Anything else that escaped a verb is a bug: said in one line, never as a stack trace. */
export function internalError(err: unknown): CliError {
  const what = err instanceof Error ? err.message : String(err);
  return new CliError(`internal error: ${what} (please report it)`, EXIT.failed, { code: 'internal' });
}
