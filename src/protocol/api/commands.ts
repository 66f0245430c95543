// What a session's shell ran (/v1/sessions/:target/commands, /output) and
// awaits (/v1/sessions/:target/await, /v1/awaits/:id), as the API shows them.
import type { AgentAwaitResult } from './agents.js';

/** A command the shell's integration marks (OSC 133/633) reported. */
export interface CommandRecord {
  /** Counts from 1 per session, never reused. */
  number: number;
  commandLine: string;
  /** null while it runs, or when the shell reported none. */
  exitCode: number | null;
  running: boolean;
  /** Unix milliseconds. */
  startedAt: number;
  endedAt: number | null;
  /** The last directory the shell reported before the command. */
  cwd: string | null;
}

/** GET …/commands answers at most this many, the newest. */
export const MAX_LISTED_COMMANDS = 10_000;

/** A command's number as ?cmd= takes it: 1 and up, at most 10 digits. */
export const COMMAND_NUMBER_PATTERN = /^[1-9][0-9]{0,9}$/;

/** GET …/output?cmd=N|last */
export interface CommandOutputReply {
  number: number;
  commandLine: string;
  /** The exact text between the command's C and D marks (up to the cursor while it runs). */
  text: string;
  complete: boolean;
  exitCode: number | null;
}

export const MAX_AWAIT_INPUT_BYTES = 1024 * 1024;
/** One call waits at most this long; a longer wait is a loop over the await's location. */
export const MAX_AWAIT_WAIT_MS = 60 * 60 * 1000;
export const DEFAULT_AWAIT_TIMEOUT_MS = 30_000;
/** An await id: "w" and 12 hex digits. */
export const AWAIT_ID_PATTERN = /^w[0-9a-f]{12}$/;

/** POST …/await */
export interface AwaitRequest {
  /** The command line to type at the shell's prompt (1 byte to 1 MiB). */
  input: string;
  /** 0 to MAX_AWAIT_WAIT_MS; default DEFAULT_AWAIT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Chosen by the caller to ask again safely; by the server when absent. */
  id?: string;
  /**
   * Run the input from a script the shell sources, however short it is (long
   * or multi-line input always is): quotes, backslashes and the like then
   * reach the shell as written, and input that does not parse fails as one
   * command instead of leaving the shell at a continuation prompt. Ignored
   * for a prompt to an agent.
   */
  stage?: boolean;
  /**
   * What the caller means the input for. Without it the session decides (a
   * prompt when an agent runs in it, else a command line). With it, a session
   * of the other kind is refused and nothing is typed: `shell` on a session
   * whose agent runs is 409 session_has_agent, `agent` on one with none (or
   * whose agent exited) is 409 no_agent. A retry of an existing await id is
   * answered whatever the session has become since.
   */
  expect?: 'shell' | 'agent';
}

/** The command an await is bound to. */
export interface AwaitedCommand {
  number: number;
  commandLine: string;
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
}

interface AwaitReplyBase {
  id: string;
  /** The session's id. */
  session: string;
  /** Where to collect it: /v1/awaits/:id */
  location: string;
}

export interface AwaitPending extends AwaitReplyBase {
  status: 'pending';
}

export interface AwaitDone extends AwaitReplyBase {
  status: 'done';
  exitCode: number | null;
  /** The command's output at its end mark; null when it had already scrolled out. */
  output: string | null;
  command: AwaitedCommand;
}

/** An await on a session with an agent: the prompt's turn, done. A failed turn is done too (outcome failed). */
export interface AwaitAgentDone extends AwaitReplyBase {
  status: 'done';
  agent: AgentAwaitResult;
}

/** 202 while pending, 200 when done; a failed await is an error answer (410) with `id` beside its code. */
export type AwaitReply = AwaitPending | AwaitDone | AwaitAgentDone;
