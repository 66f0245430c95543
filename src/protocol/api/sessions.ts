// Sessions as the HTTP API shows and takes them (/v1/sessions…): the one
// definition the server answers with and the CLI and the page read.
import type { AgentInfo, AgentLaunchRequest } from './agents.js';

/** running; exited (its program ended, the screen is kept); cold (its holder is gone); elsewhere (another server holds its lease). */
export type SessionStatus = 'running' | 'exited' | 'cold' | 'elsewhere';

export interface SessionInfo {
  /** 8 characters, starting with a letter. */
  id: string;
  name: string | null;
  status: SessionStatus;
  /** For an exited session: the program's exit code, or null when a signal ended it (exitSignal says which). */
  exitCode: number | null;
  exitSignal: number | null;
  pid: number | null;
  holderPid: number | null;
  /** From OSC 7 when the program reports it, else the start directory. */
  cwd: string;
  /** From OSC 0/2; empty when the program set none. */
  title: string;
  cols: number;
  rows: number;
  /** The program the session started (what runs, unless it exec'd another). */
  argv: string[];
  /** Unix milliseconds. */
  createdAt: number;
  endedAt: number | null;
  lastOutputAt: number | null;
  /** Viewers attached now. */
  viewers: number;
  /** The holder's generation and the byte offset fed to the server's screen. */
  generation: string | null;
  offset: number;
  /** Bytes fed and not yet parsed: the screen shows up to offset − unparsedBytes. */
  unparsedBytes: number;
  /** Output is known to be missing from the screen or its scrollback. */
  degraded: boolean;
  /** Present only while the session's screen cannot be saved (a full or read-only disk): what that means. */
  warning?: string;
  /** The AI coding agent in the session, once one was launched by tend or reported by its hooks; else null. */
  agent: AgentInfo | null;
}

/** An item of GET /v1/sessions: the session and the 1-based index targets may use. */
export interface ListedSession extends SessionInfo {
  index: number;
}

/** DELETE /v1/sessions/:target answers the session as it was, marked gone. */
export interface KilledSession extends Omit<SessionInfo, 'status'> {
  status: 'disposed';
}

export const SESSION_SIZE_MIN = 1;
export const SESSION_SIZE_MAX = 1000;
export const DEFAULT_SESSION_COLS = 80;
export const DEFAULT_SESSION_ROWS = 24;
export const SESSION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SESSION_NAME_RULE = '1-64 letters, digits, ".", "_" or "-", starting with a letter or digit';
/** A session's TERM ("term", or TERM in "env"): a terminfo name, no path and no spaces. */
export const TERM_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
export const TERM_NAME_RULE = '1-64 letters, digits, ".", "_", "+" or "-", starting with a letter or digit (like xterm-256color)';
export const MAX_ARGV_ITEMS = 4096;
export const MAX_ARG_CHARS = 128 * 1024;
export const MAX_CWD_CHARS = 4096;

/** POST /v1/sessions. */
export interface CreateSessionRequest {
  argv?: string[];
  /** An absolute path; default $HOME. */
  cwd?: string;
  env?: Record<string, string>;
  term?: string;
  cols?: number;
  rows?: number;
  name?: string;
  /** Load tend's integration into a bash, zsh or fish it starts (default true). */
  shellIntegration?: boolean;
  /** Start an agent in the session: the session runs the shell (argv, default the user's) and tend types the agent's command into it. */
  agent?: AgentLaunchRequest;
}

/** POST /v1/sessions/:target/split: a new session beside the target in its workspace. */
export interface SplitSessionRequest extends Omit<CreateSessionRequest, 'cols' | 'rows'> {
  direction?: 'right' | 'down';
  ratio?: number;
}

export interface RenameSessionRequest {
  name: string | null;
}

export interface ReviveSessionRequest {
  argv?: string[];
}

export interface ResizeSessionRequest {
  cols: number;
  rows: number;
}

export interface SignalSessionRequest {
  /** A name ("INT", "SIGTERM") or a number 1-64. */
  signal: string | number;
}

export interface SignalSessionReply {
  signal: number;
}

// Input (POST /v1/sessions/:target/input): see docs/api.md "Input".
/** Bodies past this are refused (413). */
export const MAX_INPUT_BODY_BYTES = 64 * 1024 * 1024;
/** A write's key: 16 bytes as lowercase hex. */
export const INPUT_KEY_PATTERN = /^[0-9a-f]{32}$/;

export type InputRequest = ({ text: string; base64?: never } | { base64: string; text?: never }) & { key?: string };

