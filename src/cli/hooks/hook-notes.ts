// What a person must know besides what changed: the things outside the file
// that decide whether tend's hooks run. Codex runs a hook only once it is
// trusted in its /hooks screen (and a moved hook client is a new hook);
// Gemini CLI runs hooks only with tools.enableHooks; and no agent can run a
// hook client that is not there.
import { existsSync } from 'node:fs';
import type { AgentKind } from '../../protocol/api/agents.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import type { EnableHooksSetting } from './hook-changes.js';

export function codexTrustNote(kind: AgentKind, action: 'install' | 'status'): string[] {
  if (kind !== 'codex') return [];
  if (action === 'status') return ["new or changed hooks run only after they are trusted in Codex's /hooks screen (run `codex`, type /hooks)"];
  return [
    "Codex runs a new or changed hook only after it is trusted: run `codex`, type /hooks, and trust tend's hooks there.",
    "Moving tend's checkout changes the hooks' path: then run `tend hooks install codex` again and trust them again.",
  ];
}

export function hookClientNote(hookClientPath: string): string[] {
  if (existsSync(hookClientPath)) return [];
  return [`the hook client ${hookClientPath} is not there (building tend, npm install, makes it beside the holder): until it is, the agent's hooks fail`];
}

/** Gemini's tools.enableHooks as a person reads it, for status. */
export function geminiSwitchNote(setting: EnableHooksSetting | null, file: string): string[] {
  if (setting === null) return [];
  if (setting === true) return ['hooks are enabled (tools.enableHooks is true)'];
  if (setting === 'absent') return [`hooks are not enabled: ${file} does not set tools.enableHooks (tend hooks install gemini sets it)`];
  return [`hooks are not enabled: tools.enableHooks is ${setting === false ? 'false' : 'not true'} in ${file}, so Gemini CLI runs no hooks`];
}

/** What install says of a tools.enableHooks it left alone because its owner set it otherwise. */
export function geminiLeftOffNote(file: string): string[] {
  return [`tools.enableHooks is not true in ${file}, so Gemini CLI runs no hooks, tend's included; tend leaves your setting: set it to true to use them`];
}

/** The hook client paths in tend's hook commands (`PATH kind Event`), each once. */
export function hookClientsOf(commands: readonly string[]): string[] {
  return [...new Set(commands.map((c) => c.replace(/ (claude|codex|gemini) [A-Za-z]+$/, '')))];
}

/** What status says of handlers that run another tend's hook client. */
export function staleNote(kind: AgentKind, commands: readonly string[]): string[] {
  if (commands.length === 0) return [];
  return [`tend's handlers here run another hook client (${hookClientsOf(commands).join(', ')}), not this tend's: \`tend hooks install ${kind}\` points them at this one`];
}

/** For an agent tend can hand its hooks per run: without them installed, only agents tend starts report. */
export function perRunNote(kind: AgentKind, installed: boolean): string[] {
  if (installed || !AGENT_FLAVOURS[kind].takesSettingsPerRun) return [];
  return [`\`tend agent ${kind}\` passes tend's hooks to the ${AGENT_FLAVOURS[kind].title} it starts without them; a ${kind} you start yourself reports to tend only with them installed`];
}
