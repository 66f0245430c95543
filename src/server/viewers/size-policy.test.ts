import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SizePolicy, type TerminalSize } from './size-policy.js';

function policy() {
  const applied: TerminalSize[] = [];
  const p = new SizePolicy<string>({ apply: (s) => applied.push(s) });
  return { p, applied };
}

describe('SizePolicy', () => {
  test('a viewer that attaches gives the PTY its size', () => {
    const { p, applied } = policy();
    p.join('a', { cols: 80, rows: 24, readOnly: false });
    assert.deepEqual(applied, [{ cols: 80, rows: 24 }]);
    assert.deepEqual(p.current, { cols: 80, rows: 24 });
  });

  test('the viewer that most recently typed sets the size', () => {
    const { p, applied } = policy();
    p.join('a', { cols: 80, rows: 24, readOnly: false });
    p.join('b', { cols: 120, rows: 40, readOnly: false });
    p.input('a');
    p.input('a'); // same size again: not applied twice
    p.input('b');
    assert.deepEqual(applied, [
      { cols: 80, rows: 24 },
      { cols: 120, rows: 40 },
      { cols: 80, rows: 24 },
      { cols: 120, rows: 40 },
    ]);
  });

  test('a resize makes that viewer the latest', () => {
    const { p } = policy();
    p.join('a', { cols: 80, rows: 24, readOnly: false });
    p.join('b', { cols: 120, rows: 40, readOnly: false });
    p.resize('a', { cols: 100, rows: 30 });
    assert.deepEqual(p.current, { cols: 100, rows: 30 });
  });

  test('read-only viewers never change the size', () => {
    const { p, applied } = policy();
    p.join('w', { cols: 80, rows: 24, readOnly: false });
    p.join('r', { cols: 200, rows: 60, readOnly: true });
    p.input('r');
    p.resize('r', { cols: 10, rows: 5 });
    p.leave('w');
    assert.deepEqual(applied, [{ cols: 80, rows: 24 }]);
  });

  test('when the latest viewer leaves, the next most recent one applies', () => {
    const { p } = policy();
    p.join('a', { cols: 80, rows: 24, readOnly: false });
    p.join('b', { cols: 100, rows: 30, readOnly: false });
    p.join('c', { cols: 120, rows: 40, readOnly: false });
    p.input('a');
    p.input('c');
    p.leave('c');
    assert.deepEqual(p.current, { cols: 80, rows: 24 }, 'a typed after b joined');
    p.leave('a');
    assert.deepEqual(p.current, { cols: 100, rows: 30 });
  });

  test('with no viewer left the PTY keeps its last size', () => {
    const { p, applied } = policy();
    p.join('a', { cols: 80, rows: 24, readOnly: false });
    p.leave('a');
    assert.deepEqual(p.current, { cols: 80, rows: 24 });
    assert.equal(applied.length, 1);
  });
});
