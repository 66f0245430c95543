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
  /**
   * A viewer shown views (its terminal is not the session's size) is
   * repainted at once when output comes after a quiet spell (an echo never
   * waits), then at most once per this while output flows.
   */
  viewRepaintMs: number;
  /** ...and never with more than this many views unacknowledged. */
  viewsUnackedMax: number;
  /**
   * A session that ended sends each viewer its last output before EXIT and
   * CLOSED; a viewer that has not taken it (acks) within this is closed anyway.
   */
  endDrainMaxMs: number;
}

export const HIGH_WATER_BYTES = 256 * 1024;
export const LOW_WATER_BYTES = 16 * 1024;
export const REPLAY_MAX_BYTES = 64 * 1024;
export const LAG_SNAPSHOT_BYTES = 512 * 1024;
export const IMMEDIATE_MAX_BYTES = 512;
export const COALESCE_MS = 4;
export const DATA_FRAME_MAX_BYTES = 64 * 1024;
/** ~60 paints a second: smooth to the eye, and a screen's worth of cells each (a few KiB). */
export const VIEW_REPAINT_MS = 16;
/** `tend attach` acks within 50 ms of a write: three views in flight keep the 16 ms pace. */
export const VIEWS_UNACKED_MAX = 3;
/** Long enough for a slow link to take a high-water mark's worth, short enough that a dead viewer goes. */
export const END_DRAIN_MAX_MS = 10_000;

export const DEFAULT_FLOW_LIMITS: Readonly<FlowLimits> = Object.freeze({
  highWaterBytes: HIGH_WATER_BYTES,
  lowWaterBytes: LOW_WATER_BYTES,
  replayMaxBytes: REPLAY_MAX_BYTES,
  lagSnapshotBytes: LAG_SNAPSHOT_BYTES,
  immediateMaxBytes: IMMEDIATE_MAX_BYTES,
  coalesceMs: COALESCE_MS,
  frameMaxBytes: DATA_FRAME_MAX_BYTES,
  viewRepaintMs: VIEW_REPAINT_MS,
  viewsUnackedMax: VIEWS_UNACKED_MAX,
  endDrainMaxMs: END_DRAIN_MAX_MS,
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
