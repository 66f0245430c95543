// Workspaces as the API edits them: layouts over the server's live sessions.
// A session belongs to at most one workspace. Sessions that are gone (killed
// here, or disposed while no server ran) leave their layouts on the next
// read or on removal, so a stored layout never shows a session that is not.
import type { Disposable } from '../../common/lifecycle.js';
import type { Logger } from '../log.js';
import type { Workspace } from '../../protocol/api/index.js';
import { layoutSessions, pruneLayout, removeLeaf, splitLeaf, type LayoutNode, type SplitDirection } from '../../protocol/api/layout.js';
import type { WorkspaceRecord, WorkspaceRepository } from './workspace-repository.js';

/** Where a split session goes when its neighbour is in no workspace yet. */
export const DEFAULT_WORKSPACE_NAME = 'default';

/** A workspace as the API shows it. */
export type WorkspaceView = Workspace;

export class WorkspaceConflictError extends Error {}

export interface WorkspacesOptions {
  repository: WorkspaceRepository;
  /** Ids of the sessions the server has now. */
  liveSessionIds(): Iterable<string>;
  log: Logger;
}

export class Workspaces implements Disposable {
  private readonly repository: WorkspaceRepository;

  constructor(private readonly options: WorkspacesOptions) {
    this.repository = options.repository;
  }

  list(): WorkspaceView[] {
    const live = new Set(this.options.liveSessionIds());
    return this.repository.list().map((w) => view(this.pruned(w, live)));
  }

  get(name: string): WorkspaceView | undefined {
    const w = this.repository.get(name);
    return w === undefined ? undefined : view(this.pruned(w, new Set(this.options.liveSessionIds())));
  }

  /** The workspace whose layout holds the session, if any. */
  workspaceOf(sessionId: string): WorkspaceView | undefined {
    return this.list().find((w) => w.sessions.includes(sessionId));
  }

  /**
   * Replaces a workspace's layout (creating the workspace). Every session must
   * be live (else Error naming them) and in no other workspace (else conflict).
   */
  put(name: string, layout: LayoutNode | null): WorkspaceView {
    const live = new Set(this.options.liveSessionIds());
    const ids = layoutSessions(layout);
    const unknown = ids.filter((id) => !live.has(id));
    if (unknown.length > 0) throw new UnknownSessionsError(unknown);
    for (const other of this.list()) {
      if (other.name === name) continue;
      const shared = ids.filter((id) => other.sessions.includes(id));
      if (shared.length > 0) {
        throw new WorkspaceConflictError(`session${shared.length > 1 ? 's' : ''} ${shared.join(', ')} already in workspace "${other.name}"; remove ${shared.length > 1 ? 'them' : 'it'} there first`);
      }
    }
    return view(this.repository.put(name, layout));
  }

  /**
   * Puts `newId` beside `targetId` in the target's workspace; a target in no
   * workspace gets one created around it ("default", or "default-N" when
   * that is already someone else's).
   */
  split(targetId: string, newId: string, direction: SplitDirection, ratio = 0.5): WorkspaceView {
    const home = this.workspaceOf(targetId);
    if (home !== undefined && home.layout !== null) {
      return view(this.repository.put(home.name, splitLeaf(home.layout, targetId, newId, direction, ratio)));
    }
    const name = this.freeDefaultName();
    return view(this.repository.put(name, splitLeaf({ type: 'session', sessionId: targetId }, targetId, newId, direction, ratio)));
  }

  /** Adds a session to a workspace (created if missing), beside its last session. */
  add(name: string, sessionId: string, direction: SplitDirection = 'right'): WorkspaceView {
    const other = this.workspaceOf(sessionId);
    if (other !== undefined && other.name !== name) throw new WorkspaceConflictError(`session ${sessionId} is already in workspace "${other.name}"`);
    const current = this.get(name);
    if (current?.sessions.includes(sessionId)) return current;
    const leaf: LayoutNode = { type: 'session', sessionId };
    const last = current?.sessions[current.sessions.length - 1];
    const layout = current?.layout == null || last === undefined ? leaf : splitLeaf(current.layout, last, sessionId, direction);
    return view(this.repository.put(name, layout));
  }

  /** A session went away: its split collapses, wherever it was. */
  sessionRemoved(sessionId: string): void {
    for (const w of this.repository.list()) {
      if (w.layout === null || !layoutSessions(w.layout).includes(sessionId)) continue;
      this.save(w.name, removeLeaf(w.layout, sessionId));
    }
  }

  remove(name: string): boolean {
    return this.repository.remove(name);
  }

  private freeDefaultName(): string {
    const taken = new Set(this.repository.list().filter((w) => w.layout !== null).map((w) => w.name));
    if (!taken.has(DEFAULT_WORKSPACE_NAME)) return DEFAULT_WORKSPACE_NAME;
    for (let n = 2; ; n++) if (!taken.has(`${DEFAULT_WORKSPACE_NAME}-${n}`)) return `${DEFAULT_WORKSPACE_NAME}-${n}`;
  }

  private pruned(w: WorkspaceRecord, live: ReadonlySet<string>): WorkspaceRecord {
    const layout = pruneLayout(w.layout, (id) => live.has(id));
    if (layout === w.layout) return w;
    return this.save(w.name, layout) ?? { ...w, layout };
  }

  // A read that prunes must not fail on a read-only store: the pruned view is
  // still the truth, it is just not saved.
  private save(name: string, layout: LayoutNode | null): WorkspaceRecord | undefined {
    if (this.repository.readOnly) return undefined;
    try {
      return this.repository.put(name, layout);
    } catch (err) {
      this.options.log.error(`workspace ${name}: could not save its layout`, err);
      return undefined;
    }
  }

  dispose(): void {
    this.repository.dispose();
  }
}

export class UnknownSessionsError extends Error {
  constructor(readonly sessionIds: string[]) {
    super(`no session ${sessionIds.join(', ')}: a layout holds only sessions that exist (\`tend ls\`)`);
  }
}

function view(w: WorkspaceRecord): WorkspaceView {
  return { name: w.name, layout: w.layout, sessions: layoutSessions(w.layout), createdAt: w.createdAt, updatedAt: w.updatedAt };
}
