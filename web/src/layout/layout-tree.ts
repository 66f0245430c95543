// The page's geometry over a workspace's split layout. The tree itself, its
// bounds and its edits (splitLeaf, removeLeaf, layoutSessions) are the HTTP
// API's contract (src/protocol/api/layout.ts): the page draws and changes the
// very tree the server stores. What is here is only what a screen needs
// beyond that: each pane's rectangle, the pane next to another, the split a
// divider belongs to, and moving that divider.
import { MAX_SPLIT_RATIO, MIN_SPLIT_RATIO, type LayoutNode, type SplitDirection } from '../../../src/protocol/api/index.js';

/**
 * Where a node sits: one step per split from the root, 'f' for its `first`
 * and 's' for its `second` ('' is the root). A string, so it can name a
 * divider in the DOM (data-path) and key it in React.
 */
export type NodePath = string;
const FIRST_STEP = 'f';
const SECOND_STEP = 's';

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export const UNIT_RECT: Rect = { x: 0, y: 0, w: 1, h: 1 };

/** A ratio the contract accepts: a divider stops short of an edge, so no pane vanishes. */
export function clampRatio(ratio: number): number {
  if (!Number.isFinite(ratio)) return 0.5;
  return Math.min(MAX_SPLIT_RATIO, Math.max(MIN_SPLIT_RATIO, ratio));
}

/** A split's rectangle cut in two at its ratio: `first`'s part, then `second`'s. */
export function splitRect(r: Rect, direction: SplitDirection, ratio: number): [Rect, Rect] {
  if (direction === 'right') {
    const w = r.w * ratio;
    return [
      { x: r.x, y: r.y, w, h: r.h },
      { x: r.x + w, y: r.y, w: r.w - w, h: r.h },
    ];
  }
  const h = r.h * ratio;
  return [
    { x: r.x, y: r.y, w: r.w, h },
    { x: r.x, y: r.y + h, w: r.w, h: r.h - h },
  ];
}

export function nodeAt(node: LayoutNode, path: NodePath): LayoutNode | null {
  let n: LayoutNode = node;
  for (const step of path) {
    if (n.type !== 'split') return null;
    n = step === FIRST_STEP ? n.first : n.second;
  }
  return n;
}

function replaceAt(node: LayoutNode, path: NodePath, fn: (n: LayoutNode) => LayoutNode): LayoutNode {
  if (path === '') return fn(node);
  if (node.type !== 'split') return node;
  const rest = path.slice(1);
  return path[0] === FIRST_STEP ? { ...node, first: replaceAt(node.first, rest, fn) } : { ...node, second: replaceAt(node.second, rest, fn) };
}

export function pathOf(node: LayoutNode, sessionId: string, path: NodePath = ''): NodePath | null {
  if (node.type === 'session') return node.sessionId === sessionId ? path : null;
  return pathOf(node.first, sessionId, path + FIRST_STEP) ?? pathOf(node.second, sessionId, path + SECOND_STEP);
}

/** The tree with the split at `path` moved to `ratio` (kept within the contract's bounds). */
export function setRatio(node: LayoutNode, path: NodePath, ratio: number): LayoutNode {
  return replaceAt(node, path, (n) => (n.type === 'split' ? { ...n, ratio: clampRatio(ratio) } : n));
}

/** Each session's rectangle in the unit square. */
export function rects(node: LayoutNode, r: Rect = UNIT_RECT, out = new Map<string, Rect>()): Map<string, Rect> {
  if (node.type === 'session') {
    out.set(node.sessionId, r);
    return out;
  }
  const [first, second] = splitRect(r, node.direction, node.ratio);
  rects(node.first, first, out);
  rects(node.second, second, out);
  return out;
}

export interface Divider {
  path: NodePath;
  direction: SplitDirection;
  ratio: number;
  /** The split's rectangle, in the unit square. */
  rect: Rect;
}

/** Every split's divider, outermost first. */
export function dividers(node: LayoutNode, r: Rect = UNIT_RECT, path: NodePath = '', out: Divider[] = []): Divider[] {
  if (node.type === 'session') return out;
  out.push({ path, direction: node.direction, ratio: node.ratio, rect: r });
  const [first, second] = splitRect(r, node.direction, node.ratio);
  dividers(node.first, first, path + FIRST_STEP, out);
  dividers(node.second, second, path + SECOND_STEP, out);
  return out;
}

export type FocusMove = 'left' | 'right' | 'up' | 'down';

const EPSILON = 1e-6;

/**
 * The pane next to `sessionId` in a direction: among the panes beyond its
 * edge that overlap it across that axis, the nearest, then the one most
 * aligned with its centre. null at the edge of the workspace.
 */
export function neighbour(node: LayoutNode, sessionId: string, move: FocusMove): string | null {
  const all = rects(node);
  const from = all.get(sessionId);
  if (!from) return null;
  let best: { session: string; distance: number; offset: number } | null = null;
  for (const [other, r] of all) {
    if (other === sessionId) continue;
    const horizontal = move === 'left' || move === 'right';
    const distance =
      move === 'left' ? from.x - (r.x + r.w) : move === 'right' ? r.x - (from.x + from.w) : move === 'up' ? from.y - (r.y + r.h) : r.y - (from.y + from.h);
    if (distance < -EPSILON) continue;
    const overlap = horizontal
      ? Math.min(from.y + from.h, r.y + r.h) - Math.max(from.y, r.y)
      : Math.min(from.x + from.w, r.x + r.w) - Math.max(from.x, r.x);
    if (overlap <= EPSILON) continue;
    const offset = horizontal ? Math.abs(r.y + r.h / 2 - (from.y + from.h / 2)) : Math.abs(r.x + r.w / 2 - (from.x + from.w / 2));
    if (best === null || distance < best.distance - EPSILON || (Math.abs(distance - best.distance) <= EPSILON && offset < best.offset)) {
      best = { session: other, distance, offset };
    }
  }
  return best?.session ?? null;
}

/** The innermost split that `sessionId`'s pane borders in the given direction, with its ratio now. */
export function enclosingSplit(node: LayoutNode, sessionId: string, move: FocusMove): { path: NodePath; ratio: number } | null {
  const path = pathOf(node, sessionId);
  if (path === null) return null;
  const wanted: SplitDirection = move === 'left' || move === 'right' ? 'right' : 'down';
  for (let i = path.length - 1; i >= 0; i--) {
    const splitPath = path.slice(0, i);
    const split = nodeAt(node, splitPath);
    if (split?.type === 'split' && split.direction === wanted) return { path: splitPath, ratio: split.ratio };
  }
  return null;
}

/** Closer than this, two ratios are the same divider position. */
const SAME_RATIO_EPSILON = 1e-4;

export function sameLayout(x: LayoutNode | null, y: LayoutNode | null): boolean {
  if (x === null || y === null) return x === y;
  if (x.type === 'session' || y.type === 'session') return x.type === 'session' && y.type === 'session' && x.sessionId === y.sessionId;
  return (
    x.direction === y.direction &&
    Math.abs(x.ratio - y.ratio) < SAME_RATIO_EPSILON &&
    sameLayout(x.first, y.first) &&
    sameLayout(x.second, y.second)
  );
}
