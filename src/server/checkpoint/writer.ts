// The server's one checkpoint writer. It keeps writes of one session in
// order and never runs two at once (the newest request replaces one still
// waiting: only the latest screen matters), and it decides what a failure
// means. A disk that is full, read-only or forbidden is not a per-session
// problem: checkpoints stop with one warning, the sessions keep running (a
// restart then replays from the holders' rings), and a quiet probe every
// RETRY_INTERVAL_MS notices when the disk works again.
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Disposable } from '../../common/lifecycle.js';
import type { CheckpointInput } from './format.js';
import { loadCheckpoint, nodeFs, removeCheckpoint, writeCheckpoint, type CheckpointFs, type LoadResult } from './files.js';
import { HistoryFiles, readHistoryFile, type HistoryFileContents, type HistorySource } from './history-file.js';

/**
 * A checkpoint to write, with the session's history blocks at its cut: those
 * not yet in its history file are appended (and synced) before the
 * checkpoint that counts them is written.
 */
export type CheckpointJob = CheckpointInput & { history?: HistorySource };

export const RETRY_INTERVAL_MS = 60_000;
/** An epoch no history has (theirs count up from 1): a file adopted with it is rewritten at the next sync. */
const DAMAGED_FILE_EPOCH = -1;
// The probe writes as much as the largest checkpoint so far (within bounds),
// so a disk with a few kilobytes free does not pass for a working one.
const PROBE_MIN_BYTES = 64 * 1024;
const PROBE_MAX_BYTES = 16 * 1024 * 1024;

/** The errors that mean "this disk, not this checkpoint": they stop checkpointing. */
const DISK_TROUBLE: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'no permission to write',
  EPERM: 'no permission to write',
};

export interface CheckpointLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, err?: unknown): void;
}

export type CheckpointWriteOutcome =
  /** This checkpoint is on disk. */
  | 'written'
  /** A newer checkpoint of the session replaced it before it started; settles when that one has. */
  | 'superseded'
  /** Not attempted: checkpoints are stopped (disk trouble) or the writer is disposed. */
  | 'skipped'
  /** Attempted and failed (logged). */
  | 'failed';

export type CheckpointStatus =
  | { state: 'enabled' }
  | { state: 'disabled'; code: string; reason: string; since: number };

export interface CheckpointWriterEvents {
  'checkpoint-written': [{ sessionId: string; bytes: number; ms: number; offset: number }];
  'checkpoint-failed': [{ sessionId: string; code: string | undefined; message: string }];
  /** Checkpointing stopped for disk trouble. */
  'checkpoints-disabled': [{ code: string; reason: string }];
  /** The disk works again; these sessions' checkpoints were skipped meanwhile and are worth writing now. */
  'checkpoints-resumed': [{ skippedSessionIds: string[] }];
}

export interface CheckpointWriterOptions {
  dir: string;
  log: CheckpointLogger;
  retryIntervalMs?: number;
  fs?: CheckpointFs;
}

interface Waiter {
  resolve(outcome: CheckpointWriteOutcome): void;
  superseded: boolean;
}

interface Lane {
  queued: { cp: CheckpointJob; waiters: Waiter[] } | null;
  /** Settles when the lane has nothing running or queued. */
  idle: Promise<void> | null;
}

