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

export interface VersionRange {
  oldest: number;
  newest: number;
}

export interface ProtocolRanges {
  /** holder/protocol.h: every version a holder tend has shipped may still be running. */
  holder: VersionRange;
  /** src/protocol/viewer-frames.ts */
  viewer: VersionRange;
  /** This HTTP API (routes.ts); bumped only by a change a client of another build could trip on. */
  api: VersionRange;
}

export interface RecoveryProgress {
  /** Sessions the store said were running when this server started. */
  total: number;
  /** Of those, how many are taken back live (holder reattached, screen restored). */
  recovered: number;
  /** Of those, how many could only be taken back cold (holder gone). */
  cold: number;
  /** True once every one has been tried. */
  done: boolean;
}

export interface HealthReply {
  ok: true;
  version: string;
  /** This build's id (docs/upgrades.md): two trees of one version can differ in build. */
  build: string;
  /** The protocol versions this server speaks, oldest to newest. */
  protocols: ProtocolRanges;
  /** The service manager that runs this server (`tend service`), null when none does. */
  service: 'systemd' | 'launchd' | null;
  /** How far this server's start has come in taking back the sessions that were running. */
  recovery: RecoveryProgress;
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
