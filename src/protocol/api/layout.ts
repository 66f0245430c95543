// A workspace's layout as the API carries it (/v1/workspaces): a binary tree
// of splits whose leaves are sessions. The server stores and edits these
// trees and the page draws them, both through this one definition.
// A split puts `second` to the right of or below `first`; `ratio` is the
// share of the space `first` gets. Pure data and pure functions, free of
// Node and of the DOM.

export type SplitDirection = 'right' | 'down';

export type LayoutNode =
  | { type: 'session'; sessionId: string }
  | { type: 'split'; direction: SplitDirection; ratio: number; first: LayoutNode; second: LayoutNode };

export const MIN_SPLIT_RATIO = 0.05;
export const MAX_SPLIT_RATIO = 0.95;
/** Deeper trees are no layout a screen can show; the bound also keeps recursion shallow. */
export const MAX_LAYOUT_DEPTH = 32;
export const MAX_LAYOUT_LEAVES = 256;
const SESSION_ID_MAX_CHARS = 64;

export class LayoutError extends Error {}

/** Checks untrusted JSON (a PUT body, a stored row) and returns it as a tree; throws LayoutError saying where it is wrong. */
export function parseLayout(value: unknown): LayoutNode {
  const seen = new Set<string>();
  const walk = (v: unknown, path: string, depth: number): LayoutNode => {
    if (depth > MAX_LAYOUT_DEPTH) throw new LayoutError(`${path}: the layout is nested more than ${MAX_LAYOUT_DEPTH} deep`);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new LayoutError(`${path} must be an object`);
    const node = v as Record<string, unknown>;
    if (node.type === 'session') {
      const id = node.sessionId;
      if (typeof id !== 'string' || id === '' || id.length > SESSION_ID_MAX_CHARS) {
        throw new LayoutError(`${path}.sessionId must be a session id`);
      }
      if (seen.has(id)) throw new LayoutError(`${path}: session ${id} appears twice in the layout`);
      seen.add(id);
      if (seen.size > MAX_LAYOUT_LEAVES) throw new LayoutError(`the layout has more than ${MAX_LAYOUT_LEAVES} sessions`);
      return { type: 'session', sessionId: id };
    }
    if (node.type === 'split') {
      if (node.direction !== 'right' && node.direction !== 'down') throw new LayoutError(`${path}.direction must be "right" or "down"`);
      const ratio = node.ratio;
      if (typeof ratio !== 'number' || !Number.isFinite(ratio) || ratio < MIN_SPLIT_RATIO || ratio > MAX_SPLIT_RATIO) {
        throw new LayoutError(`${path}.ratio must be a number from ${MIN_SPLIT_RATIO} to ${MAX_SPLIT_RATIO}`);
      }
      return {
        type: 'split',
        direction: node.direction,
        ratio,
        first: walk(node.first, `${path}.first`, depth + 1),
        second: walk(node.second, `${path}.second`, depth + 1),
      };
    }
    throw new LayoutError(`${path}.type must be "session" or "split"`);
  };
  return walk(value, 'layout', 0);
}

/** Session ids in reading order (left to right, top to bottom). */
export function layoutSessions(node: LayoutNode | null): string[] {
  if (node === null) return [];
  if (node.type === 'session') return [node.sessionId];
  return [...layoutSessions(node.first), ...layoutSessions(node.second)];
}

/** Replaces the leaf `targetId` by a split of it and `newId` (placed right of or below it). */
export function splitLeaf(node: LayoutNode, targetId: string, newId: string, direction: SplitDirection, ratio = 0.5): LayoutNode {
  if (node.type === 'session') {
    if (node.sessionId !== targetId) return node;
    return { type: 'split', direction, ratio, first: node, second: { type: 'session', sessionId: newId } };
  }
  return { ...node, first: splitLeaf(node.first, targetId, newId, direction, ratio), second: splitLeaf(node.second, targetId, newId, direction, ratio) };
}

/**
 * The tree without the leaf `sessionId`: its split collapses and the
 * sibling takes the split's whole place. Null when nothing is left.
 */
export function removeLeaf(node: LayoutNode, sessionId: string): LayoutNode | null {
  if (node.type === 'session') return node.sessionId === sessionId ? null : node;
  const first = removeLeaf(node.first, sessionId);
  const second = removeLeaf(node.second, sessionId);
  if (first === null) return second;
  if (second === null) return first;
  if (first === node.first && second === node.second) return node;
  return { ...node, first, second };
}

/** The tree keeping only leaves `keep` accepts (collapsing every emptied split). */
export function pruneLayout(node: LayoutNode | null, keep: (sessionId: string) => boolean): LayoutNode | null {
  let tree = node;
  for (const id of layoutSessions(node)) if (!keep(id) && tree !== null) tree = removeLeaf(tree, id);
  return tree;
}
