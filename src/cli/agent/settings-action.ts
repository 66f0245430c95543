// `tend hooks …` and `tend mcp …` share one shape: install or uninstall
// something of tend's in one agent's own settings, or say for each agent
// whether it is there. This is that shape (which agents, --print and --json,
// where the notes go); each verb brings its own reading, writing and words.
import { printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { nearest } from '../../common/nearest.js';
import { AGENT_KINDS, isAgentKind, type AgentKind } from '../../protocol/api/agents.js';

export const SETTINGS_ACTIONS = ['install', 'uninstall', 'status'] as const;
export type SettingsAction = (typeof SETTINGS_ACTIONS)[number];

export function isSettingsAction(word: string): word is SettingsAction {
  return (SETTINGS_ACTIONS as readonly string[]).includes(word);
}

/** An agent named on the command line; a usage error with the nearest names otherwise. */
export function agentKindNamed(name: string): AgentKind {
  if (isAgentKind(name)) return name;
  const close = nearest(name, AGENT_KINDS);
  throw usageError(`no agent "${name}"${close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : ''}; tend knows claude, codex and gemini`, { candidates: close });
}

export interface SettingsVerb<Status extends { error?: string }, Change extends { notes: string[] }> {
  /** The verb, for the usage line: `tend hooks`, `tend mcp`. */
  verb: string;
  status(kind: AgentKind): Status;
  change(action: Exclude<SettingsAction, 'status'>, kind: AgentKind, print: boolean): Change;
  statusText(status: Status): string;
  changeText(change: Change): string;
}

export interface SettingsRequest {
  action: SettingsAction;
  names: readonly string[];
  print: boolean;
  json: boolean;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** Runs the action and says its result; returns the exit status. */
export function runSettingsAction<Status extends { error?: string }, Change extends { notes: string[] }>(request: SettingsRequest, verb: SettingsVerb<Status, Change>): number {
  const { action, print, json, stdout, stderr } = request;
  const kinds = request.names.map(agentKindNamed);
  if (action === 'status') {
    if (print) throw usageError('--print shows what install or uninstall would change; status changes nothing');
    const results = (kinds.length > 0 ? kinds : [...AGENT_KINDS]).map((kind) => verb.status(kind));
    if (json) printJson(stdout, results);
    else stdout.write(results.map((r) => verb.statusText(r)).join(''));
    return results.some((r) => r.error !== undefined) ? EXIT.failed : EXIT.ok;
  }
  if (kinds.length !== 1) throw usageError(`${action} takes one agent: claude, codex or gemini (given ${kinds.length})`, { usage: `${verb.verb} ${action} claude|codex|gemini [--print] [--json]` });
  const result = verb.change(action, kinds[0]!, print);
  if (json) {
    printJson(stdout, result);
    return EXIT.ok;
  }
  stdout.write(verb.changeText(result));
  // Beside a printed diff the notes go to stderr, so the diff alone can be kept (> change.diff).
  (print ? stderr : stdout).write(result.notes.map((n) => `note: ${n}\n`).join(''));
  return EXIT.ok;
}
