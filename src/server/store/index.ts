// The server's persistent state: sessions and small meta in SQLite
// (`$TEND_HOME/tend.db`, WAL). The server core is its only writer.
//
//   const store = Store.open({ dir: paths.storeDir });   // StoreError if unusable
//   if (store.readOnly) log.warn(store.readOnlyReason);   // then writes throw READ_ONLY
//   store.createSession({ id, name, argv, cwd, env, cols, rows, holderSocket,
//                         holderPid, childPid, generation, createdAt }) -> SessionRecord
//   store.getSession(id) / findByName(name) -> SessionRecord | undefined
//   store.listSessions({ includeDisposed? }) -> records in creation order (tend ls index = position, from 1)
//   store.updateSession(id, { name, cols, rows, cwd, title, holderPid, childPid,
//                             generation, holderSocket, status, lastOutputAt })
//   store.markExited(id, { code, signal, endedAt }); markCold(id); markDisposed(id)
//   store.getMeta(key) / setMeta(key, value)
//   store.sizes: the size journal (size-journal.ts), where each session was resized
//   store.dispose()
//
// Lifecycle: running -> exited (exit code/signal, endedAt) -> disposed; running
// -> cold when its holder is gone; disposed is final. markExited and markCold
// on a session that is past that state are no-ops (exit events race kills);
// changing a disposed session's status throws BAD_TRANSITION.
// Names are unique among non-disposed sessions (NAME_TAKEN otherwise).
//
// Opening never harms a file: one that is not a tend store (NOT_TEND_DB), is
// damaged (CORRUPT), or was written by a newer tend (TOO_NEW) is refused with
// a message naming the file and the remedy, and left byte for byte as it was.
// Damage SQLite cannot see (a flipped byte inside a row's JSON) costs only that
// field: the record reads with it empty and names it in `damaged`.
// A directory or file this user may not write opens read-only when a store
// exists (READ_ONLY when there is none). Every error is a StoreError with a
// stable `.code` (see store-error.ts).
export { Store, STORE_FILE_NAME, type StoreOptions } from './store.js';
export { SizeJournal, type SizeChange, type JournalledSizeChange } from './size-journal.js';
export { StoreError, type StoreErrorCode } from './store-error.js';
export type { SessionRecord, StoredSessionStatus, SessionPatch, NewSession } from './session-record.js';
export { LATEST_SCHEMA_VERSION, MIGRATIONS, TEND_APPLICATION_ID, migrate, type Migration } from './migrations.js';
