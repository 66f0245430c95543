// Where each agent finds its hooks, read the agent's own way:
// * Claude Code: the user's settings ($CLAUDE_CONFIG_DIR/settings.json, else
//   ~/.claude/settings.json), the project's .claude/settings.json and
//   .claude/settings.local.json under its cwd, and --settings (a file or inline
//   JSON). Lists merge across files; a user's "disableAllHooks" silences all.
// * Codex: $CODEX_HOME/hooks.json, else ~/.codex/hooks.json, whose root holds
//   only "description" and "hooks"; hooks run only once trusted in Codex's
//   /hooks screen, which the fake stands in for with FAKE_CODEX_TRUST_HOOKS=1.
// * Gemini CLI: ~/.gemini/settings.json and <cwd>/.gemini/settings.json, only
//   when "tools": {"enableHooks": true} is set there (the project's word wins).
// All share one shape: {"hooks": {EVENT: [{"matcher", "hooks": [{"type":
// "command", "command", "timeout"}]}]}}; an identical handler in several
// places runs once (see hook-runner.ts).
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentKind } from '../../../src/protocol/api/agents.js';
import { FAKE_FLAVOURS } from './flavours.js';

export interface HookHandler {
  event: string;
  /** The group's matcher; null (or "", "*") matches everything. */
  matcher: string | null;
  command: string;
  /** Handlers with the same key are one: when several match an event, it runs once. */
  identity: string;
  timeoutMs: number;
  /** Whether the settings gave a timeout (Claude's SessionEnd budget grows only to those). */
  timeoutGiven: boolean;
}

export interface HookSettings {
  handlers: HookHandler[];
  /** Files the agent could not use, said on its screen as the real ones do. */
  warnings: string[];
}

export interface HookSources {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Claude's --settings value: a file path or inline JSON; null when not given. */
  settingsArg: string | null;
}

/** Thrown for a --settings value the agent refuses to start with. */
export class SettingsError extends Error {}

/** Codex refuses a hooks.json whose root holds anything else. */
const CODEX_HOOKS_ROOT_KEYS = new Set(['description', 'hooks']);

export function loadHookSettings(kind: AgentKind, sources: HookSources): HookSettings {
  switch (kind) {
    case 'claude':
      return claudeHooks(sources);
    case 'codex':
      return codexHooks(sources);
    case 'gemini':
      return geminiHooks(sources);
  }
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

function claudeHooks({ env, cwd, settingsArg }: HookSources): HookSettings {
  const warnings: string[] = [];
  const configDir = env.CLAUDE_CONFIG_DIR || join(homeOf(env), '.claude');
  const files = [join(configDir, 'settings.json'), join(cwd, '.claude', 'settings.json'), join(cwd, '.claude', 'settings.local.json')];
  const documents: unknown[] = readSettingsFiles(files, warnings);
  if (settingsArg !== null) documents.push(readSettingsArg(settingsArg, cwd));
  if (documents.some((d) => isObject(d) && d.disableAllHooks === true)) return { handlers: [], warnings };
  return { handlers: mergeHandlers(documents, 'claude', warnings), warnings };
}

function codexHooks({ env }: HookSources): HookSettings {
  const warnings: string[] = [];
  const codexHome = env.CODEX_HOME || join(homeOf(env), '.codex');
  const file = join(codexHome, 'hooks.json');
  const documents = readSettingsFiles([file], warnings).filter((doc) => {
    const unknown = isObject(doc) ? Object.keys(doc).filter((k) => !CODEX_HOOKS_ROOT_KEYS.has(k)) : ['(not an object)'];
    if (unknown.length > 0) warnings.push(`${file}: unknown field ${unknown.join(', ')}; its hooks are ignored`);
    return unknown.length === 0;
  });
  // The trust gate: an untrusted hook fails silently, as in Codex.
  if (env.FAKE_CODEX_TRUST_HOOKS !== '1') return { handlers: [], warnings };
  return { handlers: mergeHandlers(documents, 'codex', warnings), warnings };
}

function geminiHooks({ env, cwd }: HookSources): HookSettings {
  const warnings: string[] = [];
  const user = readSettingsFiles([join(homeOf(env), '.gemini', 'settings.json')], warnings);
  const project = readSettingsFiles([join(cwd, '.gemini', 'settings.json')], warnings);
  const enabledIn = (docs: unknown[]) => {
    const tools = docs.length > 0 && isObject(docs[0]) ? docs[0].tools : undefined;
    return isObject(tools) && typeof tools.enableHooks === 'boolean' ? tools.enableHooks : undefined;
  };
  const enabled = enabledIn(project) ?? enabledIn(user) ?? false;
  if (!enabled) return { handlers: [], warnings };
  return { handlers: mergeHandlers([...user, ...project], 'gemini', warnings), warnings };
}

/** The parsed files that exist, each real file once (the project may be the home directory). */
function readSettingsFiles(files: string[], warnings: string[]): unknown[] {
  const seen = new Set<string>();
  const documents: unknown[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    const real = realpathSync(file);
    if (seen.has(real)) continue;
    seen.add(real);
    try {
      documents.push(JSON.parse(readFileSync(file, 'utf8')));
    } catch (err) {
      warnings.push(`${file}: not valid JSON (${(err as Error).message}); its settings are ignored`);
    }
  }
  return documents;
}

function readSettingsArg(value: string, cwd: string): unknown {
  if (value.trim().startsWith('{')) {
    try {
      return JSON.parse(value);
    } catch (err) {
      throw new SettingsError(`Error: Invalid JSON provided to --settings: ${(err as Error).message}`);
    }
  }
  const file = resolve(cwd, value);
  if (!existsSync(file)) throw new SettingsError(`Error: Settings file not found: ${file}`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SettingsError(`Error: Invalid JSON in settings file ${file}: ${(err as Error).message}`);
  }
}

function mergeHandlers(documents: unknown[], kind: AgentKind, warnings: string[]): HookHandler[] {
  const flavour = FAKE_FLAVOURS[kind];
  const handlers: HookHandler[] = [];
  for (const doc of documents) {
    if (!isObject(doc) || doc.hooks === undefined) continue;
    if (!isObject(doc.hooks)) {
      warnings.push('"hooks" is not an object; ignored');
      continue;
    }
    for (const [event, groups] of Object.entries(doc.hooks)) {
      if (!Array.isArray(groups)) {
        warnings.push(`hooks.${event} is not a list of matcher groups; ignored`);
        continue;
      }
      for (const group of groups) {
        if (!isObject(group) || !Array.isArray(group.hooks)) continue;
        const matcher = typeof group.matcher === 'string' ? group.matcher : null;
        for (const handler of group.hooks) {
          if (!isObject(handler) || handler.type !== 'command' || typeof handler.command !== 'string') continue;
          // Gemini tells duplicates by name and command; the others by command.
          const name = kind === 'gemini' && typeof handler.name === 'string' ? handler.name : '';
          const timeoutGiven = typeof handler.timeout === 'number' && handler.timeout > 0;
          handlers.push({
            event,
            matcher,
            command: handler.command,
            identity: `${name}\0${handler.command}`,
            timeoutMs: timeoutGiven ? (handler.timeout as number) * flavour.timeoutUnitMs : flavour.defaultTimeoutMs,
            timeoutGiven,
          });
        }
      }
    }
  }
  return handlers;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
