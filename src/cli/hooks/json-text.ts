// JSON text read as a tree of spans: every value knows where it starts and
// ends in the text, so tend can edit a person's settings file in place (add
// an entry, take one out) instead of re-serializing it, and their layout,
// key order and number spellings stay as they wrote them. A recursive
// descent parser of strict JSON (RFC 8259); a comment or a trailing comma
// is refused with its line and column, because tend will not rewrite a file
// whose comments it would have to keep by guesswork.

export interface JsonSpan {
  /** Offset of the value's first character in the text (UTF-16 units, as JS strings count). */
  start: number;
  /** Offset just past its last character. */
  end: number;
}

export interface JsonObjectNode extends JsonSpan {
  kind: 'object';
  members: JsonMember[];
}

export interface JsonMember {
  key: string;
  /** Offset of the key's opening quote: where the member starts. */
  keyStart: number;
  /** Offset just past the key's closing quote. */
  keyEnd: number;
  value: JsonNode;
}

export interface JsonArrayNode extends JsonSpan {
  kind: 'array';
  items: JsonNode[];
}

export interface JsonScalarNode extends JsonSpan {
  kind: 'string' | 'number' | 'boolean' | 'null';
  value: string | number | boolean | null;
}

export type JsonNode = JsonObjectNode | JsonArrayNode | JsonScalarNode;

/** Why a text is not JSON tend will edit: plain bad syntax, or JSON with comments (JSONC). */
export type JsonTextProblem = 'syntax' | 'comment' | 'too-deep';

export class JsonTextError extends Error {
  constructor(
    readonly problem: JsonTextProblem,
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${detail} at line ${line}, column ${column}`);
  }
}

/** Nesting deeper than this is refused rather than recursed into (a settings file is a few levels deep). */
const MAX_DEPTH = 256;
const BYTE_ORDER_MARK = '\uFEFF';
const NUMBER_PATTERN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: ReadonlyArray<[string, boolean | null]> = [['true', true], ['false', false], ['null', null]];

/** The value the text holds, as spans; throws JsonTextError. A text of only white space has no value: null. */
export function parseJsonText(text: string): JsonNode | null {
  const reader = new JsonReader(text);
  reader.skipSpace();
  if (reader.atEnd()) return null;
  const value = reader.value(0);
  reader.skipSpace();
  if (!reader.atEnd()) reader.fail('syntax', 'unexpected text after the end of the JSON value');
  return value;
}

/** 1-based line and column of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class JsonReader {
  private at = 0;

  constructor(private readonly text: string) {
    if (text.startsWith(BYTE_ORDER_MARK)) this.at = 1;
  }

  atEnd(): boolean {
    return this.at >= this.text.length;
  }

  fail(problem: JsonTextProblem, detail: string, offset = this.at): never {
    const { line, column } = lineAndColumn(this.text, offset);
    throw new JsonTextError(problem, detail, line, column);
  }

  skipSpace(): void {
    const text = this.text;
    while (this.at < text.length) {
      const c = text[this.at];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.at++;
      else if (c === '/' && (text[this.at + 1] === '/' || text[this.at + 1] === '*')) this.fail('comment', 'a comment');
      else return;
    }
  }

  value(depth: number): JsonNode {
    if (depth > MAX_DEPTH) this.fail('too-deep', `values nested more than ${MAX_DEPTH} deep`);
    const c = this.text[this.at];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        const start = this.at;
        this.at += word.length;
        return { kind: value === null ? 'null' : 'boolean', value, start, end: this.at };
      }
    }
    return this.fail('syntax', c === undefined ? 'the text ends where a value should be' : `unexpected ${describeChar(c)} where a value should be`);
  }

  private object(depth: number): JsonObjectNode {
    const start = this.at++;
    const members: JsonMember[] = [];
    this.skipSpace();
    if (this.text[this.at] === '}') return { kind: 'object', members, start, end: ++this.at };
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] !== '"') {
        if (this.text[this.at] === '}' && members.length > 0) this.fail('syntax', 'a trailing comma before }');
        this.fail('syntax', `expected a key in quotes, found ${this.found()}`);
      }
      const key = this.string();
      this.skipSpace();
      if (this.text[this.at] !== ':') this.fail('syntax', `expected : after the key "${String(key.value)}", found ${this.found()}`);
      this.at++;
      this.skipSpace();
      members.push({ key: key.value as string, keyStart: key.start, keyEnd: key.end, value: this.value(depth + 1) });
      this.skipSpace();
      const c = this.text[this.at];
      if (c === ',') {
        this.at++;
        continue;
      }
      if (c === '}') return { kind: 'object', members, start, end: ++this.at };
      this.fail('syntax', `expected , or } after a member, found ${this.found()}`);
    }
  }

  private array(depth: number): JsonArrayNode {
    const start = this.at++;
    const items: JsonNode[] = [];
    this.skipSpace();
    if (this.text[this.at] === ']') return { kind: 'array', items, start, end: ++this.at };
    for (;;) {
      this.skipSpace();
      if (this.text[this.at] === ']' && items.length > 0) this.fail('syntax', 'a trailing comma before ]');
      items.push(this.value(depth + 1));
      this.skipSpace();
      const c = this.text[this.at];
      if (c === ',') {
        this.at++;
        continue;
      }
      if (c === ']') return { kind: 'array', items, start, end: ++this.at };
      this.fail('syntax', `expected , or ] after an item, found ${this.found()}`);
    }
  }

  private string(): JsonScalarNode {
    const start = this.at++;
    const text = this.text;
    while (this.at < text.length) {
      const c = text.charCodeAt(this.at);
      if (c === 0x22) {
        this.at++;
        return { kind: 'string', value: JSON.parse(text.slice(start, this.at)) as string, start, end: this.at };
      }
      if (c < 0x20) this.fail('syntax', 'a control character (such as a line break) inside a string');
      if (c === 0x5c) {
        const escaped = text[this.at + 1];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.at + 2, this.at + 6))) this.fail('syntax', 'a \\u escape without four hex digits');
          this.at += 6;
          continue;
        }
        if (escaped === undefined || !'"\\/bfnrt'.includes(escaped)) this.fail('syntax', 'an unknown escape in a string');
        this.at += 2;
        continue;
      }
      this.at++;
    }
    return this.fail('syntax', 'a string that never ends', start);
  }

  private number(): JsonScalarNode {
    NUMBER_PATTERN.lastIndex = this.at;
    const match = NUMBER_PATTERN.exec(this.text);
    if (match === null) this.fail('syntax', `a malformed number`);
    const start = this.at;
    this.at += match[0].length;
    return { kind: 'number', value: Number(match[0]), start, end: this.at };
  }

  private found(): string {
    const c = this.text[this.at];
    return c === undefined ? 'the end of the text' : describeChar(c);
  }
}

function describeChar(c: string): string {
  if (c === '\n' || c === '\r') return 'a line break';
  if (c === "'") return "' (JSON strings take double quotes)";
  return JSON.stringify(c);
}
