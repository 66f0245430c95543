// The edits that set tend's fields in a [mcp_servers.tend] table that is
// already there, line by line: a key of tend's whose value differs gets its
// line rewritten, a missing one a line after the table's last key, and
// TEND_HOME / TEND_RUNTIME_DIR in its env (a sub-table, dotted env.KEY
// keys, or an inline table) are set or taken out. Every other line stays as
// its owner (or Codex, which keeps a person's tool approvals in this table)
// wrote it, and a comment after a rewritten value stays after it. Read
// back, the table is mergedEntry(found, wanted).
import type { TextEdit } from '../hooks/json-edit.js';
import { isPlainObject, sameValue, TEND_ENV_KEYS } from './tend-mcp-entry.js';
import { tomlKey, tomlValueText, type TomlPair, type TomlStatement } from './toml-text.js';

/** `statements` are the table's, its header first, in the order of the text. */
export function tendTableEdits(text: string, eol: string, statements: readonly TomlStatement[], tablePath: readonly string[], wanted: Record<string, unknown>): TextEdit[] {
  const pairsIn = (path: readonly string[]) => statements.filter((st): st is TomlPair => st.kind === 'pair' && samePath(st.table, path));
  const top = pairsIn(tablePath);
  const envPath = [...tablePath, 'env'];
  const edits: TextEdit[] = [];
  const line = (key: readonly string[], value: unknown) => `${key.map(tomlKey).join('.')} = ${tomlValueText(value)}`;
  const insertAfter = (st: TomlStatement, lines: string[]): TextEdit => ({ start: st.end, end: st.end, text: lines.map((l) => eol + l).join('') });
  const removeLine = (st: TomlStatement): TextEdit => {
    const eolAfter = text.startsWith('\r\n', st.end) ? 2 : text[st.end] === '\n' ? 1 : 0;
    return { start: text.lastIndexOf('\n', st.start - 1) + 1, end: st.end + eolAfter, text: '' };
  };

  // tend's own keys of the table, env apart.
  const missing: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    if (key === 'env') continue;
    const st = top.find((p) => samePath(p.key, [key]));
    if (st === undefined) missing.push(line([key], value));
    else if (!sameValue(st.value, value)) edits.push({ start: st.start, end: st.valueEnd, text: line([key], value) });
  }
  const lastOwnKey = top.filter((p) => p.key[0] !== 'env').at(-1) ?? statements[0]!;
  if (missing.length > 0) edits.push(insertAfter(lastOwnKey, missing));

  // TEND_HOME and TEND_RUNTIME_DIR in its env, in whatever form the env has.
  const wantedEnv = (isPlainObject(wanted.env) ? wanted.env : {}) as Record<string, unknown>;
  const inline = top.find((p) => samePath(p.key, ['env']));
  const envHeader = statements.find((st) => st.kind === 'table' && samePath(st.path, envPath));
  const dotted = top.filter((p) => p.key.length === 2 && p.key[0] === 'env');
  if (inline !== undefined) {
    let env: unknown = inline.value;
    if (isPlainObject(env)) env = { ...Object.fromEntries(Object.entries(env).filter(([k]) => !TEND_ENV_KEYS.includes(k))), ...wantedEnv };
    else if ('env' in wanted) env = wantedEnv;
    if (!sameValue(inline.value, env)) edits.push({ start: inline.start, end: inline.valueEnd, text: line(['env'], env) });
  } else if (envHeader !== undefined || dotted.length > 0) {
    const pairs = envHeader !== undefined ? pairsIn(envPath) : dotted;
    const prefix = envHeader !== undefined ? [] : ['env'];
    const anchor = pairs.at(-1) ?? envHeader!;
    const pending: string[] = [];
    const unwanted: TomlPair[] = [];
    for (const name of TEND_ENV_KEYS) {
      const st = pairs.find((p) => samePath(p.key, [...prefix, name]));
      if (name in wantedEnv) {
        if (st === undefined) pending.push(line([...prefix, name], wantedEnv[name]));
        else if (!sameValue(st.value, wantedEnv[name])) edits.push({ start: st.start, end: st.valueEnd, text: line([...prefix, name], wantedEnv[name]) });
      } else if (st !== undefined) {
        unwanted.push(st);
      }
    }
    // A line taken out gives its place to one put in, so no insertion lands inside a removed line.
    while (pending.length > 0 && unwanted.length > 0) {
      const st = unwanted.shift()!;
      edits.push({ start: st.start, end: st.end, text: pending.shift()! });
    }
    edits.push(...unwanted.map(removeLine));
    if (pending.length > 0) edits.push(insertAfter(anchor, pending));
  } else if (Object.keys(wantedEnv).length > 0) {
    const header = `[${envPath.map(tomlKey).join('.')}]`;
    edits.push(insertAfter(statements.at(-1)!, ['', header, ...Object.entries(wantedEnv).map(([k, v]) => line([k], v))]));
  }
  return edits;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}
