// tend's entry in a JSON file's root "mcpServers" object (Claude Code's
// ~/.claude.json, Gemini CLI's settings.json): the member "tend". Install
// adds it after the other servers (making "mcpServers" when there is none)
// or rewrites its value with tend's fields set and the others kept (an
// entry's own layout is not kept: it is written in the file's); uninstall takes the member out, and "mcpServers"
// with it when that leaves it empty. The text is edited in place
// (hooks/json-edit.ts), so every other byte of the file stays: that matters
// most for ~/.claude.json, which is Claude Code's own large state file.
import { appendMembers, applyEdits, readJsonDocument, removeMembers, type JsonDocument, type TextEdit } from '../hooks/json-edit.js';
import { lastIndexOfKey, SettingsShapeError } from '../hooks/hook-entries.js';
import { lineIndentAt, startsLine, writeJsonValue } from '../hooks/json-style.js';
import { lineAndColumn, type JsonNode, type JsonObjectNode } from '../hooks/json-text.js';
import { MCP_SERVER_NAME, mergedEntry, sameValue } from './tend-mcp-entry.js';

const SERVERS_KEY = 'mcpServers';
/** What a file with nothing in it yet (missing, or only white space) starts from. */
const EMPTY_SETTINGS_TEXT = '{}\n';

export interface JsonEntryChange {
  after: string;
  /** tend's entry as it was (null: none). */
  before: unknown;
}

interface ServersView {
  doc: JsonDocument;
  root: JsonObjectNode;
  /** The root's "mcpServers" member (its index) and object; null when there is none. */
  servers: { memberIndex: number; object: JsonObjectNode } | null;
  /** Indexes of the "tend" members in it (a key given twice is read as JSON.parse does: the last counts). */
  tendIndexes: number[];
}

/** tend's entry in the text (null when there is none); throws JsonTextError or SettingsShapeError. */
export function readJsonEntry(text: string | null, file: string): unknown {
  if (text === null || text.trim() === '') return null;
  const view = serversView(text, file);
  return entryOf(view);
}

export function planJsonInstall(text: string, wanted: Record<string, unknown>, file: string): JsonEntryChange {
  const view = serversView(text.trim() === '' ? EMPTY_SETTINGS_TEXT : text, file);
  const before = entryOf(view);
  const { doc, servers, tendIndexes } = view;
  const merged = mergedEntry(before, wanted);
  if (tendIndexes.length === 1 && sameValue(before, merged)) return { after: text, before };
  let edits: TextEdit[];
  if (servers === null) edits = [appendMembers(doc, view.root, [[SERVERS_KEY, { [MCP_SERVER_NAME]: wanted }]])];
  else if (tendIndexes.length === 0) edits = [appendMembers(doc, servers.object, [[MCP_SERVER_NAME, wanted]])];
  else {
    const last = servers.object.members[tendIndexes.at(-1)!]!;
    const indent = lineIndentAt(doc.text, last.keyStart);
    const value = writeJsonValue(merged, doc.style, indent, !startsLine(doc.text, last.keyStart));
    edits = [{ start: last.value.start, end: last.value.end, text: value }, ...removeMembers(servers.object, tendIndexes.slice(0, -1))];
  }
  return { after: applyEdits(doc.text, edits), before };
}

export function planJsonUninstall(text: string, file: string): JsonEntryChange {
  if (text.trim() === '') return { after: text, before: null };
  const view = serversView(text, file);
  const { servers, tendIndexes } = view;
  if (servers === null || tendIndexes.length === 0) return { after: text, before: null };
  // Only what taking tend out leaves empty goes: an empty "mcpServers" the file had before stays.
  const edits = tendIndexes.length === servers.object.members.length
    ? removeMembers(view.root, [servers.memberIndex])
    : removeMembers(servers.object, tendIndexes);
  return { after: applyEdits(text, edits), before: entryOf(view) };
}

function entryOf(view: ServersView): unknown {
  const index = view.tendIndexes.at(-1);
  return index === undefined ? null : plainValue(view.servers!.object.members[index]!.value);
}

function serversView(text: string, file: string): ServersView {
  const doc = readJsonDocument(text);
  const where = (node: JsonNode) => {
    const { line, column } = lineAndColumn(text, node.start);
    return `${file} (line ${line}, column ${column})`;
  };
  const root = doc.root;
  if (root === null) throw new SettingsShapeError(`${file} holds no JSON value`);
  if (root.kind !== 'object') throw new SettingsShapeError(`${where(root)} holds ${kindOf(root)}, not an object of settings`);
  const index = lastIndexOfKey(root, SERVERS_KEY);
  if (index === -1) return { doc, root, servers: null, tendIndexes: [] };
  const object = root.members[index]!.value;
  if (object.kind !== 'object') throw new SettingsShapeError(`"${SERVERS_KEY}" in ${where(object)} is ${kindOf(object)}, not an object of MCP servers`);
  const tendIndexes = object.members.flatMap((m, i) => (m.key === MCP_SERVER_NAME ? [i] : []));
  return { doc, root, servers: { memberIndex: index, object }, tendIndexes };
}

/** A node as the value JSON.parse would give. */
function plainValue(node: JsonNode): unknown {
  if (node.kind === 'object') return Object.fromEntries(node.members.map((m) => [m.key, plainValue(m.value)]));
  if (node.kind === 'array') return node.items.map(plainValue);
  return node.value;
}

function kindOf(node: JsonNode): string {
  if (node.kind === 'array') return 'an array';
  if (node.kind === 'object') return 'an object';
  if (node.kind === 'null') return 'null';
  return `a ${node.kind}`;
}
