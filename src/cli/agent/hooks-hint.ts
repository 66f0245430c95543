// Before tend starts Codex or Gemini CLI: are tend's hooks in the agent's own
// settings? Those two read hooks only from their settings files (Claude Code
// takes tend's for one run, with --settings), so without `tend hooks install`
// tend never learns the agent's state. Read only; a file tend cannot read
// is said as such, never guessed either way.
import { existsSync, readFileSync } from 'node:fs';
import { AGENT_FLAVOURS, isTendHookCommand } from '../../common/agents/catalogue.js';
import type { AgentKind } from '../../protocol/api/index.js';
import { agentSettingsFile } from '../hooks/settings-location.js';

type HooksFound = 'installed' | 'missing' | 'unreadable';

/** Whether any handler in the settings' `hooks` is one of tend's. */
function tendHooksIn(settings: unknown): boolean {
  if (settings === null || typeof settings !== 'object') return false;
  const hooks = (settings as { hooks?: unknown }).hooks;
  if (hooks === null || typeof hooks !== 'object') return false;
  return Object.values(hooks).some((groups) => Array.isArray(groups) && groups.some((group) => {
    const handlers = (group as { hooks?: unknown } | null)?.hooks;
    return Array.isArray(handlers) && handlers.some((h) => isTendHookCommand((h as { command?: unknown } | null)?.command));
  }));
}

function geminiHooksEnabled(settings: unknown): boolean {
  const tools = (settings as { tools?: { enableHooks?: unknown } } | null)?.tools;
  return tools?.enableHooks === true;
}

function readSettings(file: string): { found: HooksFound; settings: unknown } {
  if (!existsSync(file)) return { found: 'missing', settings: null };
  try {
    const settings: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return { found: tendHooksIn(settings) ? 'installed' : 'missing', settings };
  } catch {
    return { found: 'unreadable', settings: null };
  }
}

/**
 * One line for stderr when the agent will run without tend's hooks (so its
 * state will not show), saying what to run; null when they are there, or
 * when the agent takes them per run.
 */
export function agentHooksHint(kind: AgentKind, env: NodeJS.ProcessEnv): string | null {
  const flavour = AGENT_FLAVOURS[kind];
  if (flavour.takesSettingsPerRun) return null;
  const file = agentSettingsFile(kind, env);
  const install = `\`tend hooks install ${kind}\``;
  const trust = kind === 'codex' ? ", then trust them in Codex's /hooks screen" : '';
  const { found, settings } = readSettings(file);
  if (found === 'unreadable') return `could not read ${file} to see whether tend's hooks are there; without them tend cannot tell ${flavour.title}'s state (${install}${trust})`;
  if (found === 'missing') return `tend's hooks are not in ${file}, so tend cannot tell ${flavour.title}'s state: run ${install}${trust}`;
  if (kind === 'gemini' && !geminiHooksEnabled(settings)) return `hooks are off in ${file} ("tools": {"enableHooks": true} turns them on): run ${install}`;
  return null;
}