function errnoOf(err: unknown): string | undefined {
  return err && typeof err === 'object' && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

export class CheckpointWriter extends EventEmitter<CheckpointWriterEvents> implements Disposable {
  readonly dir: string;
  private readonly log: CheckpointLogger;
  private readonly fs: CheckpointFs;
  private readonly retryIntervalMs: number;
  private readonly lanes = new Map<string, Lane>();
  private readonly skipped = new Set<string>();
  /**
   * Sessions removed (killed): a write of one asked for later is refused, so
   * a checkpoint cut before the kill and handed over after it cannot bring
   * the files back. Ids are never reused, so one entry per kill is the cost.
   */
  private readonly removed = new Set<string>();
  private _status: CheckpointStatus = { state: 'enabled' };
  private retryTimer: NodeJS.Timeout | null = null;
  private probing = false;
  private dirReady = false;
  private largestBytes = 0;
  private disposed = false;
  private readonly historyFiles: HistoryFiles;

  constructor(options: CheckpointWriterOptions) {
    super();
    this.dir = options.dir;
    this.log = options.log;
    this.fs = options.fs ?? nodeFs;
    this.retryIntervalMs = options.retryIntervalMs ?? RETRY_INTERVAL_MS;
    this.historyFiles = new HistoryFiles(this.dir, this.fs);
  }

  get status(): CheckpointStatus {
    return this._status;
  }

  get enabled(): boolean {
    return this._status.state === 'enabled';
  }

  /**
   * Asks for `cp` to be written. Resolves when it is on disk ('written'), was
   * replaced by a newer one that has since settled ('superseded'), was not
   * attempted ('skipped'), or failed ('failed'). Never rejects.
   */
  write(cp: CheckpointJob): Promise<CheckpointWriteOutcome> {
    if (this.disposed || this.removed.has(cp.sessionId)) return Promise.resolve('skipped');
    if (!this.enabled) {
      this.skipped.add(cp.sessionId);
      return Promise.resolve('skipped');
    }
    let lane = this.lanes.get(cp.sessionId);
    if (!lane) {
      lane = { queued: null, idle: null };
      this.lanes.set(cp.sessionId, lane);
    }
    const current = lane;
    return new Promise((resolve) => {
      const waiter: Waiter = { resolve, superseded: false };
      if (current.queued) {
        for (const w of current.queued.waiters) w.superseded = true;
        current.queued = { cp, waiters: [...current.queued.waiters, waiter] };
      } else {
        current.queued = { cp, waiters: [waiter] };
      }
      if (!current.idle) current.idle = this.runLane(cp.sessionId, current);
    });
  }

  /** Reads a session's checkpoint (see loadCheckpoint), after any write of it in flight. */
  async load(sessionId: string): Promise<LoadResult> {
    await this.lanes.get(sessionId)?.idle;
    return loadCheckpoint(this.dir, sessionId, { fs: this.fs });
  }

  /**
   * Reads a session's history file up to the rows its checkpoint covers
   * (cutting off what came after), after any write of it in flight. The
   * history that takes its blocks in then adopts the file (adoptHistory),
   * so later checkpoints append to it.
   */
  async loadHistory(sessionId: string, endRow: number): Promise<HistoryFileContents> {
    await this.lanes.get(sessionId)?.idle;
    this.historyFiles.forget(sessionId);
    return readHistoryFile(this.dir, sessionId, endRow, { fs: this.fs });
  }

  /**
   * The session's history (of this epoch) took in `contents`: its file holds
   * those blocks, and new ones are appended after them. A history of
   * another epoch (a screen replaced since) rewrites the file instead.
   */
  adoptHistory(sessionId: string, epoch: number, contents: HistoryFileContents): void {
    const last = contents.blocks[contents.blocks.length - 1];
    // A damaged file is not appended to: the next checkpoint writes it whole, so its damage is read (and reported) once.
    const fileEpoch = contents.problem === '' ? epoch : DAMAGED_FILE_EPOCH;
    if (contents.bytes > 0) this.historyFiles.adopt(sessionId, { epoch: fileEpoch, endRow: last === undefined ? 0 : last.firstRow + last.rows, bytes: contents.bytes });
  }

  /**
   * Drops a queued write of the session, waits for one in flight, then
   * deletes its files; the session is gone, so no later write of it is taken.
   */
  async remove(sessionId: string): Promise<void> {
    this.removed.add(sessionId);
    const lane = this.lanes.get(sessionId);
    if (lane?.queued) {
      for (const w of lane.queued.waiters) w.resolve('skipped');
      lane.queued = null;
    }
    await lane?.idle;
    this.skipped.delete(sessionId);
    try {
      await removeCheckpoint(this.dir, sessionId, { fs: this.fs });
      await this.historyFiles.remove(sessionId);
    } catch (err) {
      this.log.error(`checkpoint of session ${sessionId}: could not remove it from ${this.dir}`, err);
    }
  }

  /** Settles when every write asked for so far has settled (for a clean shutdown). */
  async drain(): Promise<void> {
    while (this.lanes.size > 0) {
      await Promise.all([...this.lanes.values()].map((l) => l.idle));
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stopRetrying();
    for (const lane of this.lanes.values()) {
      if (!lane.queued) continue;
      for (const w of lane.queued.waiters) w.resolve('skipped');
      lane.queued = null;
    }
    this.removeAllListeners();
  }

  // ---- internals ---------------------------------------------------------------

  private async runLane(sessionId: string, lane: Lane): Promise<void> {
    while (lane.queued) {
      const job = lane.queued;
      lane.queued = null;
      const outcome = await this.attempt(job.cp);
      for (const w of job.waiters) w.resolve(w.superseded && outcome === 'written' ? 'superseded' : outcome);
    }
    lane.idle = null;
    this.lanes.delete(sessionId);
  }

  private async attempt(job: CheckpointJob): Promise<CheckpointWriteOutcome> {
    const { history, ...cp } = job;
    if (this.disposed) return 'skipped';
    if (!this.enabled) {
      this.skipped.add(cp.sessionId);
      return 'skipped';
    }
    const started = performance.now();
    try {
      await this.ensureDir();
      if (history !== undefined) await this.historyFiles.sync(cp.sessionId, history);
      const { bytes } = await writeCheckpoint(this.dir, cp, { fs: this.fs });
      this.largestBytes = Math.max(this.largestBytes, bytes);
      this.emit('checkpoint-written', { sessionId: cp.sessionId, bytes, ms: performance.now() - started, offset: cp.offset });
      return 'written';
    } catch (err) {
      const code = errnoOf(err);
      if (code && code in DISK_TROUBLE) {
        this.skipped.add(cp.sessionId);
        this.disable(code);
        return 'failed';
      }
      this.log.error(`checkpoint of session ${cp.sessionId} (offset ${cp.offset}) could not be written to ${this.dir}`, err);
      this.emit('checkpoint-failed', { sessionId: cp.sessionId, code, message: (err as Error).message });
      return 'failed';
    }
  }

  private async ensureDir(): Promise<void> {
    if (this.dirReady) return;
    await this.fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    this.dirReady = true;
  }

  private disable(code: string): void {
    if (!this.enabled || this.disposed) return; // one warning for one outage, however many writes were in flight
    const reason = DISK_TROUBLE[code]!;
    this._status = { state: 'disabled', code, reason, since: Date.now() };
    this.log.warn(`checkpoints stopped: ${reason} (${code}) at ${this.dir}; sessions keep running, recovery will replay from holders`);
    this.emit('checkpoints-disabled', { code, reason });
    // Not unref'd: dispose() clears it, and a waiting 'checkpoints-resumed' must keep the process alive.
    this.retryTimer = setInterval(() => void this.probe(), this.retryIntervalMs);
  }

  private stopRetrying(): void {
    if (this.retryTimer) clearInterval(this.retryTimer);
    this.retryTimer = null;
  }

  /** Writes, syncs and deletes a scratch file the size of a real checkpoint; quiet on failure. */
  private async probe(): Promise<void> {
    if (this.probing || this.enabled || this.disposed) return;
    this.probing = true;
    const path = join(this.dir, `probe.ckpt.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    const size = Math.min(PROBE_MAX_BYTES, Math.max(PROBE_MIN_BYTES, this.largestBytes));
    let created = false;
    try {
      await this.fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const handle = await this.fs.open(path, 'wx', 0o600);
      created = true;
      try {
        const zeros = Buffer.alloc(size);
        for (let at = 0; at < size; ) at += (await handle.write(zeros, at, size - at)).bytesWritten;
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.fs.unlink(path);
      created = false;
      this.resume();
    } catch {
      // Still broken: stay quiet, the one warning has been given.
    } finally {
      if (created) await this.fs.unlink(path).catch(() => {});
      this.probing = false;
    }
  }

  private resume(): void {
    if (this.disposed) return;
    this.stopRetrying();
    this._status = { state: 'enabled' };
    this.dirReady = false;
    const skippedSessionIds = [...this.skipped];
    this.skipped.clear();
    this.log.info(`checkpoints resumed at ${this.dir}`);
    this.emit('checkpoints-resumed', { skippedSessionIds });
  }
}
