// How each real agent CLI differs in what tend depends on: the names of its
// hook events, the unit of a hook's timeout, the variable its hooks get the
// session id in, the tool a permission is asked for, and the words on its
// screen (the permission question, the interrupted mark, the exit hint).
// Formats follow the agents' own documentation, never guesses; the screen
// words are ones tend's agent catalogue (src/common/agents/catalogue.ts) knows.
import type { AgentKind } from '../../../src/protocol/api/agents.js';

/** The moments of a session the fake agent reports, named the same for every flavour. */
export type AgentMoment =
  | 'sessionStart'
  | 'promptSubmit'
  | 'preTool'
  | 'permissionRequest'
  | 'permissionNotice'
  | 'postTool'
  | 'stop'
  | 'stopFailure'
  | 'sessionEnd';

export interface FakeFlavour {
  kind: AgentKind;
  title: string;
  /** Each moment's hook event in the agent's own name; a moment it has no event for is absent. */
  events: Partial<Record<AgentMoment, string>>;
  /** Milliseconds in one unit of a handler's `timeout` (Claude and Codex: seconds; Gemini: ms). */
  timeoutUnitMs: number;
  /** A handler with no `timeout` is given this long. */
  defaultTimeoutMs: number;
  /** The variable a hook finds the session id in, beside the payload's session_id. */
  sessionIdVariable: string | null;
  /** The tool a prompt asking for permission wants to run. */
  tool: { name: string; input: Record<string, string> };
  /** Whether the permission notice (Notification) waits a while after the question shows (Claude) or comes at once (Gemini). */
  noticeDelayed: boolean;
  /** Whether SessionEnd hooks are waited for (within a budget) before the agent exits; Gemini does not wait. */
  waitsForSessionEnd: boolean;
  /** SessionEnd's reason when a person exits at the prompt, and when the agent is ended by a signal. */
  endReasons: { promptExit: string; signal: string };
  look: {
    banner: (sessionId: string) => string;
    promptMark: string;
    continuation: string;
    answerMark: string;
    interrupted: string;
    /** The permission question's rows, ending in the two numbered choices. */
    permission: (command: string) => string[];
    exitHint: string;
    failure: string;
    /** Printed on the way out (Codex says how to resume). */
    farewell: (sessionId: string) => string | null;
    unknownConversation: (id: string) => string;
  };
}

const claude: FakeFlavour = {
  kind: 'claude',
  title: 'Claude Code',
  events: {
    sessionStart: 'SessionStart',
    promptSubmit: 'UserPromptSubmit',
    preTool: 'PreToolUse',
    permissionRequest: 'PermissionRequest',
    permissionNotice: 'Notification',
    postTool: 'PostToolUse',
    stop: 'Stop',
    stopFailure: 'StopFailure',
    sessionEnd: 'SessionEnd',
  },
  timeoutUnitMs: 1000,
  defaultTimeoutMs: 600_000,
  sessionIdVariable: 'CLAUDE_CODE_SESSION_ID',
  tool: { name: 'Bash', input: { command: 'ls', description: 'List files' } },
  noticeDelayed: true,
  waitsForSessionEnd: true,
  endReasons: { promptExit: 'prompt_input_exit', signal: 'other' },
  look: {
    banner: (id) => `✻ Fake Claude Code · session ${id}`,
    promptMark: '> ',
    continuation: '  ',
    answerMark: '⏺ ',
    interrupted: '  ⎿  Interrupted by user',
    permission: (command) => [' Bash command', `   ${command}`, ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No'],
    exitHint: 'Press Ctrl-C again to exit',
    failure: 'API Error: 429 rate_limit_error: This request would exceed your rate limit (fake agent)',
    farewell: () => null,
    unknownConversation: (id) => `No conversation found with session ID: ${id}`,
  },
};

const codex: FakeFlavour = {
  kind: 'codex',
  title: 'Codex',
  events: {
    sessionStart: 'SessionStart',
    promptSubmit: 'UserPromptSubmit',
    preTool: 'PreToolUse',
    permissionRequest: 'PermissionRequest',
    postTool: 'PostToolUse',
    stop: 'Stop',
    stopFailure: 'StopFailure',
  },
  timeoutUnitMs: 1000,
  defaultTimeoutMs: 600_000,
  sessionIdVariable: null,
  tool: { name: 'Bash', input: { command: 'ls' } },
  noticeDelayed: false,
  waitsForSessionEnd: false,
  endReasons: { promptExit: 'prompt_input_exit', signal: 'other' },
  look: {
    banner: (id) => `>_ Fake Codex · session ${id}`,
    promptMark: '› ',
    continuation: '  ',
    answerMark: '• ',
    interrupted: '■ Conversation interrupted - tell the model what to do differently.',
    permission: (command) => ['Would you like to run the following command?', `  $ ${command}`, '› 1. Yes, proceed', '  2. No, and tell Codex what to do differently'],
    exitHint: 'Press Ctrl+C again to quit',
    failure: 'stream error: exceeded retry limit, last status: 429 Too Many Requests (fake agent)',
    farewell: (id) => `To continue this session, run codex resume ${id}`,
    unknownConversation: (id) => `No saved session found with ID ${id}.`,
  },
};

const gemini: FakeFlavour = {
  kind: 'gemini',
  title: 'Gemini CLI',
  events: {
    sessionStart: 'SessionStart',
    promptSubmit: 'BeforeAgent',
    preTool: 'BeforeTool',
    permissionNotice: 'Notification',
    postTool: 'AfterTool',
    stop: 'AfterAgent',
    sessionEnd: 'SessionEnd',
  },
  timeoutUnitMs: 1,
  defaultTimeoutMs: 60_000,
  sessionIdVariable: 'GEMINI_SESSION_ID',
  tool: { name: 'run_shell_command', input: { command: 'ls' } },
  noticeDelayed: false,
  waitsForSessionEnd: false,
  endReasons: { promptExit: 'exit', signal: 'exit' },
  look: {
    banner: (id) => `✦ Fake Gemini CLI · session ${id}`,
    promptMark: '> ',
    continuation: '  ',
    answerMark: '✦ ',
    interrupted: 'Request cancelled.',
    permission: (command) => [`Allow execution of: '${command}'?`, '● 1. Allow once', '  2. No, suggest changes (esc)'],
    exitHint: 'Press Ctrl+C again to exit.',
    failure: '✕ [API Error: You exceeded your current quota (429 RESOURCE_EXHAUSTED, fake agent)]',
    farewell: () => null,
    unknownConversation: (id) => `Error resuming session: no session found with ID ${id}`,
  },
};

export const FAKE_FLAVOURS: Readonly<Record<AgentKind, FakeFlavour>> = { claude, codex, gemini };
