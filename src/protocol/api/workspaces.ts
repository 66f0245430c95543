// Workspaces as the API shows and takes them (/v1/workspaces…): a named
// layout (layout.ts) over sessions.
import type { LayoutNode, SplitDirection } from './layout.js';
import type { SessionInfo } from './sessions.js';

export interface Workspace {
  /** Follows the session-name rule. */
  name: string;
  /** null when it holds no session (its last one went away). */
  layout: LayoutNode | null;
  /** The layout's session ids in reading order. */
  sessions: string[];
  createdAt: number;
  updatedAt: number;
}

/** PUT /v1/workspaces/:name */
export interface PutWorkspaceRequest {
  layout: LayoutNode | null;
}

/** DELETE /v1/workspaces/:name */
export interface RemovedWorkspace {
  name: string;
  removed: true;
}

/** POST /v1/workspaces/:name/sessions: adds a session beside the workspace's last one. */
export interface AddToWorkspaceRequest {
  /** A session target. */
  session: string;
  direction?: SplitDirection;
}

/** POST /v1/sessions/:target/split answers the new session and the workspace that now holds it. */
export interface SplitReply {
  session: SessionInfo;
  workspace: Workspace;
}
