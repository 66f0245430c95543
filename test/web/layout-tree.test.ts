// The page's geometry over the contract's layout tree (web/src/layout/
// layout-tree.ts): pure functions, so no browser and no server. The page
// edits the very tree the server stores, so what it makes must be a tree
// the contract's parseLayout accepts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SPLIT_RATIO, MIN_SPLIT_RATIO, parseLayout, type LayoutNode } from '../../src/protocol/api/index.js';
import { dividers, enclosingSplit, neighbour, nodeAt, pathOf, rects, sameLayout, setRatio } from '../../web/src/layout/layout-tree.js';

const session = (sessionId: string): LayoutNode => ({ type: 'session', sessionId });

/** a on the left quarter; b above c on the rest. */
const tree: LayoutNode = {
  type: 'split',
  direction: 'right',
  ratio: 0.25,
  first: session('a'),
  second: { type: 'split', direction: 'down', ratio: 0.5, first: session('b'), second: session('c') },
};

describe("the page's layout geometry", () => {
  test("each pane's rectangle: 'right' puts second beside first, 'down' below it, ratio being first's share", () => {
    assert.deepEqual(Object.fromEntries(rects(tree)), {
      a: { x: 0, y: 0, w: 0.25, h: 1 },
      b: { x: 0.25, y: 0, w: 0.75, h: 0.5 },
      c: { x: 0.25, y: 0.5, w: 0.75, h: 0.5 },
    });
  });

  test("paths step 'f' into first and 's' into second; each divider is named by its split's path", () => {
    assert.equal(pathOf(tree, 'a'), 'f');
    assert.equal(pathOf(tree, 'c'), 'ss');
    assert.equal(pathOf(tree, 'nobody'), null);
    assert.deepEqual(nodeAt(tree, 'sf'), session('b'));
    assert.equal(nodeAt(tree, 'ff'), null);
    assert.deepEqual(
      dividers(tree).map((d) => ({ path: d.path, direction: d.direction, ratio: d.ratio, rect: d.rect })),
      [
        { path: '', direction: 'right', ratio: 0.25, rect: { x: 0, y: 0, w: 1, h: 1 } },
        { path: 's', direction: 'down', ratio: 0.5, rect: { x: 0.25, y: 0, w: 0.75, h: 1 } },
      ],
    );
  });

  test('the pane next to another, and the split a pane grows along', () => {
    assert.equal(neighbour(tree, 'b', 'left'), 'a');
    assert.equal(neighbour(tree, 'b', 'down'), 'c');
    assert.equal(neighbour(tree, 'c', 'up'), 'b');
    assert.equal(neighbour(tree, 'a', 'left'), null);
    assert.deepEqual(enclosingSplit(tree, 'c', 'up'), { path: 's', ratio: 0.5 });
    assert.deepEqual(enclosingSplit(tree, 'b', 'left'), { path: '', ratio: 0.25 });
    assert.equal(enclosingSplit(tree, 'a', 'up'), null);
  });

  test("a divider moves within the contract's bounds, and the result is a layout the API accepts", () => {
    const pushed = setRatio(setRatio(tree, 's', 2), '', -1);
    assert.equal(pushed.type === 'split' && pushed.ratio, MIN_SPLIT_RATIO);
    assert.equal(pushed.type === 'split' && pushed.second.type === 'split' && pushed.second.ratio, MAX_SPLIT_RATIO);
    assert.deepEqual(parseLayout(pushed), pushed);
    const unreadable = setRatio(tree, '', Number.NaN);
    assert.equal(unreadable.type === 'split' && unreadable.ratio, 0.5);
    // The tree it started from is left as it was.
    assert.equal(tree.type === 'split' && tree.ratio, 0.25);
  });

  test('two layouts are the same when only a rounding of a ratio tells them apart', () => {
    assert.ok(sameLayout(tree, setRatio(tree, 's', 0.50004)));
    assert.ok(!sameLayout(tree, setRatio(tree, 's', 0.51)));
    assert.ok(!sameLayout(tree, { ...tree, direction: 'down' } as LayoutNode));
    assert.ok(!sameLayout(session('a'), tree));
    assert.ok(sameLayout(null, null));
    assert.ok(!sameLayout(tree, null));
  });
});
