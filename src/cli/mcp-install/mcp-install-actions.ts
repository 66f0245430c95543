// `tend mcp install|uninstall|status` as data: each reads the agent's MCP
// configuration, works out the change (or the state of tend's entry), and
// for a change writes it (hooks/settings-file.ts: atomically, a backup
// before tend's first change, refused when the file changed meanwhile),
// unless only asked to show it. Errors come back as CliError, the file
// untouched.
import { existsSync } from 'node:fs';
import type { AgentKind } from '../../protocol/api/agents.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { SettingsShapeError } from '../hooks/hook-entries.js';
import { JsonTextError } from '../hooks/json-text.js';
import { lineDiff } from '../hooks/line-diff.js';
import { readSettingsFile, writeSettingsFile, type WriteOutcome } from '../hooks/settings-file.js';
import { planCodexInstall, planCodexUninstall, readCodexEntry } from './codex-config.js';
import { planJsonInstall, planJsonUninstall, readJsonEntry } from './json-mcp-servers.js';
import { entryCommandLine, entryDifferences } from './tend-mcp-entry.js';
import { TomlTextError } from './toml-text.js';

export type McpChangeAction = 'install' | 'uninstall';
export type McpEntryState = 'installed' | 'stale' | 'not-installed';

export interface McpTarget {
  kind: AgentKind;
  /** The agent's MCP configuration file. */
  file: string;
  /** The entry install writes there. */
  wanted: Record<string, unknown>;
}

export interface McpChangeResult {
  action: McpChangeAction;
  agent: AgentKind;
  file: string;
  /** The file's text changes (with --print: would). */
  changed: boolean;
  /** It was written (false with --print, or when nothing changed). */
  written: boolean;
  existed: boolean;
  created: boolean;
  backup: string | null;
  backupCreated: boolean;
  /** What happened to tend's entry: install added, replaced or left it; uninstall removed it, or found none. */
  outcome: 'added' | 'replaced' | 'unchanged' | 'removed' | 'absent';
  /** tend's entry before (null: there was none). */
  previous: unknown;
  /** tend's entry after (null: none). */
  entry: unknown;
  notes: string[];
  /** With --print: the change as a diff ("" when none). */
  diff?: string;
}

export interface McpStatusResult {
  agent: AgentKind;
  file: string;
  exists: boolean;
  state?: McpEntryState;
  /** tend's entry as the file has it (null: none). */
  entry?: unknown;
  /** The entry install would write. */
  wanted: Record<string, unknown>;
  /** For a stale entry: its fields that differ from the wanted one. */
  differences?: string[];
  notes: string[];
  /** Why the file could not be read; state and entry are then absent. */
  error?: string;
}

export function changeMcpEntry(action: McpChangeAction, target: McpTarget, print: boolean): McpChangeResult {
  const settings = readSettingsFile(target.file);
  const before = settings.text ?? '';
  const change = configError(target, action, () => plan(action, target, before));
  const changed = change.after !== before;
  let outcome: WriteOutcome = { created: false, backup: null, backupCreated: false };
  if (changed && !print) outcome = writeSettingsFile(settings, change.after);
  const had = change.before !== null;
  const result: McpChangeResult = {
    action,
    agent: target.kind,
    file: target.file,
    changed,
    written: changed && !print,
    existed: settings.text !== null,
    ...outcome,
    outcome: action === 'install' ? (!had ? 'added' : changed ? 'replaced' : 'unchanged') : had ? 'removed' : 'absent',
    previous: change.before,
    entry: action === 'install' ? target.wanted : null,
    notes: changeNotes(action, target, changed),
  };
  if (print) result.diff = lineDiff(before, change.after, { before: `${target.file} (as it is)`, after: `${target.file} (after tend mcp ${action} ${target.kind})` });
  return result;
}

