// A workspace's split layout: a binary tree whose leaves are sessions and
// whose inner nodes split their rectangle in two (side by side or stacked) at
// a ratio. Pure functions over plain data, so the page, the dividers and the
// keyboard all change it the same way and the result goes back to the server.

export type SplitDirection = 'horizontal' | 'vertical';

export interface LeafNode {
  kind: 'leaf';
  session: string;
}

export interface SplitNode {
  kind: 'split';
  /** horizontal: a is left of b; vertical: a is above b. */
  direction: SplitDirection;
  /** a's share of the rectangle, 0..1. */
  ratio: number;
  a: LayoutNode;
  b: LayoutNode;
}

export type LayoutNode = LeafNode | SplitNode;

/** Where a node sits: the branch taken at each split from the root ('a' or 'b'). */
export type NodePath = string;

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Dividers can go this close to an edge and no closer, so no pane vanishes. */
export const MIN_RATIO = 0.1;
export const MAX_RATIO = 0.9;

export const leaf = (session: string): LeafNode => ({ kind: 'leaf', session });

export function clampRatio(ratio: number): number {
  if (!Number.isFinite(ratio)) return 0.5;
  return Math.min(MAX_RATIO, Math.max(MIN_RATIO, ratio));
}

/** Sessions in reading order (a before b). */
export function leaves(node: LayoutNode): string[] {
  return node.kind === 'leaf' ? [node.session] : [...leaves(node.a), ...leaves(node.b)];
}

export function nodeAt(node: LayoutNode, path: NodePath): LayoutNode | null {
  let n: LayoutNode = node;
  for (const step of path) {
    if (n.kind !== 'split') return null;
    n = step === 'a' ? n.a : n.b;
  }
  return n;
}

function replaceAt(node: LayoutNode, path: NodePath, fn: (n: LayoutNode) => LayoutNode): LayoutNode {
  if (path === '') return fn(node);
  if (node.kind !== 'split') return node;
  const [step, rest] = [path[0], path.slice(1)];
  return step === 'a' ? { ...node, a: replaceAt(node.a, rest, fn) } : { ...node, b: replaceAt(node.b, rest, fn) };
}

export function pathOf(node: LayoutNode, session: string, path: NodePath = ''): NodePath | null {
  if (node.kind === 'leaf') return node.session === session ? path : null;
  return pathOf(node.a, session, path + 'a') ?? pathOf(node.b, session, path + 'b');
}

/** The leaf of `session` split in two: the old session in a, the new one in b. */
export function splitLeaf(node: LayoutNode, session: string, newSession: string, direction: SplitDirection): LayoutNode {
  const path = pathOf(node, session);
  if (path === null) return node;
  return replaceAt(node, path, (old) => ({ kind: 'split', direction, ratio: 0.5, a: old, b: leaf(newSession) }));
}

/** The layout without `session`'s pane (its sibling takes the split's place); null when it was the last. */
export function removeLeaf(node: LayoutNode, session: string): LayoutNode | null {
  if (node.kind === 'leaf') return node.session === session ? null : node;
  const a = removeLeaf(node.a, session);
  const b = removeLeaf(node.b, session);
  if (a === null) return b;
  if (b === null) return a;
  return a === node.a && b === node.b ? node : { ...node, a, b };
}

export function setRatio(node: LayoutNode, path: NodePath, ratio: number): LayoutNode {
  return replaceAt(node, path, (n) => (n.kind === 'split' ? { ...n, ratio: clampRatio(ratio) } : n));
}

/** Each session's rectangle in the unit square. */
export function rects(node: LayoutNode, r: Rect = { x: 0, y: 0, w: 1, h: 1 }, out = new Map<string, Rect>()): Map<string, Rect> {
  if (node.kind === 'leaf') {
    out.set(node.session, r);
    return out;
  }
  if (node.direction === 'horizontal') {
    const wa = r.w * node.ratio;
    rects(node.a, { x: r.x, y: r.y, w: wa, h: r.h }, out);
    rects(node.b, { x: r.x + wa, y: r.y, w: r.w - wa, h: r.h }, out);
  } else {
    const ha = r.h * node.ratio;
    rects(node.a, { x: r.x, y: r.y, w: r.w, h: ha }, out);
    rects(node.b, { x: r.x, y: r.y + ha, w: r.w, h: r.h - ha }, out);
  }
  return out;
}

export type FocusMove = 'left' | 'right' | 'up' | 'down';

const EPSILON = 1e-6;

/**
 * The pane next to `session` in a direction: among the panes beyond its edge
 * that overlap it across that axis, the nearest, then the one most aligned
 * with its centre. null at the edge of the workspace.
 */
export function neighbour(node: LayoutNode, session: string, move: FocusMove): string | null {
  const all = rects(node);
  const from = all.get(session);
  if (!from) return null;
  let best: { session: string; distance: number; offset: number } | null = null;
  for (const [other, r] of all) {
    if (other === session) continue;
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

/** The innermost split that `session`'s pane borders in the given direction, with the ratio change that grows the pane. */
export function enclosingSplit(node: LayoutNode, session: string, move: FocusMove): { path: NodePath; ratio: number } | null {
  const path = pathOf(node, session);
  if (path === null) return null;
  const wanted: SplitDirection = move === 'left' || move === 'right' ? 'horizontal' : 'vertical';
  for (let i = path.length - 1; i >= 0; i--) {
    const splitPath = path.slice(0, i);
    const split = nodeAt(node, splitPath);
    if (split?.kind === 'split' && split.direction === wanted) return { path: splitPath, ratio: split.ratio };
  }
  return null;
}

export function sameLayout(x: LayoutNode | null, y: LayoutNode | null): boolean {
  if (x === null || y === null) return x === y;
  if (x.kind === 'leaf' || y.kind === 'leaf') return x.kind === y.kind && (x as LeafNode).session === (y as LeafNode).session;
  return x.direction === y.direction && Math.abs(x.ratio - y.ratio) < 1e-4 && sameLayout(x.a, y.a) && sameLayout(x.b, y.b);
}
