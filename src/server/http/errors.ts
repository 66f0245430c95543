// Errors the API answers with: a status code, a stable code for scripts and a
// message a person can act on. Anything else that escapes a handler is a bug,
// logged with its stack and answered 500 without one; a failure that is the
// disk's (full, read-only) is answered as such (diskTroubleAnswer).
import { diskTroubleOf } from '../disk-trouble.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError(400, 'bad_request', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new ApiError(404, 'not_found', message, details);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError(409, 'conflict', message, details);

/**
 * The answer for a failure that is the disk's, not the request's (see
 * disk-trouble.ts), or null for any other. A full disk is 507 disk_full; a
 * file system that may not be written is 409 disk_read_only. Both name the
 * place (`where`, when the error itself names none), and say that what runs
 * keeps running.
 */
export function diskTroubleAnswer(err: unknown, where?: string): ApiError | null {
  const trouble = diskTroubleOf(err);
  if (trouble === null) return null;
  // A StoreError says what it could not save and where; an errno error ("ENOSPC: no space left on device, write") is reworded.
  const said = err instanceof Error && err.name === 'StoreError'
    ? firstLine(err.message)
    : `cannot write ${trouble.path ?? (where === undefined ? 'to the disk' : `in ${where}`)}: ${trouble.reason}`;
  const details = { reason: trouble.reason, errno: trouble.code, ...(trouble.path === undefined ? {} : { path: trouble.path }) };
  if (trouble.kind === 'full') {
    return new ApiError(507, 'disk_full', `${said}; free some space there (running sessions keep running)`, details);
  }
  return new ApiError(409, 'disk_read_only', `${said}; make it writable, or set TEND_HOME to a directory you can write (running sessions keep running)`, details);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}
