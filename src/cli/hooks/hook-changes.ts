// The text of an agent's settings after tend's hooks go in or come out.
// Install adds tend's handler for each of the agent's events beside the
// user's own (a matcher group of its own, after theirs), points a handler
// of another tend at this one's hook client, and drops tend's handlers for
// events it no longer uses; uninstall takes out every handler of tend's and
// whatever that leaves empty (a group, an event, `hooks` itself). Both edit
// the text (json-edit.ts), so the rest of the file keeps its bytes.
import type { AgentKind } from '../../protocol/api/agents.js';
import { AGENT_FLAVOURS, hookCommand, tendHooksSettings } from '../../common/agents/catalogue.js';
import { appendItems, appendMembers, applyEdits, readJsonDocument, removeItems, removeMembers, replaceValue, type JsonDocument, type TextEdit } from './json-edit.js';
import { handlerArrayOf, keysCodexRefuses, lastIndexOfKey, readHooksView, SettingsShapeError, CODEX_ROOT_KEYS, type HooksView, type TendHandler } from './hook-entries.js';
import type { JsonNode, JsonObjectNode } from './json-text.js';

/** Gemini CLI runs hooks only with this setting true (tools.enableHooks). */
export type GeminiHooksSwitch = 'turned-on' | 'on' | 'off' | 'not-gemini';

export interface HooksChange {
  /** The text after the change (equal to the text before when nothing changes). */
  after: string;
  /** Events that got tend's handler. */
  added: string[];
  /** Events whose tend handler pointed at another hook client, now at this one. */
  replaced: string[];
  /** Events tend's handlers were taken out of. */
  removed: string[];
  /** The hook client paths of other tends that were replaced or taken out. */
  staleCommands: string[];
  /** Gemini's tools.enableHooks: turned on by this install, already on, left off by its owner. */
  geminiHooks: GeminiHooksSwitch;
}

export interface ChangeTarget {
  kind: AgentKind;
  hookClientPath: string;
  /** The file's path, for messages. */
  file: string;
}

/** What a file with no settings yet (missing, or only white space) starts from. */
const EMPTY_SETTINGS_TEXT = '{}\n';

export function planInstall(text: string, target: ChangeTarget): HooksChange {
  const { kind, hookClientPath } = target;
  const events = AGENT_FLAVOURS[kind].hookEvents;
  let doc = documentOf(text.trim() === '' ? EMPTY_SETTINGS_TEXT : text, target);
  let view = viewOf(doc, target);
  const refused = keysCodexRefuses(kind, view);
  if (refused.length > 0) {
    throw new SettingsShapeError(`${target.file} holds ${refused.map((k) => JSON.stringify(k)).join(', ')} at its root, and Codex refuses a hooks file with anything there but ${CODEX_ROOT_KEYS.map((k) => JSON.stringify(k)).join(' and ')}: take ${refused.length === 1 ? 'it' : 'them'} out, then install again`);
  }

  // First pass: tend's handlers of events it no longer uses, and a second one of an event, go.
  const seen = new Set<string>();
  const extra = view.tendHandlers.filter((h) => {
    const keep = events.includes(h.event) && !seen.has(h.event);
    seen.add(h.event);
    return !keep;
  });
  const removed = [...new Set(extra.filter((h) => !events.includes(h.event)).map((h) => h.event))];
  const staleCommands = new Set(extra.map((h) => h.command).filter((c) => !runsThisTendsClient(c, target)));
  if (extra.length > 0) {
    doc = documentOf(applyEdits(doc.text, removeHandlers(view, extra)), target);
    view = viewOf(doc, target);
  }

  // Second pass, on the text the first left: tend's handler for each event, added or pointed at this tend.
  const tools = kind === 'gemini' ? geminiToolsOf(view, target) : null;
  const wanted = tendHooksSettings(hookClientPath, kind);
  const edits: TextEdit[] = [];
  const rootMembers: Array<[string, unknown]> = [];
  const added: string[] = [];
  const replaced: string[] = [];
  if (view.hooks === null) {
    rootMembers.push(['hooks', wanted]);
    added.push(...events);
  } else {
    const newEvents: Array<[string, unknown]> = [];
    for (const event of events) {
      const entry = view.events.get(event);
      const mine = view.tendHandlers.find((h) => h.event === event);
      const expected = hookCommand(hookClientPath, kind, event);
      if (entry === undefined) newEvents.push([event, wanted[event]]);
      else if (mine === undefined) edits.push(appendItems(doc, entry.groups, wanted[event]!));
      else if (mine.command !== expected) {
        edits.push(replaceValue(mine.commandNode, expected));
        staleCommands.add(mine.command);
        replaced.push(event);
        continue;
      } else continue;
      added.push(event);
    }
    if (newEvents.length > 0) edits.push(appendMembers(doc, view.hooks.object, newEvents));
  }
  let geminiHooks: GeminiHooksSwitch = 'not-gemini';
  if (tools !== null) {
    geminiHooks = geminiSwitchOf(tools.enableHooks);
    if (geminiHooks === 'turned-on') {
      if (tools.object === null) rootMembers.push(['tools', { enableHooks: true }]);
      else edits.push(appendMembers(doc, tools.object, [['enableHooks', true]]));
    }
  }
  if (rootMembers.length > 0) edits.push(appendMembers(doc, view.root, rootMembers));
  // Unchanged, the text comes back as it came (a blank file too, never replaced by the {} it was read as).
  const after = edits.length === 0 && extra.length === 0 ? text : applyEdits(doc.text, edits);
  return { after, added, replaced, removed, staleCommands: [...staleCommands], geminiHooks };
}

