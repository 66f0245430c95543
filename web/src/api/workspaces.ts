// Workspaces on the server (docs/api.md, /v1/workspaces): a named layout that
// every browser shows the same. The server's tree is
//   { type: "session", sessionId } | { type: "split", direction: "right"|"down", ratio, first, second }
// ("right": second is right of first; ratio is first's share); the page works
// on its own LayoutNode and converts at this edge only.
import { api, ApiError } from './sessions.js';
import type { LayoutNode as ApiLayoutNode, Workspace as ApiWorkspace } from '../../../src/protocol/api/index.js';
import type { LayoutNode } from '../layout/layout-tree.js';
import { clampRatio } from '../layout/layout-tree.js';

type WireNode = ApiLayoutNode;
type WireWorkspace = ApiWorkspace;

export interface Workspace {
  name: string;
  /** null: the workspace exists but holds no pane (its last session went away). */
  layout: LayoutNode | null;
}

export function layoutFromWire(node: WireNode | null | undefined): LayoutNode | null {
  if (!node) return null;
  if (node.type === 'session') return typeof node.sessionId === 'string' ? { kind: 'leaf', session: node.sessionId } : null;
  if (node.type !== 'split') return null;
  const a = layoutFromWire(node.first);
  const b = layoutFromWire(node.second);
  if (a === null) return b;
  if (b === null) return a;
  return { kind: 'split', direction: node.direction === 'down' ? 'vertical' : 'horizontal', ratio: clampRatio(Number(node.ratio)), a, b };
}

export function layoutToWire(node: LayoutNode): WireNode {
  if (node.kind === 'leaf') return { type: 'session', sessionId: node.session };
  return {
    type: 'split',
    direction: node.direction === 'vertical' ? 'down' : 'right',
    // Rounded: a dragged divider need not store 17 digits.
    ratio: Math.round(node.ratio * 1000) / 1000,
    first: layoutToWire(node.a),
    second: layoutToWire(node.b),
  };
}

const fromWire = (w: WireWorkspace): Workspace => ({ name: w.name, layout: layoutFromWire(w.layout) });

/** The workspace, or null when the server has none of that name. */
export async function loadWorkspace(name: string): Promise<Workspace | null> {
  try {
    return fromWire(await api<WireWorkspace>('GET', `/v1/workspaces/${encodeURIComponent(name)}`));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export async function saveWorkspace(name: string, layout: LayoutNode | null): Promise<Workspace> {
  return fromWire(await api<WireWorkspace>('PUT', `/v1/workspaces/${encodeURIComponent(name)}`, { layout: layout ? layoutToWire(layout) : null }));
}

export async function listWorkspaces(): Promise<Workspace[]> {
  const list = await api<WireWorkspace[]>('GET', '/v1/workspaces');
  return Array.isArray(list) ? list.map(fromWire) : [];
}
