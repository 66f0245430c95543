// Whether tend's hooks are in an agent's settings, read without changing
// anything: which of the agent's events have this tend's handler, which
// lack it, which handlers point at another tend's hook client (a moved or
// removed checkout), and what else stops the hooks from running (keys Codex
// refuses at the root of its hooks.json, Gemini's tools.enableHooks).
import { AGENT_FLAVOURS, hookCommand } from '../../common/agents/catalogue.js';
import { documentOf, geminiToolsOf, runsThisTendsClient, viewOf, type ChangeTarget, type EnableHooksSetting } from './hook-changes.js';
import { keysCodexRefuses } from './hook-entries.js';

export type InstallState = 'installed' | 'partly' | 'not-installed';

export interface HooksStatus {
  state: InstallState;
  /** Events with this tend's handler. */
  installed: string[];
  /** The agent's events without it. */
  missing: string[];
  /** tend handlers that run another hook client than this tend's. */
  stale: Array<{ event: string; command: string }>;
  /** Root keys of a Codex hooks.json that make Codex refuse the file. */
  refusedKeys: string[];
  /** Gemini's tools.enableHooks (null for the other agents). */
  enableHooks: EnableHooksSetting | null;
}

/** The status of a settings text (null: no file). Throws JsonTextError or SettingsShapeError. */
export function readHooksStatus(text: string | null, target: ChangeTarget): HooksStatus {
  const events = AGENT_FLAVOURS[target.kind].hookEvents;
  const enableHooksOfNoFile = target.kind === 'gemini' ? 'absent' : null;
  if (text === null || text.trim() === '') {
    return { state: 'not-installed', installed: [], missing: [...events], stale: [], refusedKeys: [], enableHooks: enableHooksOfNoFile };
  }
  const view = viewOf(documentOf(text, target), target);
  const current = (event: string) => hookCommand(target.hookClientPath, target.kind, event);
  const installed = events.filter((event) => view.tendHandlers.some((h) => h.event === event && h.command === current(event)));
  const stale = view.tendHandlers.filter((h) => !runsThisTendsClient(h.command, target)).map((h) => ({ event: h.event, command: h.command }));
  return {
    state: installed.length === events.length ? 'installed' : installed.length > 0 ? 'partly' : 'not-installed',
    installed,
    missing: events.filter((event) => !installed.includes(event)),
    stale,
    refusedKeys: keysCodexRefuses(target.kind, view),
    enableHooks: target.kind === 'gemini' ? geminiToolsOf(view, target).enableHooks : null,
  };
}
