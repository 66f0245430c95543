// The server core raises its own errors (targets.ts, session-registry.ts,
// session.ts, workspaces/…) and knows nothing of HTTP; this is the one place
// that says which API code each of them is answered with. The router applies
// it to whatever a handler throws. A route that answers one of these errors
// with another code (revive: a running session is not_revivable) catches it
// itself before it gets here.
import { ApiError, diskTroubleAnswer } from './errors.js';
import { AmbiguousTargetError, EmptyTargetError, NoSuchSessionError } from '../targets.js';
import { NameTakenError, SpawnError } from '../session-registry.js';
import { SessionStateError } from '../session.js';
import { TooManyAwaitsError } from '../awaits/await-registry.js';
import { NotAHolderError } from '../holder-upgrade.js';
import { ScreenHostError } from '../screen-host/index.js';
import { StoreError } from '../store/index.js';
import { AgentCannotSleepError, AgentWakeFailedError, NoAgentError } from '../agents/agent-errors.js';
import { LayoutError, UnknownSessionsError, WorkspaceConflictError, WorkspaceStoreReadOnlyError } from '../workspaces/index.js';

/**
 * The answer for an error a handler threw: itself when it is an ApiError,
 * the API's word for a core error, or null for anything else (a bug, which
 * the router logs and answers 500).
 */
export function apiErrorOf(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof EmptyTargetError) return new ApiError('bad_target', err.message);
  if (err instanceof NoSuchSessionError) return new ApiError('no_session', err.message, { candidates: [...err.candidates] });
  if (err instanceof AmbiguousTargetError) return new ApiError('ambiguous_target', err.message, { candidates: [...err.candidates] });
  if (err instanceof NameTakenError) return new ApiError('conflict', err.message);
  // A full or read-only disk is no fault of the request: say which, and where.
  if (err instanceof SpawnError) return diskTroubleAnswer(err.cause, err.where) ?? new ApiError('spawn_failed', err.message);
  if (err instanceof SessionStateError) return new ApiError('session_not_running', err.message);
  if (err instanceof NotAHolderError) return new ApiError('bad_request', err.message);
  if (err instanceof TooManyAwaitsError) return new ApiError('too_many_awaits', err.message);
  if (err instanceof ScreenHostError && err.searchStopped !== undefined) return new ApiError(err.searchStopped, err.message);
  if (err instanceof LayoutError) return new ApiError('bad_request', err.message);
  if (err instanceof UnknownSessionsError) return new ApiError('bad_request', err.message, { sessions: err.sessionIds });
  if (err instanceof WorkspaceConflictError) return new ApiError('conflict', err.message);
  if (err instanceof WorkspaceStoreReadOnlyError) return new ApiError('store_read_only', err.message);
  if (err instanceof NoAgentError || err instanceof AgentCannotSleepError || err instanceof AgentWakeFailedError) return new ApiError(err.code, err.message);
  // Disk trouble before the store's own codes: a store that became read-only under it is the disk's.
  const disk = diskTroubleAnswer(err);
  if (disk !== null) return disk;
  if (err instanceof StoreError && err.code === 'READ_ONLY') return new ApiError('store_read_only', err.message);
  if (err instanceof StoreError && err.code === 'NAME_TAKEN') return new ApiError('conflict', err.message);
  return null;
}
