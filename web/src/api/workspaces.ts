// Workspaces on the server (the contract's /v1/workspaces routes): a named layout that
// every browser shows the same. The page works on the contract's own tree
// (src/protocol/api/layout.ts), so what the server answers is what the page
// draws, and what the page changes is what it sends back.
import { call, ApiError } from './sessions.js';
import { API_ROUTES, type LayoutNode, type PutWorkspaceRequest, type Workspace } from '../../../src/protocol/api/index.js';

export type { Workspace } from '../../../src/protocol/api/index.js';

/** A saved ratio keeps this many decimals: a dragged divider need not store 17 digits. */
const SAVED_RATIO_DECIMALS = 3;
const RATIO_SCALE = 10 ** SAVED_RATIO_DECIMALS;

function roundRatios(node: LayoutNode): LayoutNode {
  if (node.type === 'session') return node;
  return { ...node, ratio: Math.round(node.ratio * RATIO_SCALE) / RATIO_SCALE, first: roundRatios(node.first), second: roundRatios(node.second) };
}

/** The workspace, or null when the server has none of that name. */
export async function loadWorkspace(name: string): Promise<Workspace | null> {
  try {
    return await call<Workspace>(API_ROUTES.getWorkspace, { name });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

export async function saveWorkspace(name: string, layout: LayoutNode | null): Promise<Workspace> {
  const body: PutWorkspaceRequest = { layout: layout ? roundRatios(layout) : null };
  return call<Workspace>(API_ROUTES.putWorkspace, { name }, body);
}

export async function listWorkspaces(): Promise<Workspace[]> {
  const list = await call<Workspace[]>(API_ROUTES.listWorkspaces);
  return Array.isArray(list) ? list : [];
}
