// The numbers that govern what one viewer is sent and when. One place, because
// the protocol document quotes them and the tests check them.

export interface FlowLimits {
  /** Stop sending to a viewer with this much unacknowledged: only that viewer waits. */
  highWaterBytes: number;
  /** ...and resume once its unacknowledged bytes fall below this. */
  lowWaterBytes: number;
  /** A resuming viewer that owes at most this much is replayed; more gets a snapshot. */
  replayMaxBytes: number;
  /**
   * A viewer coming out of a pause that owes more than this gets a fresh
   * snapshot rather than a replay it may never catch up with.
   */
  lagSnapshotBytes: number;
  /** Output that leaves at most this much owed goes at once: keystroke echo must not wait. */
  immediateMaxBytes: number;
  /** Otherwise output is coalesced for this long, so a flood is sent in few large frames. */
  coalesceMs: number;
  /** The most stream bytes in one DATA frame. */
  frameMaxBytes: number;
}

export const HIGH_WATER_BYTES = 256 * 1024;
export const LOW_WATER_BYTES = 16 * 1024;
export const REPLAY_MAX_BYTES = 64 * 1024;
export const LAG_SNAPSHOT_BYTES = 512 * 1024;
export const IMMEDIATE_MAX_BYTES = 512;
export const COALESCE_MS = 4;
export const DATA_FRAME_MAX_BYTES = 64 * 1024;

export const DEFAULT_FLOW_LIMITS: Readonly<FlowLimits> = Object.freeze({
  highWaterBytes: HIGH_WATER_BYTES,
  lowWaterBytes: LOW_WATER_BYTES,
  replayMaxBytes: REPLAY_MAX_BYTES,
  lagSnapshotBytes: LAG_SNAPSHOT_BYTES,
  immediateMaxBytes: IMMEDIATE_MAX_BYTES,
  coalesceMs: COALESCE_MS,
  frameMaxBytes: DATA_FRAME_MAX_BYTES,
});

/** Timers as an interface, so tests can step time; the default is the real clock. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
