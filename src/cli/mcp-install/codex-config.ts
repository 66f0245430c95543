// tend's entry in Codex's config.toml: the table [mcp_servers.tend] and its
// sub-tables ([mcp_servers.tend.env], and the [mcp_servers.tend.tools.NAME]
// tables where Codex keeps a person's tool approvals), up to the next table
// header that is not theirs. Install appends the table after the file's
// last line of content, or, when it is there, sets tend's keys in it line
// by line (codex-table-edit.ts), the other lines kept; uninstall takes the
// table out with the line breaks before it. Everything else keeps its
// bytes, so install then uninstall gives the file back as it was. The name
// defined in a form that is not that table (dotted keys such as
// `mcp_servers.tend.command = …`, an inline table, an array of tables, or
// the table split in parts) is refused, because editing it would mean
// rewriting lines that are not tend's.
import { SettingsShapeError } from '../hooks/hook-entries.js';
import { applyEdits } from '../hooks/json-edit.js';
import { lineAndColumn } from '../hooks/json-text.js';
import { tendTableEdits } from './codex-table-edit.js';
import { isPlainObject, MCP_SERVER_NAME, mergedEntry, sameValue } from './tend-mcp-entry.js';
import { readTomlDocument, setPath, tomlKey, tomlValueText, type TomlDocument, type TomlStatement, type TomlValue } from './toml-text.js';

const SERVERS_KEY = 'mcp_servers';
const TEND_PATH: readonly string[] = [SERVERS_KEY, MCP_SERVER_NAME];

export interface TomlEntryChange {
  after: string;
  /** tend's entry as it was (null: none). */
  before: Record<string, unknown> | null;
}

interface CodexView {
  doc: TomlDocument;
  /** Where tend's table is: from its header's "[" to the end of its last line of content. */
  block: { start: number; end: number } | null;
  /** Its statements, its header first. */
  blockStatements: TomlStatement[];
  entry: Record<string, unknown> | null;
  /** `mcp_servers = {…}` at the root: no table can be added to it. */
  serversInline: { line: number } | null;
}

/** tend's entry in the text (null when there is none); throws TomlTextError or SettingsShapeError. */
export function readCodexEntry(text: string, file: string): Record<string, unknown> | null {
  return codexView(text, file).entry;
}

export function planCodexInstall(text: string, wanted: Record<string, unknown>, file: string): TomlEntryChange {
  const view = codexView(text, file);
  const { doc, block, entry } = view;
  if (block !== null) {
    if (sameValue(entry, mergedEntry(entry, wanted))) return { after: text, before: entry };
    return { after: applyEdits(text, tendTableEdits(text, doc.eol, view.blockStatements, TEND_PATH, wanted)), before: entry };
  }
  const table = tableText(wanted, doc.eol);
  if (view.serversInline !== null) {
    throw new SettingsShapeError(`${file} line ${view.serversInline.line} writes ${SERVERS_KEY} as an inline table ({…}), to which no [${TEND_PATH.join('.')}] table can be added: write your servers as [${SERVERS_KEY}.NAME] tables, or add tend's entry by hand`);
  }
  const contentEnd = lastContentEnd(doc, text.length);
  if (contentEnd === null) {
    const bom = text.startsWith('\uFEFF') ? 1 : 0;
    return { after: text.slice(0, bom) + table + doc.eol + text.slice(bom), before: null };
  }
  return { after: text.slice(0, contentEnd) + doc.eol + doc.eol + table + text.slice(contentEnd), before: null };
}

export function planCodexUninstall(text: string, file: string): TomlEntryChange {
  const { doc, block, entry } = codexView(text, file);
  if (block === null) return { after: text, before: null };
  const before = lastContentEnd(doc, block.start);
  if (before !== null) return { after: text.slice(0, before) + text.slice(block.end), before: entry };
  // The first thing in the file: its line goes with it.
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const lineStart = Math.max(bom, text.lastIndexOf('\n', block.start - 1) + 1);
  let cut = block.end;
  if (text.startsWith('\r\n', cut)) cut += 2;
  else if (text[cut] === '\n') cut += 1;
  return { after: text.slice(0, lineStart) + text.slice(cut), before: entry };
}

