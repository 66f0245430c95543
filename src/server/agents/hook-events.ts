// The agents' hook events in tend's own words. Claude Code, Codex and Gemini
// CLI each name their events and fields their way (docs/agents.md has the
// sources); this file maps one payload onto the one thing tend learns from it,
// so the state machine (session-agent.ts) knows nothing of any agent's names.
import type { AgentKind } from '../../protocol/api/agents.js';

export type AgentHookEvent =
  /** The agent process started, resumed, or began a new conversation (/clear): its conversation id. */
  | { type: 'started'; conversationId: string | null; cwd: string | null; source: string | null }
  /** A person (or tend) submitted a prompt: a turn begins. */
  | { type: 'prompt'; prompt: string | null; turnId: string | null }
  /** A tool is about to run or has run: the turn goes on (and any permission question was answered). */
  | { type: 'tool'; toolName: string | null }
  /**
   * The agent asks a person before a tool runs. `late`: a notification that
   * comes seconds after the question (Claude's permission_prompt), which may
   * already be answered: believed only while the question shows on screen.
   */
  | { type: 'asks'; asking: string | null; late: boolean }
  /** A turn ended with an answer. */
  | { type: 'answered'; answer: string | null; turnId: string | null; backgroundTasks: number }
  /** A turn ended on an error (an API failure). */
  | { type: 'failed'; error: string; answer: string | null; turnId: string | null }
  /** The agent says it sits idle, waiting for a prompt (Claude's idle_prompt notification). */
  | { type: 'idle' }
  /** The agent process is ending. */
  | { type: 'ended'; reason: string | null };

export type Payload = Record<string, unknown>;

const str = (p: Payload, key: string): string | null => (typeof p[key] === 'string' ? (p[key] as string) : null);

/** The common fields: the conversation id and the directory, on every event of every agent. */
export function conversationOf(p: Payload): { conversationId: string | null; cwd: string | null } {
  return { conversationId: str(p, 'session_id'), cwd: str(p, 'cwd') };
}

/** What an event of `kind` tells tend, or null for an event tend does not use. */
export function readHookEvent(kind: AgentKind, event: string, p: Payload): AgentHookEvent | null {
  switch (event) {
    case 'SessionStart':
      return { type: 'started', ...conversationOf(p), source: str(p, 'source') };
    case 'UserPromptSubmit': // Claude, Codex
    case 'BeforeAgent': // Gemini
      return { type: 'prompt', prompt: str(p, 'prompt'), turnId: str(p, 'prompt_id') ?? str(p, 'turn_id') };
    case 'PreToolUse':
    case 'PostToolUse':
    case 'BeforeTool':
    case 'AfterTool':
      return { type: 'tool', toolName: str(p, 'tool_name') };
    case 'PermissionRequest':
      return { type: 'asks', asking: describeToolAsk(p), late: false };
    case 'Notification':
      return notification(kind, p);
    case 'Stop': // Claude, Codex
      return { type: 'answered', answer: str(p, 'last_assistant_message'), turnId: str(p, 'prompt_id') ?? str(p, 'turn_id'), backgroundTasks: runningBackgroundTasks(p) };
    case 'AfterAgent': // Gemini
      return { type: 'answered', answer: str(p, 'prompt_response'), turnId: null, backgroundTasks: 0 };
    case 'StopFailure': {
      const error = str(p, 'error') ?? 'unknown';
      const details = str(p, 'error_details');
      return { type: 'failed', error: details !== null && details !== '' ? `${error}: ${details}` : error, answer: str(p, 'last_assistant_message'), turnId: str(p, 'prompt_id') ?? str(p, 'turn_id') };
    }
    case 'SessionEnd':
      return { type: 'ended', reason: str(p, 'reason') };
    default:
      return null;
  }
}

function notification(kind: AgentKind, p: Payload): AgentHookEvent | null {
  const type = str(p, 'notification_type');
  const message = str(p, 'message');
  if (kind === 'gemini') {
    // Gemini's one notification: a tool waits for permission.
    return type === null || type === 'ToolPermission' ? { type: 'asks', asking: message, late: false } : null;
  }
  if (type === 'permission_prompt') return { type: 'asks', asking: message, late: true };
  if (type === 'idle_prompt') return { type: 'idle' };
  return null;
}

/** "Bash: rm -rf build", "Edit", or null: what a PermissionRequest asks about. */
function describeToolAsk(p: Payload): string | null {
  const tool = str(p, 'tool_name');
  const input = p.tool_input;
  const command = input !== null && typeof input === 'object' && typeof (input as Payload).command === 'string' ? ((input as Payload).command as string) : null;
  if (tool === null) return command;
  return command !== null ? `${tool}: ${command}` : tool;
}

/** Background tasks Claude's Stop reports as still going: such an agent is not idle enough to sleep. */
function runningBackgroundTasks(p: Payload): number {
  const tasks = p.background_tasks;
  if (!Array.isArray(tasks)) return 0;
  return tasks.filter((t) => {
    const status = t !== null && typeof t === 'object' ? (t as Payload).status : undefined;
    return status === undefined || status === 'running' || status === 'pending' || status === 'in_progress';
  }).length;
}
