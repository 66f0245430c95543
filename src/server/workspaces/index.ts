// Workspaces: named layouts (binary trees of splits) over sessions, stored in
// the store's SQLite file. The tree is the API's (src/protocol/api/layout.ts);
// workspace-repository.ts keeps its rows, workspaces.ts the rules the API applies.
export {
  parseLayout,
  layoutSessions,
  splitLeaf,
  removeLeaf,
  pruneLayout,
  LayoutError,
  MIN_SPLIT_RATIO,
  MAX_SPLIT_RATIO,
  MAX_LAYOUT_DEPTH,
  MAX_LAYOUT_LEAVES,
  type LayoutNode,
  type SplitDirection,
} from '../../protocol/api/layout.js';
export { WorkspaceRepository, WorkspaceStoreReadOnlyError, type WorkspaceRecord, type WorkspaceRepositoryOptions } from './workspace-repository.js';
export { Workspaces, WorkspaceConflictError, UnknownSessionsError, DEFAULT_WORKSPACE_NAME, type WorkspaceView, type WorkspacesOptions } from './workspaces.js';
