// Errors the API answers with: a stable code for scripts (one of the
// contract's, src/protocol/api/errors.ts, which also fixes its HTTP status)
// and a message a person can act on. Anything else that escapes a handler is
// a bug, logged with its stack and answered 500 without one; a failure that
// is the disk's (full, read-only) is answered as such (diskTroubleAnswer).
import { diskTroubleOf } from '../../common/disk-trouble.js';
import { statusOfError, type ApiErrorBody, type ApiErrorCode } from '../../protocol/api/index.js';

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.status = statusOfError(code);
  }

  /** The answer's body: code and message, with the details beside them. */
  body(): ApiErrorBody {
    return { error: { ...this.details, code: this.code, message: this.message } };
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new ApiError('bad_request', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new ApiError('not_found', message, details);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new ApiError('conflict', message, details);

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
    return new ApiError('disk_full', `${said}; free some space there (running sessions keep running)`, details);
  }
  return new ApiError('disk_read_only', `${said}; make it writable, or set TEND_HOME to a directory you can write (running sessions keep running)`, details);
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}
