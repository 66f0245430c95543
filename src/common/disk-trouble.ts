// What a failed write says about the disk under it. A full disk, a read-only
// file system or a directory taken away from us is not a bug of the code that
// tried to write: it is the person's to fix, so it must reach them as one
// sentence naming the place (never "internal server error", never a stack).
// The store's errors (SQLite's) and the file system's (errno) both land here.

/** The kind of trouble, by what a person does about it. */
export type DiskTroubleKind = 'full' | 'read-only';

export interface DiskTrouble {
  kind: DiskTroubleKind;
  /** The errno name (ENOSPC, EDQUOT, EROFS, EACCES, EPERM), or the nearest one for an SQLite code. */
  code: string;
  /** In words, for a sentence: "the disk is full". */
  reason: string;
  /** The file or directory that could not be written, when the error names one. */
  path?: string;
}

const ERRNO_TROUBLE: Record<string, { kind: DiskTroubleKind; reason: string }> = {
  ENOSPC: { kind: 'full', reason: 'the disk is full' },
  EDQUOT: { kind: 'full', reason: 'the disk quota is used up' },
  EROFS: { kind: 'read-only', reason: 'the file system is read-only' },
  EACCES: { kind: 'read-only', reason: 'this user may not write there' },
  EPERM: { kind: 'read-only', reason: 'this user may not write there' },
};

/** SQLite reports the same troubles in its own words; these are the errno each stands for. */
function errnoOfSqlite(code: string): string | undefined {
  if (code === 'SQLITE_FULL') return 'ENOSPC';
  if (code.startsWith('SQLITE_READONLY')) return 'EROFS';
  return undefined;
}

/** How deep to follow `cause`: a StoreError wraps SQLite's error, which is enough. */
const MAX_CAUSE_DEPTH = 4;

/**
 * The disk trouble behind `err` (looking through its causes), or null when
 * it is some other failure.
 */
export function diskTroubleOf(err: unknown): DiskTrouble | null {
  let at: unknown = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && at !== null && typeof at === 'object'; depth++) {
    const code = 'code' in at && typeof at.code === 'string' ? at.code : undefined;
    // EACCES on connect() is a socket's permission, not a disk's.
    if ('syscall' in at && at.syscall === 'connect') return null;
    const errno = code === undefined ? undefined : code.startsWith('SQLITE_') ? errnoOfSqlite(code) : code;
    const known = errno === undefined ? undefined : ERRNO_TROUBLE[errno];
    if (errno !== undefined && known !== undefined) {
      const path = 'path' in at && typeof at.path === 'string' ? at.path : undefined;
      return { kind: known.kind, code: errno, reason: known.reason, ...(path === undefined ? {} : { path }) };
    }
    at = 'cause' in at ? at.cause : undefined;
  }
  return null;
}

/** True when `err` is disk trouble, or an error whose message was written for a person already. */
export function isPlainlyWorded(err: unknown): boolean {
  if (diskTroubleOf(err) !== null) return true;
  return err instanceof Error && err.name === 'StoreError';
}
