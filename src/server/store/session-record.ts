// A session as the store keeps it, and the mapping to and from its row.
import { exitStatusOf } from '../../protocol/exit-status.js';

/**
 * A session's status as stored. 'disposed' is the store's own: a killed
 * session, whose row stays but which the live lists leave out. What the API
 * shows is SessionStatus (src/protocol/api/), where 'elsewhere' is the API's own.
 */
export type StoredSessionStatus = 'running' | 'exited' | 'cold' | 'disposed';

export interface SessionRecord {
  id: string;
  name: string | null;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** The last title the program set (OSC 0/2), if any. */
  title: string | null;
  status: StoredSessionStatus;
  /** Null when a signal ended the program (then exitSignal says which). */
  exitCode: number | null;
  exitSignal: number | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  endedAt: number | null;
  lastOutputAt: number | null;
  holderSocket: string;
  holderPid: number | null;
  childPid: number | null;
  /** The holder's generation, hex; null until its holder reported one. */
  generation: string | null;
  /**
   * Fields of the stored row that no longer read back (a damaged store), as
   * words for a message ('command', 'environment'); they read as empty here.
   */
  damaged?: string[];
}

export interface NewSession {
  id: string;
  name: string | null;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  holderSocket: string;
  holderPid: number | null;
  childPid: number | null;
  generation: string | null;
  createdAt: number;
}

export type SessionPatch = Partial<
  Pick<
    SessionRecord,
    'name' | 'cols' | 'rows' | 'cwd' | 'title' | 'holderPid' | 'childPid' | 'generation' | 'holderSocket' | 'status' | 'lastOutputAt'
  >
>;

/** The columns updateSession may set, in the order its one statement names them. */
export const PATCHABLE_FIELDS = [
  'name', 'cols', 'rows', 'cwd', 'title', 'holderPid', 'childPid', 'generation', 'holderSocket', 'status', 'lastOutputAt',
] as const satisfies ReadonlyArray<keyof SessionPatch>;

export const COLUMN_OF: Record<(typeof PATCHABLE_FIELDS)[number], string> = {
  name: 'name',
  cols: 'cols',
  rows: 'rows',
  cwd: 'cwd',
  title: 'title',
  holderPid: 'holder_pid',
  childPid: 'child_pid',
  generation: 'generation',
  holderSocket: 'holder_socket',
  status: 'status',
  lastOutputAt: 'last_output_at',
};

export interface SessionRow {
  id: string;
  name: string | null;
  argv: string;
  cwd: string;
  env: string;
  cols: number;
  rows: number;
  title: string | null;
  status: StoredSessionStatus;
  exit_code: number | null;
  exit_signal: number | null;
  created_at: number;
  ended_at: number | null;
  last_output_at: number | null;
  holder_socket: string;
  holder_pid: number | null;
  child_pid: number | null;
  generation: string | null;
}

// SQLite checks its pages, not our JSON: a flipped byte inside a row's text
// passes quick_check. A field that no longer parses is damage to that field
// alone: the session is still its holder, its checkpoint and its history, so
// it reads as empty (the command is shown, the environment only given to a
// revived shell) and is named in `damaged`, and the rest of the store is
// served; refusing the store would keep every session from its owner.
function parseJson<T>(text: string, isValid: (value: unknown) => boolean, fallback: T, what: string, damaged: string[]): T {
  try {
    const value: unknown = JSON.parse(text);
    if (isValid(value)) return value as T;
  } catch {
    /* damaged: below */
  }
  damaged.push(what);
  return fallback;
}

const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isStringRecord = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

export function recordFromRow(row: SessionRow): SessionRecord {
  // Records from before signal deaths were stored as code null kept the holder's −1.
  const exit = exitStatusOf(row.exit_code, row.exit_signal);
  const damaged: string[] = [];
  return {
    id: row.id,
    name: row.name,
    argv: parseJson<string[]>(row.argv, isStringArray, [], 'command', damaged),
    cwd: row.cwd,
    env: parseJson<Record<string, string>>(row.env, isStringRecord, {}, 'environment', damaged),
    cols: row.cols,
    rows: row.rows,
    title: row.title,
    status: row.status,
    exitCode: exit.code,
    exitSignal: exit.signal,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    lastOutputAt: row.last_output_at,
    holderSocket: row.holder_socket,
    holderPid: row.holder_pid,
    childPid: row.child_pid,
    generation: row.generation,
    ...(damaged.length > 0 ? { damaged } : {}),
  };
}
