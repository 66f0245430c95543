// The JSON each agent writes on a hook's stdin: flat objects, the agent's
// common fields beside the event's own.
// * Claude Code: session_id, transcript_path, cwd, permission_mode,
//   hook_event_name, and prompt_id on events inside a turn.
// * Codex: session_id, turn_id (inside a turn), transcript_path (nullable,
//   null here), cwd, model, permission_mode, hook_event_name.
// * Gemini CLI: session_id, transcript_path, cwd, hook_event_name, timestamp.
import type { FakeFlavour } from './flavours.js';

export interface SessionFacts {
  sessionId: string;
  transcriptPath: string;
  cwd: string;
}

export interface TurnFacts {
  /** Claude's prompt_id, Codex's turn_id. */
  id: string;
  prompt: string;
  toolUseId: string;
}

export interface BackgroundTask {
  id: string;
  type: string;
  status: string;
  description: string;
  command: string;
}

export type MomentFacts =
  | { moment: 'sessionStart'; source: 'startup' | 'resume' }
  | { moment: 'promptSubmit' }
  | { moment: 'preTool' }
  | { moment: 'permissionRequest' }
  | { moment: 'permissionNotice'; message: string }
  | { moment: 'postTool'; output: string }
  | { moment: 'stop'; answer: string; backgroundTasks: BackgroundTask[] }
  | { moment: 'stopFailure'; error: string; details: string; message: string }
  | { moment: 'sessionEnd'; reason: string };

export interface HookCall {
  event: string;
  /** What the event's matchers are checked against; null for events without matchers. */
  subject: string | null;
  payload: Record<string, unknown>;
}

/** Codex reports the model in every payload. */
const CODEX_MODEL = 'fake-codex-model';

/** The hook call for this moment, or null when this agent has no event for it. */
export function hookCall(flavour: FakeFlavour, session: SessionFacts, turn: TurnFacts | null, facts: MomentFacts): HookCall | null {
  const event = flavour.events[facts.moment];
  if (event === undefined) return null;
  const payload = { ...commonFields(flavour, session, turn, event), ...eventFields(flavour, turn, facts) };
  return { event, subject: matcherSubject(flavour, facts), payload };
}

function commonFields(flavour: FakeFlavour, session: SessionFacts, turn: TurnFacts | null, event: string): Record<string, unknown> {
  switch (flavour.kind) {
    case 'claude':
      return {
        session_id: session.sessionId,
        transcript_path: session.transcriptPath,
        cwd: session.cwd,
        permission_mode: 'default',
        hook_event_name: event,
        ...(turn !== null ? { prompt_id: turn.id } : {}),
      };
    case 'codex':
      return {
        session_id: session.sessionId,
        ...(turn !== null ? { turn_id: turn.id } : {}),
        transcript_path: null,
        cwd: session.cwd,
        model: CODEX_MODEL,
        permission_mode: 'default',
        hook_event_name: event,
      };
    case 'gemini':
      return {
        session_id: session.sessionId,
        transcript_path: session.transcriptPath,
        cwd: session.cwd,
        hook_event_name: event,
        timestamp: new Date().toISOString(),
      };
  }
}

function eventFields(flavour: FakeFlavour, turn: TurnFacts | null, facts: MomentFacts): Record<string, unknown> {
  const tool = { tool_name: flavour.tool.name, tool_input: { ...flavour.tool.input } };
  const gemini = flavour.kind === 'gemini';
  const toolUseId = turn !== null && !gemini ? { tool_use_id: turn.toolUseId } : {};
  switch (facts.moment) {
    case 'sessionStart':
      return { source: facts.source };
    case 'promptSubmit':
      return { prompt: turn?.prompt ?? '' };
    case 'preTool':
      return { ...tool, ...toolUseId };
    case 'permissionRequest':
      return flavour.kind === 'claude' ? { ...tool, permission_suggestions: [] } : tool;
    case 'permissionNotice':
      return gemini
        ? { notification_type: 'ToolPermission', message: facts.message, details: { ...tool } }
        : { message: facts.message, notification_type: 'permission_prompt' };
    case 'postTool': {
      const response = gemini ? { llmContent: facts.output, returnDisplay: facts.output } : flavour.kind === 'claude' ? { stdout: facts.output, stderr: '', interrupted: false } : facts.output;
      return { ...tool, tool_response: response, ...toolUseId };
    }
    case 'stop':
      if (gemini) return { prompt: turn?.prompt ?? '', prompt_response: facts.answer, stop_hook_active: false };
      if (flavour.kind === 'codex') return { stop_hook_active: false, last_assistant_message: facts.answer };
      return { stop_hook_active: false, last_assistant_message: facts.answer, background_tasks: facts.backgroundTasks, session_crons: [] };
    case 'stopFailure':
      return { error: facts.error, error_details: facts.details, last_assistant_message: facts.message };
    case 'sessionEnd':
      return { reason: facts.reason };
  }
}

function matcherSubject(flavour: FakeFlavour, facts: MomentFacts): string | null {
  switch (facts.moment) {
    case 'preTool':
    case 'permissionRequest':
    case 'postTool':
      return flavour.tool.name;
    case 'sessionStart':
      return facts.source;
    case 'sessionEnd':
      return facts.reason;
    case 'permissionNotice':
      return flavour.kind === 'gemini' ? 'ToolPermission' : 'permission_prompt';
    case 'stopFailure':
      return facts.error;
    default:
      return null;
  }
}

