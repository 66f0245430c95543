// Edits of a JSON text that touch only what changes: members appended to an
// object, items to an array, some taken out, a string replaced. Everything
// else keeps its bytes. An append goes after the last member, on a line of
// its own at that member's indent ("," then the line ending then the
// indent), and taking the last members out deletes exactly from the end of
// the member before them: so appending then taking out gives back the text
// it started from, byte for byte.
import type { JsonArrayNode, JsonNode, JsonObjectNode } from './json-text.js';
import { parseJsonText } from './json-text.js';
import { detectJsonStyle, lineIndentAt, startsLine, writeJsonMember, writeJsonValue, type JsonStyle } from './json-style.js';

export interface JsonDocument {
  text: string;
  /** Null for a text of only white space. */
  root: JsonNode | null;
  style: JsonStyle;
}

/** A change of the text: [start, end) becomes `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

type Container = JsonObjectNode | JsonArrayNode;

/** Parses and reads the layout; throws JsonTextError. */
export function readJsonDocument(text: string): JsonDocument {
  const root = parseJsonText(text);
  return { text, root, style: detectJsonStyle(text, root) };
}

/** Members added at the end of an object, in the file's layout. */
export function appendMembers(doc: JsonDocument, object: JsonObjectNode, members: ReadonlyArray<readonly [string, unknown]>): TextEdit {
  return appendChildren(doc, object, (indent, oneLine) => members.map(([key, value]) => writeJsonMember(key, value, doc.style, indent, oneLine)));
}

/** Items added at the end of an array, in the file's layout. */
export function appendItems(doc: JsonDocument, array: JsonArrayNode, items: readonly unknown[]): TextEdit {
  return appendChildren(doc, array, (indent, oneLine) => items.map((item) => writeJsonValue(item, doc.style, indent, oneLine)));
}

/** The members at these indexes taken out of an object (all of them: the object becomes {}). */
export function removeMembers(object: JsonObjectNode, indexes: Iterable<number>): TextEdit[] {
  return removeChildren(object, new Set(indexes));
}

/** The items at these indexes taken out of an array (all of them: the array becomes []). */
export function removeItems(array: JsonArrayNode, indexes: Iterable<number>): TextEdit[] {
  return removeChildren(array, new Set(indexes));
}

/** A value replaced by another, written on one line (meant for scalars). */
export function replaceValue(node: JsonNode, value: unknown): TextEdit {
  return { start: node.start, end: node.end, text: JSON.stringify(value) };
}

/** The text with the edits made; they must not overlap (an insertion may sit where another edit ends). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const edit of sorted) {
    if (edit.start < at) throw new Error(`overlapping edits of the JSON text at offset ${edit.start}`);
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
}

interface ChildSpan {
  start: number;
  end: number;
}

function childSpans(container: Container): ChildSpan[] {
  if (container.kind === 'object') return container.members.map((m) => ({ start: m.keyStart, end: m.value.end }));
  return container.items.map((v) => ({ start: v.start, end: v.end }));
}

/**
 * A document written on one line (minified) keeps to one line; in any
 * other, an empty object or array that gets children opens onto lines of
 * their own.
 */
function isOneLineDocument(doc: JsonDocument): boolean {
  const root = doc.root;
  if (root === null || (root.kind !== 'object' && root.kind !== 'array')) return false;
  return childSpans(root).length > 0 && !doc.text.slice(root.start, root.end).includes('\n');
}

function appendChildren(doc: JsonDocument, container: Container, write: (indent: string, oneLine: boolean) => string[]): TextEdit {
  const { text, style } = doc;
  const children = childSpans(container);
  const last = children.at(-1);
  if (last !== undefined) {
    if (startsLine(text, last.start)) {
      const indent = lineIndentAt(text, last.start);
      return { start: last.end, end: last.end, text: write(indent, false).map((part) => `,${style.eol}${indent}${part}`).join('') };
    }
    // Children written on one line with the container's brackets: the new ones join that line.
    return { start: last.end, end: last.end, text: write('', true).map((part) => `${style.comma}${part}`).join('') };
  }
  const [open, close] = container.kind === 'object' ? ['{', '}'] : ['[', ']'];
  if (isOneLineDocument(doc)) return { start: container.start, end: container.end, text: `${open}${write('', true).join(style.comma)}${close}` };
  const outer = lineIndentAt(text, container.start);
  const inner = outer + style.indentUnit;
  const lines = write(inner, false).map((part) => inner + part);
  return { start: container.start, end: container.end, text: `${open}${style.eol}${lines.join(`,${style.eol}`)}${style.eol}${outer}${close}` };
}

function removeChildren(container: Container, gone: ReadonlySet<number>): TextEdit[] {
  const children = childSpans(container);
  const kept = children.filter((_, i) => !gone.has(i));
  if (kept.length === children.length) return [];
  if (kept.length === 0) return [{ start: container.start, end: container.end, text: container.kind === 'object' ? '{}' : '[]' }];
  const edits: TextEdit[] = [];
  for (let i = 0; i < children.length; i++) {
    if (!gone.has(i)) continue;
    let last = i;
    while (gone.has(last + 1)) last++;
    // A run at the end takes the comma before it; any other takes the comma after it, and the space up to the next.
    edits.push(last === children.length - 1
      ? { start: children[i - 1]!.end, end: children[last]!.end, text: '' }
      : { start: children[i]!.start, end: children[last + 1]!.start, text: '' });
    i = last;
  }
  return edits;
}
