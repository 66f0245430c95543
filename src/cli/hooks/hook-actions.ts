// `tend hooks install|uninstall|status` as data: each reads the agent's
// settings file, works out the change (or the status), and for a change
// writes it, unless only asked to show it. The verb (verbs/hooks.ts) says
// the result. Errors come back as CliError, the file untouched.
import type { AgentKind } from '../../protocol/api/agents.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { planInstall, planUninstall, type ChangeTarget, type GeminiHooksSwitch } from './hook-changes.js';
import { SettingsShapeError } from './hook-entries.js';
import { codexTrustNote, geminiLeftOffNote, geminiSwitchNote, hookClientNote, perRunNote, staleNote } from './hook-notes.js';
import { readHooksStatus, type HooksStatus } from './hook-status.js';
import { JsonTextError } from './json-text.js';
import { lineDiff } from './line-diff.js';
import { readSettingsFile, writeSettingsFile, type WriteOutcome } from './settings-file.js';

export type ChangeAction = 'install' | 'uninstall';

export interface ChangeResult {
  action: ChangeAction;
  agent: AgentKind;
  file: string;
  /** The file's text would change (or, with --print, did not but would). */
  changed: boolean;
  /** It was written (false with --print, or when nothing changed). */
  written: boolean;
  /** The file was there before. */
  existed: boolean;
  created: boolean;
  backup: string | null;
  backupCreated: boolean;
  added: string[];
  replaced: string[];
  removed: string[];
  staleCommands: string[];
  /** Gemini's tools.enableHooks after this (absent for the other agents). */
  geminiHooks?: Exclude<GeminiHooksSwitch, 'not-gemini'>;
  notes: string[];
  /** With --print: the change as a diff ("" when none). */
  diff?: string;
}

export interface StatusResult extends Partial<HooksStatus> {
  agent: AgentKind;
  file: string;
  exists: boolean;
  hookClient: string;
  notes: string[];
  /** Why the file could not be read as settings; the other fields are then absent. */
  error?: string;
}

export function changeHooks(action: ChangeAction, target: ChangeTarget, print: boolean): ChangeResult {
  const settings = readSettingsFile(target.file);
  const before = settings.text ?? '';
  const change = settingsError(target, action, () => (action === 'install' ? planInstall(before, target) : planUninstall(before, target)));
  const changed = change.after !== before;
  const notes = [
    ...(action === 'install' ? hookClientNote(target.hookClientPath) : []),
    ...(action === 'install' && change.geminiHooks === 'off' ? geminiLeftOffNote(target.file) : []),
    ...(action === 'install' ? codexTrustNote(target.kind, 'install') : []),
  ];
  let outcome: WriteOutcome = { created: false, backup: null, backupCreated: false };
  if (changed && !print) outcome = writeSettingsFile(settings, change.after);
  const { geminiHooks, added, replaced, removed, staleCommands } = change;
  return {
    action,
    agent: target.kind,
    file: target.file,
    changed,
    written: changed && !print,
    existed: settings.text !== null,
    ...outcome,
    added,
    replaced,
    removed,
    staleCommands,
    ...(geminiHooks !== 'not-gemini' ? { geminiHooks } : {}),
    notes,
    ...(print ? { diff: lineDiff(before, change.after, { before: `${target.file} (as it is)`, after: `${target.file} (after tend hooks ${action} ${target.kind})` }) } : {}),
  };
}

export function hooksStatus(target: ChangeTarget): StatusResult {
  const base = { agent: target.kind, file: target.file, hookClient: target.hookClientPath };
  let exists = false;
  try {
    const settings = readSettingsFile(target.file);
    exists = settings.text !== null;
    const status = settingsError(target, 'status', () => readHooksStatus(settings.text, target));
    const notes = [
      ...staleNote(target.kind, status.stale.map((h) => h.command)),
      ...(status.refusedKeys.length > 0 ? [`Codex refuses this file: it holds ${status.refusedKeys.map((k) => JSON.stringify(k)).join(', ')} at its root, where only "description" and "hooks" may be`] : []),
      ...geminiSwitchNote(status.enableHooks, target.file),
      ...codexTrustNote(target.kind, 'status'),
      ...perRunNote(target.kind, status.state === 'installed'),
      ...hookClientNote(target.hookClientPath),
    ];
    return { ...base, exists, ...status, notes };
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    return { ...base, exists, notes: [], error: err.message };
  }
}

/** Runs a read of the settings, turning what is wrong with the file into one line a person can act on. */
function settingsError<T>(target: ChangeTarget, action: ChangeAction | 'status', read: () => T): T {
  try {
    return read();
  } catch (err) {
    const untouched = action === 'status' ? '' : '; nothing was changed';
    if (err instanceof SettingsShapeError) throw new CliError(`${err.message}${untouched}`, EXIT.failed);
    if (!(err instanceof JsonTextError)) throw err;
    const at = `line ${err.line}, column ${err.column}`;
    const who = AGENT_FLAVOURS[target.kind].title;
    if (err.problem === 'comment') {
      throw new CliError(`${target.file} has a comment (${at}): it is JSON with comments, and tend will not rewrite a file with comments; take them out, or add tend's hooks by hand${untouched}`, EXIT.failed);
    }
    throw new CliError(`${target.file} is not valid JSON: ${err.detail} (${at}); ${who} cannot read it either: fix it, then try again${untouched}`, EXIT.failed);
  }
}
