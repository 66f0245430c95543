import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LayoutError, MAX_LAYOUT_DEPTH, layoutSessions, parseLayout, pruneLayout, removeLeaf, splitLeaf, type LayoutNode } from './layout.js';

const leaf = (sessionId: string): LayoutNode => ({ type: 'session', sessionId });

describe('layout tree', () => {
  test('splitting a leaf puts the new session right of or below it, and the order reads left to right, top to bottom', () => {
    let tree = splitLeaf(leaf('a'), 'a', 'b', 'right');
    tree = splitLeaf(tree, 'a', 'c', 'down', 0.3);
    assert.deepEqual(tree, {
      type: 'split', direction: 'right', ratio: 0.5,
      first: { type: 'split', direction: 'down', ratio: 0.3, first: leaf('a'), second: leaf('c') },
      second: leaf('b'),
    });
    assert.deepEqual(layoutSessions(tree), ['a', 'c', 'b']);
  });

  test('removing a leaf collapses its split: the sibling takes the whole place', () => {
    const tree = splitLeaf(splitLeaf(leaf('a'), 'a', 'b', 'right'), 'b', 'c', 'down');
    assert.deepEqual(removeLeaf(tree, 'b'), { type: 'split', direction: 'right', ratio: 0.5, first: leaf('a'), second: leaf('c') });
    assert.deepEqual(removeLeaf(removeLeaf(tree, 'b')!, 'a'), leaf('c'));
    assert.equal(removeLeaf(leaf('a'), 'a'), null);
    assert.equal(removeLeaf(tree, 'zzz'), tree, 'an absent session changes nothing');
  });

  test('pruning keeps only live sessions and returns the same tree when nothing goes', () => {
    const tree = splitLeaf(splitLeaf(leaf('a'), 'a', 'b', 'right'), 'b', 'c', 'down');
    assert.equal(pruneLayout(tree, () => true), tree);
    assert.deepEqual(pruneLayout(tree, (id) => id === 'c'), leaf('c'));
    assert.equal(pruneLayout(tree, () => false), null);
  });

  test('parsing accepts a valid tree and names the path of what is wrong in a bad one', () => {
    const good = { type: 'split', direction: 'down', ratio: 0.25, first: { type: 'session', sessionId: 'a' }, second: { type: 'session', sessionId: 'b' } };
    assert.deepEqual(parseLayout(good), good);
    const bad: Array<[unknown, RegExp]> = [
      [null, /layout must be an object/],
      [{ type: 'pane' }, /layout\.type must be "session" or "split"/],
      [{ ...good, ratio: 0.99 }, /layout\.ratio must be a number from 0\.05 to 0\.95/],
      [{ ...good, ratio: 'half' }, /layout\.ratio/],
      [{ ...good, direction: 'left' }, /layout\.direction must be "right" or "down"/],
      [{ ...good, second: { type: 'session', sessionId: 'a' } }, /session a appears twice/],
      [{ ...good, first: { type: 'session' } }, /layout\.first\.sessionId must be a session id/],
    ];
    for (const [value, message] of bad) assert.throws(() => parseLayout(value), (err: unknown) => err instanceof LayoutError && message.test(err.message), JSON.stringify(value));
  });

  test(`parsing refuses trees nested deeper than ${MAX_LAYOUT_DEPTH}`, () => {
    let node: unknown = { type: 'session', sessionId: 's0' };
    for (let i = 1; i <= MAX_LAYOUT_DEPTH + 1; i++) node = { type: 'split', direction: 'right', ratio: 0.5, first: node, second: { type: 'session', sessionId: `s${i}` } };
    assert.throws(() => parseLayout(node), /nested more than 32 deep/);
  });
});
