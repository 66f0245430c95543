// The one error the store raises. Its message is for a person (it names the
// file and says what to do); its code is for the server, which decides from it
// whether to keep serving (READ_ONLY, WRITE_FAILED) or refuse to start.

export type StoreErrorCode =
  /** The file is SQLite but not a tend store, or not SQLite at all. */
  | 'NOT_TEND_DB'
  /** The file is a tend store whose pages fail SQLite's integrity check. */
  | 'CORRUPT'
  /** The store was written by a newer tend (its schema version is above ours). */
  | 'TOO_NEW'
  /** The store could not be opened or read at all (permissions, I/O). */
  | 'UNREADABLE'
  /** The store was opened read-only and a write was asked of it. */
  | 'READ_ONLY'
  /** A write failed (disk full, I/O error). */
  | 'WRITE_FAILED'
  /** Another live session carries that name. */
  | 'NAME_TAKEN'
  /** A session with that id exists already. */
  | 'DUPLICATE_ID'
  /** No session has that id. */
  | 'NOT_FOUND'
  /** The change would break the lifecycle (e.g. reviving a disposed session). */
  | 'BAD_TRANSITION';

export class StoreError extends Error {
  override readonly name = 'StoreError';

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The SQLite result code of an error thrown by better-sqlite3, if it is one. */
export function sqliteCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string' && err.code.startsWith('SQLITE_')) {
    return err.code;
  }
  return undefined;
}
