// What an agent's settings document holds of hooks, read from its spans:
// the `hooks` object (event → array of matcher groups {matcher?, hooks:
// [handler…]}), and in it tend's handlers (a command isTendHookCommand
// knows), each with where it sits so it can be replaced or taken out. The
// shapes tend must understand to edit safely are checked here; a broken
// one is refused with where it is, so a file the agent could not read is
// never made worse.
import type { AgentKind } from '../../protocol/api/agents.js';
import { isTendHookCommand } from '../../common/agents/catalogue.js';
import type { JsonDocument } from './json-edit.js';
import { lineAndColumn, type JsonArrayNode, type JsonNode, type JsonObjectNode, type JsonScalarNode } from './json-text.js';

/** A settings file whose shape tend cannot edit; the message says what and where. */
export class SettingsShapeError extends Error {}

/** Codex refuses a hooks.json whose root holds anything but these. */
export const CODEX_ROOT_KEYS: readonly string[] = ['description', 'hooks'];

export interface TendHandler {
  event: string;
  command: string;
  commandNode: JsonScalarNode;
  groupIndex: number;
  handlerIndex: number;
}

export interface EventEntry {
  /** Index of the event's member in the hooks object. */
  memberIndex: number;
  groups: JsonArrayNode;
}

export interface HooksView {
  root: JsonObjectNode;
  /** The `hooks` member's index in the root, and its object; null when there is none. */
  hooks: { memberIndex: number; object: JsonObjectNode } | null;
  events: Map<string, EventEntry>;
  tendHandlers: TendHandler[];
}

/**
 * Reads the hooks of a parsed settings document (its root must be there).
 * Where a key is given twice, the last one counts, as JSON.parse reads it.
 */
export function readHooksView(doc: JsonDocument & { root: JsonNode }, file: string): HooksView {
  const where = (node: JsonNode) => {
    const { line, column } = lineAndColumn(doc.text, node.start);
    return `${file} (line ${line}, column ${column})`;
  };
  const root = doc.root;
  if (root.kind !== 'object') throw new SettingsShapeError(`${where(root)} holds ${describeKind(root)}, not an object of settings`);
  const hooksIndex = lastIndexOfKey(root, 'hooks');
  if (hooksIndex === -1) return { root, hooks: null, events: new Map(), tendHandlers: [] };
  const hooks = root.members[hooksIndex]!.value;
  if (hooks.kind !== 'object') throw new SettingsShapeError(`"hooks" in ${where(hooks)} is ${describeKind(hooks)}, not an object of events`);

  const events = new Map<string, EventEntry>();
  hooks.members.forEach((member, memberIndex) => {
    if (member.value.kind !== 'array') throw new SettingsShapeError(`the hook event "${member.key}" in ${where(member.value)} is ${describeKind(member.value)}, not an array of matcher groups`);
    events.set(member.key, { memberIndex, groups: member.value });
  });
  const tendHandlers: TendHandler[] = [];
  for (const [event, entry] of events) tendHandlers.push(...tendHandlersOf(event, entry.groups));
  return { root, hooks: { memberIndex: hooksIndex, object: hooks }, events, tendHandlers };
}

/** The handler arrays of an event's matcher groups, by group index; a group of another shape has none. */
export function handlerArrayOf(group: JsonNode | undefined): JsonArrayNode | null {
  if (group?.kind !== 'object') return null;
  const index = lastIndexOfKey(group, 'hooks');
  const handlers = index === -1 ? null : group.members[index]!.value;
  return handlers?.kind === 'array' ? handlers : null;
}

/** Root keys of a Codex hooks.json that Codex refuses the file for. */
export function keysCodexRefuses(kind: AgentKind, view: HooksView): string[] {
  if (kind !== 'codex') return [];
  return view.root.members.map((m) => m.key).filter((key) => !CODEX_ROOT_KEYS.includes(key));
}

export function lastIndexOfKey(object: JsonObjectNode, key: string): number {
  for (let i = object.members.length - 1; i >= 0; i--) if (object.members[i]!.key === key) return i;
  return -1;
}

function tendHandlersOf(event: string, groups: JsonArrayNode): TendHandler[] {
  const found: TendHandler[] = [];
  groups.items.forEach((group, groupIndex) => {
    handlerArrayOf(group)?.items.forEach((handler, handlerIndex) => {
      if (handler.kind !== 'object') return;
      const commandIndex = lastIndexOfKey(handler, 'command');
      const command = commandIndex === -1 ? null : handler.members[commandIndex]!.value;
      if (command?.kind === 'string' && isTendHookCommand(command.value)) {
        found.push({ event, command: command.value as string, commandNode: command, groupIndex, handlerIndex });
      }
    });
  });
  return found;
}

function describeKind(node: JsonNode): string {
  if (node.kind === 'array') return 'an array';
  if (node.kind === 'object') return 'an object';
  if (node.kind === 'null') return 'null';
  return `a ${node.kind} (${JSON.stringify(node.value)})`;
}
