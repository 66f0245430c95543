import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonTextError, parseJsonText, type JsonObjectNode } from './json-text.js';

function problem(text: string): JsonTextError {
  try {
    parseJsonText(text);
  } catch (err) {
    assert.ok(err instanceof JsonTextError, String(err));
    return err;
  }
  assert.fail(`${JSON.stringify(text)} parsed`);
}

test('values come back with their spans and the values JSON.parse gives', () => {
  const text = '\uFEFF{ "a\\n": [1.5e3, -0, true, null, "x\\u0041"], "a\\n": {} }';
  const root = parseJsonText(text) as JsonObjectNode;
  assert.equal(root.kind, 'object');
  assert.deepEqual([root.start, root.end], [1, text.length], 'a byte order mark is not part of the value');
  const first = root.members[0]!;
  assert.equal(first.key, 'a\n');
  assert.equal(text.slice(first.keyStart, first.keyEnd), '"a\\n"');
  assert.equal(first.value.kind, 'array');
  if (first.value.kind !== 'array') return;
  assert.deepEqual(first.value.items.map((v) => (v.kind === 'array' || v.kind === 'object' ? null : v.value)), [1500, -0, true, null, 'xA']);
  assert.deepEqual(first.value.items.map((v) => text.slice(v.start, v.end)), ['1.5e3', '-0', 'true', 'null', '"x\\u0041"']);
  assert.equal(root.members.length, 2, 'a key given twice is kept twice; readers take the last');
  assert.equal(parseJsonText(' \n\t'), null);
});

test('what is not JSON is refused with its line and column; comments are told apart', () => {
  const cases: Array<[string, JsonTextError['problem'], string, number, number]> = [
    ['{\n  "a": 1,\n}', 'syntax', 'a trailing comma before }', 3, 1],
    ['[1,]', 'syntax', 'a trailing comma before ]', 1, 4],
    ['{"a" 1}', 'syntax', 'expected : after the key "a", found "1"', 1, 6],
    ['{"a": 01}', 'syntax', 'expected , or } after a member, found "1"', 1, 8],
    ['{"a": "b\nc"}', 'syntax', 'a control character (such as a line break) inside a string', 1, 9],
    ['{"a": "\\x"}', 'syntax', 'an unknown escape in a string', 1, 8],
    ['{"a": tru}', 'syntax', 'unexpected "t" where a value should be', 1, 7],
    ['{"a": 1} x', 'syntax', 'unexpected text after the end of the JSON value', 1, 10],
    ['{"a": "b', 'syntax', 'a string that never ends', 1, 7],
    ['{\n  // why\n  "a": 1\n}', 'comment', 'a comment', 2, 3],
    ['{"a": 1 /* why */}', 'comment', 'a comment', 1, 9],
    ['['.repeat(300), 'too-deep', 'values nested more than 256 deep', 1, 258],
  ];
  for (const [text, kind, detail, line, column] of cases) {
    const err = problem(text);
    assert.deepEqual([err.problem, err.detail, err.line, err.column], [kind, detail, line, column], JSON.stringify(text));
  }
});