export interface InputReply {
  /** Bytes in the body. */
  bytes: number;
  key: string;
  /** Of them, bytes an earlier try with this key had already delivered. */
  alreadyHad: number;
}

/** Details of 409 session_not_running and 503 input_interrupted from the input route. */
export interface InputFailureDetails {
  arrived: number;
  bytes: number;
  key: string;
}

// Reading a screen (GET /v1/sessions/:target/screen).
export type ScreenFormat = 'text' | 'ansi' | 'snapshot';
export const MAX_SCREEN_SCROLLBACK_ROWS = 1_000_000;

export interface ScrollbackCount {
  /** Rows of scrollback included. */
  shown: number;
  /** Rows of scrollback held, live and history. */
  available: number;
  /** Rows missing when the request reached past the oldest row held (else 0): dropped by a memory budget or lost from a damaged history file. */
  dropped: number;
  /** Of `dropped`, the rows a damaged history file lost. */
  lost: number;
}

export interface CursorPlace {
  x: number;
  y: number;
  visible: boolean;
}

/** ?format=text|ansi */
export interface ScreenTextReply {
  text: string;
  scrollback: ScrollbackCount;
  cols: number;
  rows: number;
  cursor: CursorPlace;
  title: string;
  offset: number;
  degraded: boolean;
  status: SessionStatus;
  exitCode: number | null;
  exitSignal: number | null;
}

// Searching a session's history (GET /v1/sessions/:target/search).
export const MAX_SEARCH_PATTERN_CHARS = 1000;
export const DEFAULT_SEARCH_MATCHES = 100;
export const MAX_SEARCH_MATCHES = 10_000;

export interface SearchMatch {
  /** The row number the matching logical line starts at. */
  row: number;
  /** The logical line (wrapped rows joined), trailing blanks trimmed. */
  line: string;
}

export interface SearchReply {
  /** The last matches, oldest first. */
  matches: SearchMatch[];
  total: number;
  truncated: boolean;
  /** The rows searched: [firstRow, endRow). */
  firstRow: number;
  endRow: number;
  /** Rows missing below firstRow (a memory budget dropped them, or a damaged history file lost them). */
  dropped: number;
}

// Searching every session's history at once (GET /v1/search, `tend grep`).
// The same engine and limits as one session's search, session after session.

/** How long a search of every session may take in all; sessions left are listed as skipped. */
export const SEARCH_ALL_BUDGET_MS = 30_000;

/** One session's hits: the session, then what its own search answers. */
export interface SessionSearchHits extends SearchReply {
  id: string;
  name: string | null;
  /** Its index in GET /v1/sessions (and `tend ls`). */
  index: number;
  status: SessionStatus;
}

/** Why a session was not searched (or not whole). */
export type SearchSkipReason =
  /** SEARCH_ALL_BUDGET_MS ran out while it was searched (a history of millions of rows, or many before it): stopped there. */
  | 'search_too_long'
  /** The search of every session had spent SEARCH_ALL_BUDGET_MS before its turn. */
  | 'budget_spent'
  /** It was removed while the search ran. */
  | 'gone';

export interface SessionSearchSkip {
  id: string;
  name: string | null;
  reason: SearchSkipReason;
  message: string;
}

/** GET /v1/search?q=TEXT&regex=1&ignore-case=1&max=N&sessions=T,T */
export interface SearchAllReply {
  /** The sessions with at least one match, in the order of GET /v1/sessions. */
  sessions: SessionSearchHits[];
  /** How many sessions were searched whole. */
  searched: number;
  /** Matching lines in all (each session's total, summed). */
  total: number;
  /** Sessions not searched, or not whole, and why. */
  skipped: SessionSearchSkip[];
}

/** A screen serialized for a viewer: one write into a fresh cols × rows terminal after a reset draws it. */
export interface ScreenSnapshot {
  cols: number;
  rows: number;
  /** ANSI text: one write into a fresh cols × rows terminal after a reset. */
  data: string;
  /** Rows of scrollback included in data. */
  scrollbackRows: number;
  /** The row number of its top scrollback row (rows older than it are history to ask for). */
  firstRow: number;
  title: string;
  cwd: string | null;
  cursor: CursorPlace;
}

/** ?format=snapshot: the snapshot, and where it stands in the session's output. */
export interface ScreenSnapshotReply extends ScreenSnapshot {
  offset: number;
  degraded: boolean;
  status: SessionStatus;
  scrollback: ScrollbackCount;
}
