import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTomlDocument, tomlString, TomlTextError, type TomlPair, type TomlStatement } from './toml-text.js';

const headers = (statements: TomlStatement[]) => statements.flatMap((s) => (s.kind === 'pair' ? [] : [`${s.kind}:${s.path.join('.')}`]));
const pairs = (statements: TomlStatement[]) => statements.filter((s): s is TomlPair => s.kind === 'pair');

test('a line inside a multi-line array, string or inline table is never read as a table header', () => {
  const text = [
    'model = "o3"',
    'args = [',
    '  "a", # a comment inside',
    '  ["b"],',
    '  [ "c" ]',
    ']',
    'doc = """',
    '[mcp_servers.tend]',
    'command = "not a key"',
    '"""',
    "raw = '''",
    '[[also.not]]',
    "'''",
    'env = { A = "1", B.c = 2 }',
    '[real]',
    'x = 1',
  ].join('\n');
  const doc = readTomlDocument(text);
  assert.deepEqual(headers(doc.statements), ['table:real']);
  const values = Object.fromEntries(pairs(doc.statements).map((p) => [p.key.join('.'), p.value]));
  assert.deepEqual(values.args, ['a', ['b'], ['c']]);
  assert.equal(values.doc, '[mcp_servers.tend]\ncommand = "not a key"\n');
  assert.equal(values.raw, '[[also.not]]\n');
  assert.deepEqual(values.env, { A: '1', B: { c: 2 } });
  assert.deepEqual(pairs(doc.statements).at(-1)!.table, ['real']);
});

test('keys: bare, quoted, literal and dotted with blanks around the dots; headers of tables and arrays of tables', () => {
  const doc = readTomlDocument('[ mcp_servers . "tend" ]\n"a b".\'c\' = true\n[[x.y]]\n');
  assert.deepEqual(headers(doc.statements), ['table:mcp_servers.tend', 'array-table:x.y']);
  assert.deepEqual(pairs(doc.statements)[0]!.key, ['a b', 'c']);
});

test('scalars: integers in every base, floats, booleans, and dates and times kept as written', () => {
  const doc = readTomlDocument('a = 1_000\nb = 0x1F\nc = -3.5e2\nd = inf\ne = false\nf = 1979-05-27 07:32:00Z\ng = 07:32:00\nh = 1979-05-27\n');
  const values = Object.fromEntries(pairs(doc.statements).map((p) => [p.key[0], p.value]));
  assert.deepEqual(values, { a: 1000, b: 31, c: -350, d: Infinity, e: false, f: { datetime: '1979-05-27 07:32:00Z' }, g: { datetime: '07:32:00' }, h: { datetime: '1979-05-27' } });
});

test('strings: escapes, a backslash that ends a line, and the quotes a multi-line string may end with', () => {
  const doc = readTomlDocument('a = "t\\tq\\"\\u00e9\\U0001F600"\nb = """\\\n    joined \\\n    here"""\nc = """two""""\nd = \'\'\'x\'\'\'\'\'\n');
  const values = Object.fromEntries(pairs(doc.statements).map((p) => [p.key[0], p.value]));
  assert.deepEqual(values, { a: 't\tq"é😀', b: 'joined here', c: 'two"', d: "x''" });
});

test('a statement ends at its comment; CRLF line ends are read', () => {
  const text = '[t]\r\nk = "v" # why\r\n# alone\r\n';
  const doc = readTomlDocument(text);
  const pair = pairs(doc.statements)[0]!;
  assert.equal(text.slice(pair.start, pair.end), 'k = "v" # why');
  assert.equal(doc.eol, '\r\n');
  assert.equal(doc.comments.length, 2);
});

test('what is not TOML is refused with its line and column', () => {
  const cases: Array<[string, RegExp, number]> = [
    ['a = "open\n', /does not end on its line/, 1],
    ['ok = 1\nb = bare words\n', /is not a TOML value/, 2],
    ['a = 1 b = 2\n', /after a value/, 1],
    ['x\n', /expected = after the key x/, 1],
    ['a = [1, 2\n', /array that never ends/, 1],
    ['[t\n', /expected \] to close/, 1],
    ['a = "\\q"\n', /escape TOML does not know/, 1],
  ];
  for (const [text, detail, line] of cases) {
    assert.throws(() => readTomlDocument(text), (err: unknown) => err instanceof TomlTextError && detail.test(err.detail) && err.line === line, text);
  }
});

test('tomlString writes any string so that reading it back gives the same string', () => {
  for (const s of ['/plain/path', 'with "quotes" and \\ back', 'tab\tnew\nline\r', 'ctl\x01\x7f', 'ünï 😀 code']) {
    const pair = pairs(readTomlDocument(`k = ${tomlString(s)}\n`).statements)[0]!;
    assert.equal(pair.value, s);
  }
});