export function planUninstall(text: string, target: ChangeTarget): HooksChange {
  const none: HooksChange = { after: text, added: [], replaced: [], removed: [], staleCommands: [], geminiHooks: 'not-gemini' };
  if (text.trim() === '') return none;
  const doc = documentOf(text, target);
  const view = viewOf(doc, target);
  // Uninstall leaves tools.enableHooks as it is (the user's own hooks may need it): 'turned-on' never comes from here.
  const setting = target.kind === 'gemini' ? geminiToolsOf(view, target).enableHooks : null;
  const geminiHooks: GeminiHooksSwitch = setting === null ? 'not-gemini' : setting === true ? 'on' : 'off';
  if (view.tendHandlers.length === 0) return { ...none, geminiHooks };
  return {
    after: applyEdits(text, removeHandlers(view, view.tendHandlers)),
    added: [],
    replaced: [],
    removed: [...new Set(view.tendHandlers.map((h) => h.event))],
    staleCommands: [...new Set(view.tendHandlers.map((h) => h.command).filter((c) => !runsThisTendsClient(c, target)))],
    geminiHooks,
  };
}

export function documentOf(text: string, target: Pick<ChangeTarget, 'file'>): JsonDocument & { root: JsonNode } {
  const doc = readJsonDocument(text);
  if (doc.root === null) throw new SettingsShapeError(`${target.file} holds no JSON value`);
  return { ...doc, root: doc.root };
}

export function viewOf(doc: JsonDocument & { root: JsonNode }, target: Pick<ChangeTarget, 'file'>): HooksView {
  return readHooksView(doc, target.file);
}

/** Gemini's tools.enableHooks as the file has it: true, false, absent, or something else. */
export type EnableHooksSetting = true | false | 'absent' | 'other';

/** Gemini's `tools` object and its enableHooks; `tools` of another shape is refused. */
export function geminiToolsOf(view: HooksView, target: Pick<ChangeTarget, 'file'>): { object: JsonObjectNode | null; enableHooks: EnableHooksSetting } {
  const index = lastIndexOfKey(view.root, 'tools');
  if (index === -1) return { object: null, enableHooks: 'absent' };
  const tools = view.root.members[index]!.value;
  if (tools.kind !== 'object') throw new SettingsShapeError(`"tools" in ${target.file} is not an object, so tend cannot turn on Gemini's hooks there (tools.enableHooks)`);
  const flag = lastIndexOfKey(tools, 'enableHooks');
  if (flag === -1) return { object: tools, enableHooks: 'absent' };
  const value = tools.members[flag]!.value;
  return { object: tools, enableHooks: value.kind === 'boolean' ? (value.value as boolean) : 'other' };
}

function geminiSwitchOf(setting: EnableHooksSetting): GeminiHooksSwitch {
  return setting === true ? 'on' : setting === 'absent' ? 'turned-on' : 'off';
}

/** Whether a tend hook command runs this tend's hook client (for any event). */
export function runsThisTendsClient(command: string, target: Pick<ChangeTarget, 'kind' | 'hookClientPath'>): boolean {
  return command.startsWith(hookCommand(target.hookClientPath, target.kind, ''));
}

/**
 * Edits that take these handlers out, and what that leaves empty: a group
 * with no handler goes, then an event with no group, then `hooks` itself.
 * Only what they empty goes; an empty group the user wrote stays.
 */
function removeHandlers(view: HooksView, handlers: readonly TendHandler[]): TextEdit[] {
  const byEvent = new Map<string, Map<number, Set<number>>>();
  for (const h of handlers) {
    const groups = byEvent.get(h.event) ?? new Map<number, Set<number>>();
    groups.set(h.groupIndex, (groups.get(h.groupIndex) ?? new Set()).add(h.handlerIndex));
    byEvent.set(h.event, groups);
  }
  const edits: TextEdit[] = [];
  const eventsGone: number[] = [];
  for (const [event, groups] of byEvent) {
    const entry = view.events.get(event)!;
    const groupsGone: number[] = [];
    for (const [groupIndex, gone] of groups) {
      const handlerArray = handlerArrayOf(entry.groups.items[groupIndex])!;
      if (gone.size === handlerArray.items.length) groupsGone.push(groupIndex);
      else edits.push(...removeItems(handlerArray, gone));
    }
    if (groupsGone.length === entry.groups.items.length) eventsGone.push(entry.memberIndex);
    else edits.push(...removeItems(entry.groups, groupsGone));
  }
  const hooks = view.hooks!;
  if (eventsGone.length === hooks.object.members.length) return [...edits, ...removeMembers(view.root, [hooks.memberIndex])];
  return [...edits, ...removeMembers(hooks.object, eventsGone)];
}
