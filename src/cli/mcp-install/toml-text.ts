// A TOML text read as a list of statements with their places, so tend can
// find one table of a person's config.toml and replace or take out exactly
// its lines, every other byte kept. It reads what TOML allows (every kind of
// string, multi-line arrays and inline tables, comments anywhere they may
// be) well enough never to take a line inside a string or an array for a
// table header; values are read into plain values (a date or time stays its
// text). It does not check what a TOML reader checks beyond that (a table
// defined twice, a key given twice): Codex does, and tend edits only the
// lines of its own table.
import { lineAndColumn } from '../hooks/json-text.js';

export interface TomlTableHeader {
  kind: 'table' | 'array-table';
  path: string[];
  /** Offset of its "[". */
  start: number;
  /** Offset just past its "]" and any comment after it on its line (its line break not included). */
  end: number;
}

export interface TomlPair {
  kind: 'pair';
  /** The table it is in (the last header's path; [] at the root). */
  table: string[];
  /** Its key, dotted keys split. */
  key: string[];
  value: TomlValue;
  start: number;
  /** Offset just past its value (a multi-line value ends on a later line). */
  valueEnd: number;
  /** Offset just past its value and any comment after it. */
  end: number;
}

export type TomlStatement = TomlTableHeader | TomlPair;

/** A date, a time, or both, as written: tend compares it, never reads it. */
export interface TomlDateTime {
  datetime: string;
}

export type TomlValue = string | number | boolean | TomlDateTime | TomlValue[] | { [key: string]: TomlValue };

export interface TomlDocument {
  text: string;
  statements: TomlStatement[];
  /** Offsets just past each comment, each with the offset it starts at (comments on lines of their own included). */
  comments: Array<{ start: number; end: number }>;
  eol: '\n' | '\r\n';
}

