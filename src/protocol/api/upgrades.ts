// POST /v1/holders/upgrade: running holders replace their binary in place
// (holder protocol 3, EXEC), keeping every terminal. docs/api.md documents it.

export interface UpgradeHoldersRequest {
  /** The new holder binary, an absolute path; default: the one this server starts holders with. */
  holderPath?: string;
  /** Session targets to upgrade (docs/api.md "Targets"); default: every running session. */
  sessions?: string[];
}

/** At most this many targets in one request. */
export const MAX_UPGRADE_TARGETS = 1000;

/** Why a session's holder was left as it is. */
export type HolderUpgradeSkip =
  /** Its holder speaks a protocol before 3: it cannot hand over, and keeps working as it is. */
  | 'too-old'
  /** Its holder already runs this binary's build. */
  | 'same-build'
  /** The session is not running (exited, cold, or controlled by another server). */
  | 'not-running';

export type HolderUpgradeOutcome =
  | {
      session: string;
      name: string | null;
      result: 'upgraded';
      /** The build id the holder ran before, and runs now. */
      fromBuild: string;
      toBuild: string;
      /** From EXEC to the new holder's stream caught up: how long the session's output waited. */
      stallMs: number;
    }
  | { session: string; name: string | null; result: 'skipped'; reason: HolderUpgradeSkip; message: string }
  | {
      session: string;
      name: string | null;
      result: 'failed';
      /** What went wrong, for a person; the session keeps running unless it says otherwise. */
      message: string;
    };

export interface UpgradeHoldersReply {
  /** The binary handed over to, and its build id (`tend-holder --version`). */
  holderPath: string;
  build: string;
  upgraded: number;
  skipped: number;
  failed: number;
  /** One per target, in the order they were handled. */
  sessions: HolderUpgradeOutcome[];
}