/** The table as tend writes it: its own keys, then each table-valued key as a sub-table. */
export function tableText(entry: Record<string, unknown>, eol: string): string {
  const lines = [`[${TEND_PATH.map(tomlKey).join('.')}]`];
  const tables: Array<[string, Record<string, unknown>]> = [];
  for (const [key, value] of Object.entries(entry)) {
    if (isPlainObject(value)) tables.push([key, value]);
    else lines.push(`${tomlKey(key)} = ${tomlValueText(value)}`);
  }
  for (const [key, table] of tables) {
    lines.push('', `[${[...TEND_PATH, key].map(tomlKey).join('.')}]`);
    for (const [k, v] of Object.entries(table)) lines.push(`${tomlKey(k)} = ${tomlValueText(v)}`);
  }
  return lines.join(eol);
}

function codexView(text: string, file: string): CodexView {
  const doc = readTomlDocument(text);
  const refuse = (start: number, form: string): never => {
    const { line } = lineAndColumn(text, start);
    const shown = text.slice(start, text.indexOf('\n', start) === -1 ? undefined : text.indexOf('\n', start)).replace(/\r$/, '');
    throw new SettingsShapeError(`${file} line ${line} defines tend's MCP server as ${form} (${shortened(shown)}), a form tend will not edit: write it as one [${TEND_PATH.join('.')}] table, or take it out, then run this again`);
  };
  let block: { start: number; end: number } | null = null;
  const blockStatements: TomlStatement[] = [];
  let inBlock = false;
  let entry: Record<string, TomlValue> | null = null;
  let serversInline: { line: number } | null = null;
  for (const st of doc.statements) {
    if (st.kind !== 'pair') {
      const tends = startsWith(st.path, TEND_PATH);
      if (tends && st.kind === 'array-table') refuse(st.start, 'an array of tables');
      if (tends && st.path.length === TEND_PATH.length) {
        if (block !== null) refuse(st.start, 'a second [mcp_servers.tend] table');
        block = { start: st.start, end: st.end };
        blockStatements.push(st);
        entry = {};
        inBlock = true;
      } else if (tends) {
        if (!inBlock) refuse(st.start, 'a table apart from its [mcp_servers.tend] table');
        block!.end = st.end;
        blockStatements.push(st);
        setPath(entry!, st.path.slice(TEND_PATH.length), {});
      } else {
        inBlock = false;
      }
      continue;
    }
    const path = [...st.table, ...st.key];
    if (inBlock) {
      block!.end = st.end;
      blockStatements.push(st);
      setPath(entry!, path.slice(TEND_PATH.length), st.value);
      continue;
    }
    if (startsWith(path, TEND_PATH)) refuse(st.start, path.length === TEND_PATH.length ? 'an inline table' : 'dotted keys');
    if (path.length === 1 && path[0] === SERVERS_KEY) {
      const value = st.value;
      if (isPlainObject(value) && MCP_SERVER_NAME in value) refuse(st.start, `a member of an inline ${SERVERS_KEY} table`);
      serversInline = { line: lineAndColumn(text, st.start).line };
    }
  }
  return { doc, block, blockStatements, entry, serversInline };
}

/** The end of the last statement or comment that ends at or before `limit`; null when there is none. */
function lastContentEnd(doc: TomlDocument, limit: number): number | null {
  let end: number | null = null;
  for (const item of [...doc.statements, ...doc.comments]) if (item.end <= limit && (end === null || item.end > end)) end = item.end;
  return end;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return path.length >= prefix.length && prefix.every((p, i) => path[i] === p);
}

function shortened(line: string): string {
  const MAX_SHOWN_CHARS = 60;
  return line.length > MAX_SHOWN_CHARS ? `${line.slice(0, MAX_SHOWN_CHARS)}…` : line;
}
