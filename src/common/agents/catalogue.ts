// What tend knows of each agent CLI: its program, the hook events tend
// listens to, where its user settings keep hooks, how it is started with a
// conversation id tend chose and resumed with one, how it asks a person for
// permission on screen, and how it ends its own way. Sources for every fact
// are in docs/agents.md; formats are the agents' own, never guessed.
import type { AgentKind } from '../../protocol/api/agents.js';

export interface AgentFlavour {
  kind: AgentKind;
  /** The program's name on PATH. */
  program: string;
  /** A person's name for it. */
  title: string;
  /** The hook events tend registers, in the agent's own names. */
  hookEvents: readonly string[];
  /** The unit of a hook handler's `timeout` in the agent's settings (Claude and Codex: seconds; Gemini: ms). */
  hookTimeout: number;
  /**
   * Arguments that start a new conversation. `settingsFile` is tend's hook
   * settings for this run where the agent takes them per run (Claude's
   * --settings); `conversationId` a fresh id where the agent lets the
   * launcher choose it (Claude's --session-id); else null.
   */
  launchArgs(opts: { settingsFile: string | null; conversationId: string | null; args: readonly string[] }): string[];
  /** Arguments that resume conversation `id` (tend's hooks passed again where the agent takes them per run). */
  resumeArgs(opts: { settingsFile: string | null; id: string }): string[];
  /** Whether tend can pass its hooks for one run (else they must be installed: `tend hooks install`). */
  takesSettingsPerRun: boolean;
  /** Whether the launcher may choose the conversation id up front. */
  takesConversationId: boolean;
  /**
   * Text of the agent's on-screen permission question (checked on the last
   * rows): while one shows, a tool hook does not end needs-permission.
   */
  permissionPrompt: RegExp;
  /** Text the agent shows when a turn is interrupted (Esc, Ctrl-C): no Stop hook fires then. */
  interruptedMark: RegExp;
}

/** Claude Code: hooks per run with --settings (merged with the user's by Claude itself), id chosen with --session-id. */
const claude: AgentFlavour = {
  kind: 'claude',
  program: 'claude',
  title: 'Claude Code',
  hookEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PermissionRequest', 'Notification', 'Stop', 'StopFailure', 'SessionEnd'],
  hookTimeout: 1,
  launchArgs: ({ settingsFile, conversationId, args }) => [
    ...(settingsFile !== null ? ['--settings', settingsFile] : []),
    ...(conversationId !== null ? ['--session-id', conversationId] : []),
    ...args,
  ],
  // --settings is not kept across a resume: pass it again.
  resumeArgs: ({ settingsFile, id }) => ['--resume', id, ...(settingsFile !== null ? ['--settings', settingsFile] : [])],
  takesSettingsPerRun: true,
  takesConversationId: true,
  permissionPrompt: /Do you want to (proceed|make this edit|create|allow|run)|Would you like to proceed/,
  interruptedMark: /Interrupted by user|Interrupted · What should Claude do instead/,
};

/** Codex CLI: hooks only from its config layers (~/.codex/hooks.json), each trusted in its /hooks screen first. */
const codex: AgentFlavour = {
  kind: 'codex',
  program: 'codex',
  title: 'Codex',
  hookEvents: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'StopFailure'],
  hookTimeout: 1,
  launchArgs: ({ args }) => [...args],
  resumeArgs: ({ id }) => ['resume', id],
  takesSettingsPerRun: false,
  takesConversationId: false,
  permissionPrompt: /Would you like to (run|make|apply)|Allow command\?|Approve (this|the) /,
  interruptedMark: /Conversation interrupted|Interrupted by user/,
};

/** Gemini CLI: hooks only from its settings files (~/.gemini/settings.json), with hooks enabled there. */
const gemini: AgentFlavour = {
  kind: 'gemini',
  program: 'gemini',
  title: 'Gemini CLI',
  hookEvents: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'Notification', 'AfterAgent', 'SessionEnd'],
  hookTimeout: 1000,
  launchArgs: ({ args }) => [...args],
  resumeArgs: ({ id }) => ['--resume', id],
  takesSettingsPerRun: false,
  takesConversationId: false,
  permissionPrompt: /Allow execution of|Apply this change\?|Action Required/,
  interruptedMark: /Request cancelled|Interrupted by user/,
};

export const AGENT_FLAVOURS: Readonly<Record<AgentKind, AgentFlavour>> = { claude, codex, gemini };

/** Seconds (or ms, per hookTimeout) tend's hook handlers may take: the client itself gives up far sooner. */
export const HOOK_TIMEOUT_SECONDS = 10;

/**
 * The command line a hook entry runs: the hook client (a small native
 * program beside the holder, see holder/hook-client.c), the agent kind, the
 * event. The path is quoted for sh, which every agent runs `command` with.
 */
export function hookCommand(hookClientPath: string, kind: AgentKind, event: string): string {
  return `${shQuote(hookClientPath)} ${kind} ${event}`;
}

/** Whether a hook handler's command is one of tend's (any path to the hook client). */
export function isTendHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|[/'"\s])tend-hook['"]? (claude|codex|gemini) [A-Za-z]/.test(command);
}

/** The `hooks` object tend adds to an agent's settings: each event → one matcher group with tend's handler. */
export function tendHooksSettings(hookClientPath: string, kind: AgentKind): Record<string, Array<{ hooks: Array<{ type: 'command'; command: string; timeout: number }> }>> {
  const flavour = AGENT_FLAVOURS[kind];
  const hooks: Record<string, Array<{ hooks: Array<{ type: 'command'; command: string; timeout: number }> }>> = {};
  for (const event of flavour.hookEvents) {
    hooks[event] = [{ hooks: [{ type: 'command', command: hookCommand(hookClientPath, kind, event), timeout: HOOK_TIMEOUT_SECONDS * flavour.hookTimeout }] }];
  }
  return hooks;
}

export function shQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