export class TomlTextError extends Error {
  constructor(
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${detail} at line ${line}, column ${column}`);
  }
}

const BYTE_ORDER_MARK = '\uFEFF';
/** Arrays and inline tables nested deeper than this are refused rather than recursed into. */
const MAX_DEPTH = 128;
const BARE_KEY = /[A-Za-z0-9_-]+/y;
const SCALAR = /[A-Za-z0-9_+\-.:]+/y;
const LINE_END_BACKSLASH = /\\[ \t]*\r?\n[ \t\r\n]*/y;
const INTEGER = /^[+-]?(?:0|[1-9](?:_?\d)*)$/;
const RADIX_INTEGER = /^0(?:x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|o[0-7](?:_?[0-7])*|b[01](?:_?[01])*)$/;
const FLOAT = /^[+-]?(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_FLOAT = /^[+-]?(?:inf|nan)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
const TIME = /^\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;
const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };

/** Reads the statements of a TOML text; throws TomlTextError where it is not TOML. */
export function readTomlDocument(text: string): TomlDocument {
  const reader = new TomlReader(text);
  reader.document();
  return { text, statements: reader.statements, comments: reader.comments, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

class TomlReader {
  readonly statements: TomlStatement[] = [];
  readonly comments: Array<{ start: number; end: number }> = [];
  private at = 0;
  private table: string[] = [];

  constructor(private readonly text: string) {
    if (text.startsWith(BYTE_ORDER_MARK)) this.at = 1;
  }

  document(): void {
    for (;;) {
      this.skipBlank();
      if (this.at >= this.text.length) return;
      const c = this.text[this.at]!;
      if (c === '#') this.comment();
      else if (c === '\n' || c === '\r') this.newline();
      else {
        if (c === '[') this.header();
        else this.pair();
        this.lineEnd();
      }
    }
  }

  private fail(detail: string, offset = this.at): never {
    const { line, column } = lineAndColumn(this.text, offset);
    throw new TomlTextError(detail, line, column);
  }

  private skipBlank(): void {
    while (this.text[this.at] === ' ' || this.text[this.at] === '\t') this.at++;
  }

  /** Blanks, line breaks and comments, as may come between the items of an array. */
  private skipSpace(): void {
    for (;;) {
      this.skipBlank();
      const c = this.text[this.at];
      if (c === '#') this.comment();
      else if (c === '\n' || c === '\r') this.newline();
      else return;
    }
  }

  private comment(): void {
    const start = this.at;
    while (this.at < this.text.length && this.text[this.at] !== '\n' && !(this.text[this.at] === '\r' && this.text[this.at + 1] === '\n')) this.at++;
    this.comments.push({ start, end: this.at });
  }

  private newline(): void {
    if (this.text[this.at] === '\n') this.at++;
    else if (this.text.startsWith('\r\n', this.at)) this.at += 2;
    else this.fail('a carriage return without a line feed');
  }

  /** After a statement: blanks, a comment, then the end of the line or of the text. */
  private lineEnd(): void {
    this.skipBlank();
    if (this.text[this.at] === '#') this.comment();
    const last = this.statements.at(-1)!;
    last.end = this.at;
    if (this.at < this.text.length) {
      const c = this.text[this.at]!;
      if (c !== '\n' && c !== '\r') this.fail(`found ${describe(c)} after a ${last.kind === 'pair' ? 'value' : 'table header'} (one statement a line)`);
      this.newline();
    }
  }

  private header(): void {
    const start = this.at;
    const array = this.text.startsWith('[[', this.at);
    this.at += array ? 2 : 1;
    this.skipBlank();
    const path = this.key();
    this.skipBlank();
    const close = array ? ']]' : ']';
    if (!this.text.startsWith(close, this.at)) this.fail(`expected ${close} to close the table header`);
    this.at += close.length;
    this.table = path;
    this.statements.push({ kind: array ? 'array-table' : 'table', path, start, end: this.at });
  }

  private pair(): void {
    const start = this.at;
    const key = this.key();
    this.skipBlank();
    if (this.text[this.at] !== '=') this.fail(`expected = after the key ${key.join('.')}`);
    this.at++;
    this.skipBlank();
    const value = this.value(0);
    this.statements.push({ kind: 'pair', table: this.table, key, value, start, valueEnd: this.at, end: this.at });
  }

  /** A key: simple keys joined by dots (blanks allowed around them). */
  private key(): string[] {
    const parts = [this.simpleKey()];
    for (;;) {
      const save = this.at;
      this.skipBlank();
      if (this.text[this.at] !== '.') {
        this.at = save;
        return parts;
      }
      this.at++;
      this.skipBlank();
      parts.push(this.simpleKey());
    }
  }

  private simpleKey(): string {
    const c = this.text[this.at];
    if (c === '"' && !this.text.startsWith('"""', this.at)) return this.basicString();
    if (c === "'" && !this.text.startsWith("'''", this.at)) return this.literalString();
    BARE_KEY.lastIndex = this.at;
    const match = BARE_KEY.exec(this.text);
    if (match === null) this.fail(c === undefined || c === '\n' || c === '\r' ? 'a key is missing' : `found ${describe(c)} where a key should be`);
    this.at += match[0].length;
    return match[0];
  }

  private value(depth: number): TomlValue {
    if (depth > MAX_DEPTH) this.fail(`values nested more than ${MAX_DEPTH} deep`);
    const c = this.text[this.at];
    if (c === '"') return this.text.startsWith('"""', this.at) ? this.multiLineBasicString() : this.basicString();
    if (c === "'") return this.text.startsWith("'''", this.at) ? this.multiLineLiteralString() : this.literalString();
    if (c === '[') return this.array(depth);
    if (c === '{') return this.inlineTable(depth);
    return this.scalar();
  }

  private basicString(): string {
    const start = this.at++;
    let out = '';
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined || c === '\n' || c === '\r') this.fail('a string that does not end on its line', start);
      if (c === '"') {
        this.at++;
        return out;
      }
      if (c === '\\') out += this.escape();
      else {
        out += c;
        this.at++;
      }
    }
  }

  private multiLineBasicString(): string {
    const start = this.at;
    this.at += 3;
    this.skipFirstNewline();
    let out = '';
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) this.fail('a """ string that never ends', start);
      if (c === '"' && this.text.startsWith('"""', this.at)) return out + this.closingQuotes('"');
      if (c === '\\') {
        // A backslash at the end of a line joins the next non-blank text to this.
        LINE_END_BACKSLASH.lastIndex = this.at;
        const rest = LINE_END_BACKSLASH.exec(this.text);
        if (rest !== null) this.at += rest[0].length;
        else out += this.escape();
      } else {
        out += c;
        this.at++;
      }
    }
  }

  private literalString(): string {
    const start = this.at++;
    const end = this.text.indexOf("'", this.at);
    const lineBreak = this.text.slice(this.at, end === -1 ? undefined : end).search(/[\r\n]/);
    if (end === -1 || lineBreak !== -1) this.fail('a string that does not end on its line', start);
    const out = this.text.slice(this.at, end);
    this.at = end + 1;
    return out;
  }

  private multiLineLiteralString(): string {
    const start = this.at;
    this.at += 3;
    this.skipFirstNewline();
    const end = this.text.indexOf("'''", this.at);
    if (end === -1) this.fail("a ''' string that never ends", start);
    const out = this.text.slice(this.at, end);
    this.at = end;
    return out + this.closingQuotes("'");
  }

  private skipFirstNewline(): void {
    if (this.text[this.at] === '\n') this.at++;
    else if (this.text.startsWith('\r\n', this.at)) this.at += 2;
  }

  /** At a run of three to five quotes: the ones past three belong to the string. */
  private closingQuotes(quote: string): string {
    let n = 0;
    while (this.text[this.at + n] === quote) n++;
    if (n > 5) this.fail('too many quotes at the end of a string');
    this.at += n;
    return quote.repeat(n - 3);
  }

  private escape(): string {
    const at = this.at;
    const c = this.text[at + 1];
    if (c !== undefined && c in ESCAPES) {
      this.at += 2;
      return ESCAPES[c]!;
    }
    const width = c === 'u' ? 4 : c === 'U' ? 8 : c === 'x' ? 2 : 0;
    const hex = this.text.slice(at + 2, at + 2 + width);
    if (width === 0 || !new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) this.fail('an escape TOML does not know', at);
    const code = parseInt(hex, 16);
    if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail('an escape that is not a Unicode scalar value', at);
    this.at += 2 + width;
    return String.fromCodePoint(code);
  }

  private array(depth: number): TomlValue[] {
    const start = this.at++;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] === ']') {
        this.at++;
        return items;
      }
      if (this.at >= this.text.length) this.fail('an array that never ends', start);
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.at >= this.text.length) this.fail('an array that never ends', start);
      const c = this.text[this.at];
      if (c === ',') this.at++;
      else if (c !== ']') this.fail(`expected , or ] after an item of the array, found ${describe(c)}`);
    }
  }

  /** { key = value, … }: on one line in TOML 1.0; line breaks and a trailing comma (TOML 1.1) are read too. */
  private inlineTable(depth: number): { [key: string]: TomlValue } {
    const start = this.at++;
    const table: { [key: string]: TomlValue } = {};
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] === '}') {
        this.at++;
        return table;
      }
      if (this.at >= this.text.length) this.fail('an inline table that never ends', start);
      const key = this.key();
      this.skipBlank();
      if (this.text[this.at] !== '=') this.fail(`expected = after the key ${key.join('.')}`);
      this.at++;
      this.skipBlank();
      setPath(table, key, this.value(depth + 1));
      this.skipSpace();
      if (this.at >= this.text.length) this.fail('an inline table that never ends', start);
      const c = this.text[this.at];
      if (c === ',') this.at++;
      else if (c !== '}') this.fail(`expected , or } after a member of the inline table, found ${describe(c)}`);
    }
  }

  private scalar(): TomlValue {
    const start = this.at;
    SCALAR.lastIndex = this.at;
    const match = SCALAR.exec(this.text);
    if (match === null) this.fail(`found ${describe(this.text[this.at])} where a value should be`);
    let word = match[0];
    this.at += word.length;
    // A date and a time may be parted by a space: 1979-05-27 07:32:00Z.
    if (DATE.test(word) && this.text[this.at] === ' ' && /^\d{2}:/.test(this.text.slice(this.at + 1, this.at + 4))) {
      SCALAR.lastIndex = this.at + 1;
      const time = SCALAR.exec(this.text)![0];
      word += ` ${time}`;
      this.at += 1 + time.length;
    }
    if (word === 'true' || word === 'false') return word === 'true';
    if (INTEGER.test(word)) return Number(word.replaceAll('_', ''));
    if (RADIX_INTEGER.test(word)) return Number(word.replaceAll('_', ''));
    if (FLOAT.test(word)) return Number(word.replaceAll('_', ''));
    if (SPECIAL_FLOAT.test(word)) return word.endsWith('nan') ? NaN : word.startsWith('-') ? -Infinity : Infinity;
    if (DATE_TIME.test(word) || TIME.test(word)) return { datetime: word };
    return this.fail(`"${word}" is not a TOML value (a string needs quotes)`, start);
  }
}

/** Sets a dotted key's value in a table, making the tables on the way. */
export function setPath(table: { [key: string]: TomlValue }, path: readonly string[], value: TomlValue): void {
  let at = table;
  for (const part of path.slice(0, -1)) {
    const next = at[part];
    if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next) || 'datetime' in next) at[part] = {};
    at = at[part] as { [key: string]: TomlValue };
  }
  at[path.at(-1)!] = value;
}

function describe(c: string | undefined): string {
  if (c === undefined) return 'the end of the text';
  if (c === '\n' || c === '\r') return 'a line break';
  return JSON.stringify(c);
}

/** A string as a TOML basic string: quoted, with what must be escaped escaped. */
export function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A key as TOML writes it: bare when it may be, else quoted. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** A value as TOML writes it on one line: strings quoted, tables inline, a date or time as it was read. */
export function tomlValueText(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValueText).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && entries[0]![0] === 'datetime' && typeof entries[0]![1] === 'string') return entries[0]![1];
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValueText(v)}`).join(', ')} }`;
  }
  throw new Error(`TOML has no ${String(value)}`);
}