export function mcpEntryStatus(target: McpTarget): McpStatusResult {
  const base = { agent: target.kind, file: target.file, wanted: target.wanted };
  let exists = false;
  try {
    const settings = readSettingsFile(target.file);
    exists = settings.text !== null;
    const entry = configError(target, 'status', () => readEntry(target, settings.text));
    if (entry === null) return { ...base, exists, state: 'not-installed', entry, notes: [] };
    const differences = entryDifferences(entry, target.wanted);
    if (differences.length === 0) return { ...base, exists, state: 'installed', entry, notes: [] };
    return { ...base, exists, state: 'stale', entry, differences, notes: staleNotes(target, entry, differences) };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { ...base, exists, notes: [], error: err.message };
  }
}

function plan(action: McpChangeAction, target: McpTarget, text: string): { after: string; before: unknown } {
  if (target.kind === 'codex') return action === 'install' ? planCodexInstall(text, target.wanted, target.file) : planCodexUninstall(text, target.file);
  return action === 'install' ? planJsonInstall(text, target.wanted, target.file) : planJsonUninstall(text, target.file);
}

function readEntry(target: McpTarget, text: string | null): unknown {
  if (target.kind === 'codex') return text === null ? null : readCodexEntry(text, target.file);
  return readJsonEntry(text, target.file);
}

/** What a person must do besides: the agent reads the file when it starts, and where to see tend there. */
function changeNotes(action: McpChangeAction, target: McpTarget, changed: boolean): string[] {
  if (!changed) return [];
  const notes: string[] = [];
  if (target.kind === 'claude') {
    notes.push('a Claude Code that is running keeps its own copy of this file and may write it back over this change: quit every running Claude Code, then start it again');
  } else {
    notes.push(`${AGENT_FLAVOURS[target.kind].title} reads this file when it starts: start it again to ${action === 'install' ? 'use' : 'drop'} tend's tools`);
  }
  if (action === 'install') {
    notes.push(`\`${target.kind} mcp list\` shows tend among its MCP servers`);
    if (target.kind === 'codex') notes.push("tool_timeout_sec = 3600 lets one tend tool call wait up to an hour (Codex's own default is 60 s)");
    if (target.kind === 'gemini') notes.push("timeout 3600000 (ms) lets one tend tool call wait up to an hour (Gemini's own default is 10 minutes)");
  }
  return notes;
}

function staleNotes(target: McpTarget, entry: unknown, differences: readonly string[]): string[] {
  const runs = entryCommandLine(entry);
  const wantedRuns = entryCommandLine(target.wanted)!;
  const notes: string[] = [];
  if (runs !== wantedRuns) notes.push(`tend's entry runs ${runs ?? 'no command'}, not this tend (${wantedRuns}): \`tend mcp install ${target.kind}\` points it here`);
  else notes.push(`tend's entry differs from what install writes in ${differences.join(', ')}: \`tend mcp install ${target.kind}\` writes it again`);
  const command = (entry as { command?: unknown } | null)?.command;
  if (typeof command === 'string' && command.startsWith('/') && !existsSync(command)) notes.push(`its command ${command} is not there, so the agent cannot start it`);
  return notes;
}

/** Runs a read of the configuration, turning what is wrong with the file into one line a person can act on. */
function configError<T>(target: McpTarget, action: McpChangeAction | 'status', read: () => T): T {
  try {
    return read();
  } catch (err) {
    const untouched = action === 'status' ? '' : '; nothing was changed';
    const who = AGENT_FLAVOURS[target.kind].title;
    if (err instanceof SettingsShapeError) throw new CliError(`${err.message}${untouched}`, EXIT.failed);
    if (err instanceof TomlTextError) {
      throw new CliError(`${target.file} is not valid TOML: ${err.detail} (line ${err.line}, column ${err.column}); ${who} cannot read it either: fix it, then try again${untouched}`, EXIT.failed);
    }
    if (!(err instanceof JsonTextError)) throw err;
    const at = `line ${err.line}, column ${err.column}`;
    if (err.problem === 'comment') {
      throw new CliError(`${target.file} has a comment (${at}): it is JSON with comments, and tend will not rewrite a file with comments; take them out, or add tend's entry by hand${untouched}`, EXIT.failed);
    }
    throw new CliError(`${target.file} is not valid JSON: ${err.detail} (${at}); ${who} cannot read it either: fix it, then try again${untouched}`, EXIT.failed);
  }
}
