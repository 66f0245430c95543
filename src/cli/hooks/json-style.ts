// How a JSON file is laid out, read from the file itself, so what tend adds
// looks as if its owner had typed it: the indent (tabs, or spaces and how
// many), the line ending, and whether a colon or comma has a space after it.
// And the writer of new values in that layout.
import type { JsonNode } from './json-text.js';

export interface JsonStyle {
  /** One level of indent: "\t", or some spaces. */
  indentUnit: string;
  eol: '\n' | '\r\n';
  /** What follows a key: ": " or ":". */
  colon: string;
  /** What follows a comma inside a one-line object or array: ", " or ",". */
  comma: string;
}

/** The layout of a new file, and of anything a file does not show (JSON.stringify's with 2 spaces). */
export const DEFAULT_JSON_STYLE: JsonStyle = { indentUnit: '  ', eol: '\n', colon: ': ', comma: ', ' };

export function detectJsonStyle(text: string, root: JsonNode | null): JsonStyle {
  return {
    indentUnit: (root && indentUnitOf(text, root)) ?? DEFAULT_JSON_STYLE.indentUnit,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
    colon: root && !hasSpaceAfter(text, root, ':') ? ':' : ': ',
    comma: root && !hasSpaceAfter(text, root, ',') ? ',' : ', ',
  };
}

/** The white space that begins the line `offset` is on. */
export function lineIndentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))![0];
}

/** Whether only white space comes between the start of its line and `offset`. */
export function startsLine(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(lineStart, offset));
}

/**
 * A value written at `indent` (the indent of the line it starts on): over
 * several lines in the style's indent, or on one line when `oneLine`.
 */
export function writeJsonValue(value: unknown, style: JsonStyle, indent: string, oneLine: boolean): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return wrap('[', ']', value.map((item) => (inner: string) => writeJsonValue(item, style, inner, oneLine)), style, indent, oneLine);
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    return wrap('{', '}', entries.map(([key, v]) => (inner: string) => `${JSON.stringify(key)}${style.colon}${writeJsonValue(v, style, inner, oneLine)}`), style, indent, oneLine);
  }
  return JSON.stringify(value);
}

/** A member as it is written in an object: "key": value. */
export function writeJsonMember(key: string, value: unknown, style: JsonStyle, indent: string, oneLine: boolean): string {
  return `${JSON.stringify(key)}${style.colon}${writeJsonValue(value, style, indent, oneLine)}`;
}

function wrap(open: string, close: string, parts: Array<(inner: string) => string>, style: JsonStyle, indent: string, oneLine: boolean): string {
  if (oneLine) return `${open}${parts.map((p) => p('')).join(style.comma)}${close}`;
  const inner = indent + style.indentUnit;
  return `${open}${style.eol}${parts.map((p) => inner + p(inner)).join(`,${style.eol}`)}${style.eol}${indent}${close}`;
}

/**
 * The indent of one level: from the first member or item that starts its own
 * line, its line's indent divided by its depth (a file indented with tabs
 * gives a tab). Null when nothing in the file starts a line.
 */
function indentUnitOf(text: string, root: JsonNode): string | null {
  const found = firstLineStartingChild(text, root, 1);
  if (found === null) return null;
  const indent = lineIndentAt(text, found.offset);
  if (indent.startsWith('\t')) return '\t';
  const width = Math.floor(indent.length / found.depth);
  return width > 0 ? ' '.repeat(width) : null;
}

function firstLineStartingChild(text: string, node: JsonNode, depth: number): { offset: number; depth: number } | null {
  const children = node.kind === 'object' ? node.members.map((m) => ({ offset: m.keyStart, value: m.value })) : node.kind === 'array' ? node.items.map((v) => ({ offset: v.start, value: v })) : [];
  for (const child of children) {
    if (startsLine(text, child.offset) && lineIndentAt(text, child.offset) !== '') return { offset: child.offset, depth };
    const deeper = firstLineStartingChild(text, child.value, depth + 1);
    if (deeper !== null) return deeper;
  }
  return null;
}

/** Whether the first `mark` (a member's colon, or a comma between values) in the file is followed by a space. */
function hasSpaceAfter(text: string, root: JsonNode, mark: ':' | ','): boolean {
  const after = firstMarkEnd(text, root, mark);
  return after === null || text[after] === ' ' || text[after] === '\n' || text[after] === '\r' || text[after] === '\t';
}

function firstMarkEnd(text: string, node: JsonNode, mark: ':' | ','): number | null {
  if (node.kind === 'object' && node.members.length > 0) {
    if (mark === ':') return text.indexOf(':', node.members[0]!.keyEnd) + 1;
    if (node.members.length > 1) return text.indexOf(',', node.members[0]!.value.end) + 1;
  }
  if (node.kind === 'array' && mark === ',' && node.items.length > 1) return text.indexOf(',', node.items[0]!.end) + 1;
  const children = node.kind === 'object' ? node.members.map((m) => m.value) : node.kind === 'array' ? node.items : [];
  for (const child of children) {
    const found = firstMarkEnd(text, child, mark);
    if (found !== null) return found;
  }
  return null;
}
