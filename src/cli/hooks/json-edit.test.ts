import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendItems, appendMembers, applyEdits, readJsonDocument, removeItems, removeMembers, replaceValue } from './json-edit.js';
import type { JsonArrayNode, JsonNode, JsonObjectNode } from './json-text.js';

function object(node: JsonNode | null | undefined): JsonObjectNode {
  assert.equal(node?.kind, 'object');
  return node as JsonObjectNode;
}

function array(node: JsonNode | null | undefined): JsonArrayNode {
  assert.equal(node?.kind, 'array');
  return node as JsonArrayNode;
}

function append(text: string, members: Array<[string, unknown]>): string {
  const doc = readJsonDocument(text);
  return applyEdits(text, [appendMembers(doc, object(doc.root), members)]);
}

function removeLast(text: string, count: number): string {
  const root = object(readJsonDocument(text).root);
  const n = root.members.length;
  return applyEdits(text, removeMembers(root, Array.from({ length: count }, (_, i) => n - 1 - i)));
}

test('members appended after the last one take its indent and the file\'s unit, and taking them out gives back the bytes', () => {
  const text = '{\n    "a": 1,\n    "b": [true]\n}';
  const after = append(text, [['c', { d: [1] }], ['e', null]]);
  assert.equal(after, '{\n    "a": 1,\n    "b": [true],\n    "c": {\n        "d": [\n            1\n        ]\n    },\n    "e": null\n}');
  assert.equal(removeLast(after, 2), text);
});

test('a minified file stays on one line, with its own spacing', () => {
  const tight = '{"a":1,"b":2}';
  assert.equal(append(tight, [['c', { d: [1, 2] }]]), '{"a":1,"b":2,"c":{"d":[1,2]}}');
  assert.equal(append('{"a": 1, "b": 2}', [['c', [1, 2]]]), '{"a": 1, "b": 2, "c": [1, 2]}');
  assert.equal(removeLast('{"a":1,"b":2,"c":{"d":[1,2]}}', 1), tight);
});

test('an empty object in a file of several lines opens onto lines of its own, at its line\'s indent', () => {
  const text = '{\r\n\t"x": 1,\r\n\t"hooks": {}\r\n}\r\n';
  const doc = readJsonDocument(text);
  const hooks = object(object(doc.root).members[1]!.value);
  assert.equal(applyEdits(text, [appendMembers(doc, hooks, [['Stop', []]])]), '{\r\n\t"x": 1,\r\n\t"hooks": {\r\n\t\t"Stop": []\r\n\t}\r\n}\r\n');
  assert.equal(append('{}\n', [['a', 1]]), '{\n  "a": 1\n}\n', 'an empty file-root opens with 2 spaces');
});

test('items are appended to an array in its layout, and taken out from the middle, the end, or all of it', () => {
  const text = '[\n  1,\n  2,\n  3,\n  4\n]';
  const doc = readJsonDocument(text);
  const root = array(doc.root);
  assert.equal(applyEdits(text, [appendItems(doc, root, [{ a: 1 }])]), '[\n  1,\n  2,\n  3,\n  4,\n  {\n    "a": 1\n  }\n]');
  assert.equal(applyEdits(text, removeItems(root, [1])), '[\n  1,\n  3,\n  4\n]');
  assert.equal(applyEdits(text, removeItems(root, [0, 1, 3])), '[\n  3\n]');
  assert.equal(applyEdits(text, removeItems(root, [2, 3])), '[\n  1,\n  2\n]');
  assert.equal(applyEdits(text, removeItems(root, [0, 1, 2, 3])), '[]');
  const inline = '{"hooks": [{"type": "command"}]}';
  const inlineDoc = readJsonDocument(inline);
  const hooks = array(object(inlineDoc.root).members[0]!.value);
  const grown = applyEdits(inline, [appendItems(inlineDoc, hooks, [{ type: 'x' }])]);
  assert.equal(grown, '{"hooks": [{"type": "command"}, {"type": "x"}]}');
  assert.equal(applyEdits(grown, removeItems(array(object(readJsonDocument(grown).root).members[0]!.value), [1])), inline);
});

test('a scalar is replaced in place, and overlapping edits are refused', () => {
  const text = '{ "command" : "old" , "n": 1 }';
  const doc = readJsonDocument(text);
  const command = object(doc.root).members[0]!.value;
  assert.equal(applyEdits(text, [replaceValue(command, 'new "one"')]), '{ "command" : "new \\"one\\"" , "n": 1 }');
  assert.throws(() => applyEdits(text, [{ start: 2, end: 10, text: '' }, { start: 5, end: 6, text: '' }]), /overlapping/);
});
