// GET /v1/health and POST /v1/server/stop: the server's own state.

export interface EventLoopReading {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  windowMs: number;
}

export type CheckpointsState =
  | { state: 'enabled' }
  | { state: 'disabled'; code: string; reason: string; since: number };

export interface HealthReply {
  ok: true;
  version: string;
  pid: number;
  /** This server process's boot id (a viewer stream resumes within one boot). */
  boot: string;
  startedAt: number;
  home: string;
  sessions: number;
  storeReadOnly: boolean;
  /** Whether screens are being saved; disabled (with why) while the disk under checkpoints is full or read-only. */
  checkpoints: CheckpointsState;
  /** The 127.0.0.1 port, null when not listening. */
  port: number | null;
  /** The loop's delay since the window was opened or reset (?reset-event-loop=1); null with no window open. */
  eventLoop: EventLoopReading | null;
  history: { bytes: number; budgetBytes: number };
  memory: { rssBytes: number };
}

export interface StopReply {
  stopping: true;
  pid: number;
}
