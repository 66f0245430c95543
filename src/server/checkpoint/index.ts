// Checkpoints: one file per session, `$TEND_HOME/checkpoints/<session id>.ckpt`,
// holding the serialized screen and the holder position it covers.
//
//   const writer = new CheckpointWriter({ dir: paths.checkpointsDir, log });
//   await collectStale(dir, { liveSessionIds })   // at start: crash leftovers, orphans, old damaged files
//   await writer.write(cp)     -> 'written' | 'superseded' | 'skipped' | 'failed'   (never rejects)
//   await writer.load(id)      -> { ok: true, checkpoint } | { ok: false, reason: 'missing' | 'corrupt' | 'unsupported' | 'unreadable', detail }
//   await writer.remove(id)    // after a queued/in-flight write of it settles; later writes of it are refused
//   await writer.drain()       // every requested write settled (clean shutdown)
//   writer.status / writer.enabled
//   writer.on('checkpoint-written', ({ sessionId, bytes, ms, offset }) => …)
//   writer.on('checkpoints-resumed', ({ skippedSessionIds }) => checkpoint those now)
//   writer.dispose()
//
// A Checkpoint is { sessionId, generation (holder's, hex), offset (holder bytes
// covered), cols, rows, createdAt, meta (JSON-able), screen (ANSI string) }.
// A write may give the screen as parts (string[]) instead: a big screen built
// by appending rows is a rope that V8 flattens in one blocking go (6–14 ms for
// 4 MB measured); parts are encoded one by one and never flattened.
//
// Writes are atomic (temp file + fsync + rename + fsync of the directory) and
// checksummed (SHA-256 over the body, see format.ts); encoding and hashing run
// in slices so a multi-megabyte screen does not stall the event loop. Per
// session at most one write runs; a newer request replaces a waiting one.
// ENOSPC / EDQUOT / EROFS / EACCES / EPERM stop checkpointing with one warning
// through the logger ("checkpoints stopped: disk full (ENOSPC) at <dir>; …"),
// status becomes disabled, writes are skipped, and a probe every 60 s brings
// it back with one info line and a 'checkpoints-resumed' event. Any other
// failure is logged with its session and offset. A damaged file found by a
// load is moved aside to `<id>.ckpt.corrupt-<ms>` for inspection, not deleted.
export { type Checkpoint, type CheckpointInput, CheckpointFormatError, FORMAT_VERSION, encodeCheckpoint, decodeCheckpoint } from './format.js';
export {
  writeCheckpoint,
  loadCheckpoint,
  removeCheckpoint,
  collectStale,
  checkpointPath,
  CORRUPT_KEEP_MS,
  type CheckpointFs,
  type LoadResult,
  type WriteResult,
  type CollectReport,
} from './files.js';
export { readHistoryFile, historyFilePath, type HistorySource, type StoredBlock, type HistoryFileContents } from './history-file.js';
export {
  CheckpointWriter,
  type CheckpointJob,
  RETRY_INTERVAL_MS,
  type CheckpointWriteOutcome,
  type CheckpointStatus,
  type CheckpointWriterOptions,
  type CheckpointWriterEvents,
  type CheckpointLogger,
} from './writer.js';
