// AI coding agents (Claude Code, Codex, Gemini CLI) in tend sessions, as the
// HTTP API, the viewer protocol's STATE frame and the page show them. The
// agent's own hooks report what it does (POST …/agent/events, sent by the
// hook client `tend-hook` or `tend hook`); the server keeps one AgentInfo per
// session that has shown an agent, and puts it to sleep and wakes it.

export type AgentKind = 'claude' | 'codex' | 'gemini';
export const AGENT_KINDS: readonly AgentKind[] = ['claude', 'codex', 'gemini'];

export function isAgentKind(value: unknown): value is AgentKind {
  return typeof value === 'string' && (AGENT_KINDS as readonly string[]).includes(value);
}

/**
 * starting: launched, its first hook (or prompt) not seen yet; idle: ready for
 * a prompt; busy: a turn runs; needs-permission: it asks a person before a
 * tool runs; sleeping: ended by tend to free its memory, its screen kept,
 * woken by input; waking: being restarted with its conversation; exited: it
 * ended (the session's shell may run on).
 */
export type AgentState = 'starting' | 'idle' | 'busy' | 'needs-permission' | 'sleeping' | 'waking' | 'exited';
export const AGENT_STATES: readonly AgentState[] = ['starting', 'idle', 'busy', 'needs-permission', 'sleeping', 'waking', 'exited'];

/** States in which a person is wanted: the page lists these first and notifies. */
export function agentWantsPerson(state: AgentState): boolean {
  return state === 'needs-permission';
}

/** How a turn ended: answered (Stop / AfterAgent), failed (StopFailure), interrupted (no Stop; the agent went idle). */
export type AgentTurnOutcome = 'running' | 'answered' | 'failed' | 'interrupted';

export interface AgentTurn {
  /** The agent's own id of the turn (Claude's prompt_id, Codex's turn_id) or tend's ("t" + a count). */
  id: string;
  /** The prompt as the agent reported it (UserPromptSubmit / BeforeAgent), else as tend typed it. */
  prompt: string | null;
  /** Unix milliseconds. */
  startedAt: number;
  endedAt: number | null;
  outcome: AgentTurnOutcome;
  /** The turn's final text (Stop's last_assistant_message, AfterAgent's prompt_response); null until it ends. */
  answer: string | null;
  /** A failed turn's error (StopFailure's error, with its details). */
  error: string | null;
}

export interface AgentInfo {
  kind: AgentKind;
  state: AgentState;
  /** Unix milliseconds the state began. */
  since: number;
  /** The agent's conversation id (its session_id): what resumes it. Null until known. */
  agentSessionId: string | null;
  /** The directory the agent runs in (its hooks' cwd): where it is resumed. */
  cwd: string | null;
  /** Whether a hook of this agent run has reached the server. */
  hooksSeen: boolean;
  /** Something a person should know (hooks that never fired, a wake that failed); absent when all is well. */
  warning?: string;
  /** While needs-permission: what it asks for (a tool name or the agent's message), when known. */
  asking: string | null;
  /** Background tasks the last Stop reported still running: the agent is not put to sleep while any run. */
  backgroundTasks: number;
  lastTurn: AgentTurn | null;
  /** Idle this long and it is put to sleep; null: never. */
  sleepAfterMs: number | null;
  /** tend started it (`tend agent`): it is resumed with tend's hooks passed again. */
  launchedByTend: boolean;
}

/** POST /v1/sessions (and split) with `agent`: start the agent in the session's shell. */
export interface AgentLaunchRequest {
  kind: AgentKind;
  /** Arguments for the agent after tend's own (its model, its prompt…). */
  args?: string[];
  /** Overrides the server's default (TEND_AGENT_SLEEP_MINUTES, config); 0: never. */
  sleepAfterMs?: number;
}

// POST /v1/sessions/:target/agent/events?agent=KIND&event=NAME
// The body is the agent's hook payload, as it gave it (JSON).
/** Payloads past this are read up to it and reported as `truncated` (the event still counts). */
export const MAX_AGENT_EVENT_BYTES = 1024 * 1024;
/** A hook event's name: the agent's own (Stop, AfterAgent, PermissionRequest…). */
export const AGENT_EVENT_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export interface AgentEventReply {
  /** Whether the event changed what tend knows (an event tend does not use is accepted and ignored). */
  used: boolean;
  agent: AgentInfo;
}

/** POST …/agent/sleep and …/agent/wake answer the agent as it is after the call started its work. */
export interface AgentActionReply {
  session: string;
  agent: AgentInfo;
}

/** The default idle time before an agent sleeps. */
export const DEFAULT_AGENT_SLEEP_AFTER_MS = 30 * 60 * 1000;

// `tend await` on a session with an agent: the turn's answer.
export interface AgentAwaitResult {
  answer: string | null;
  outcome: Exclude<AgentTurnOutcome, 'running'>;
  /** A failed turn's error. */
  error: string | null;
  /** Where the answer came from: the hook payload, or the screen from the prompt down. */
  answerFrom: 'hook' | 'screen' | null;
  agentSessionId: string | null;
  turnId: string;
  durationMs: number;
  state: AgentState;
}
