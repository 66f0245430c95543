// /v1/workspaces and /v1/sessions/:t/split: named layouts of sessions, and
// new sessions placed beside others. docs/api.md documents every route.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Router } from './router.js';
import { MAX_ARG_CHARS, MAX_ARGV_ITEMS, MAX_CWD_CHARS, type RemovedWorkspace, type SplitReply } from '../../protocol/api/index.js';
import { badRequest, notFound } from './errors.js';
import { optString, optStringArray, SESSION_NAME_HINT, SESSION_NAME_PATTERN } from './validate.js';
import type { NewSessionSpec, SessionRegistry } from '../session-registry.js';
import type { Session } from '../session.js';
import { defaultShellArgv } from '../default-shell.js';
import { sessionEnvFromRequest } from './session-env.js';
import { parseAgentLaunch } from './agents-api.js';
import type { AgentLaunchRequest } from '../../protocol/api/index.js';
import {
  MAX_SPLIT_RATIO,
  MIN_SPLIT_RATIO,
  parseLayout,
  type SplitDirection,
  type Workspaces,
} from '../workspaces/index.js';

const WORKSPACE_NAME_PATTERN = SESSION_NAME_PATTERN;
const WORKSPACE_NAME_HINT = SESSION_NAME_HINT;

/** A new session, as POST /v1/sessions would start it (shellIntegration: false opts out of injection). */
export type SplitSessionSpec = NewSessionSpec & { shellIntegration?: boolean };

export interface WorkspaceRoutesDeps {
  registry: SessionRegistry;
  workspaces: Workspaces;
  /** Starts a session the way POST /v1/sessions does; registry.create by default. */
  createSession?(spec: SplitSessionSpec): Promise<Session>;
  /** Starts the split's agent (its `agent`), as POST /v1/sessions does. */
  launchAgent?(session: Session, request: AgentLaunchRequest): void;
}

function workspaceName(raw: string | undefined): string {
  const name = raw ?? '';
  if (!WORKSPACE_NAME_PATTERN.test(name)) throw badRequest(`a workspace name ${WORKSPACE_NAME_HINT}, not ${JSON.stringify(name)}`);
  return name;
}

function parseDirection(v: unknown): SplitDirection {
  if (v === undefined || v === null) return 'right';
  if (v === 'right' || v === 'down') return v;
  throw badRequest(`"direction" must be "right" or "down", not ${JSON.stringify(v)}`);
}

function parseRatio(v: unknown): number {
  if (v === undefined || v === null) return 0.5;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < MIN_SPLIT_RATIO || v > MAX_SPLIT_RATIO) {
    throw badRequest(`"ratio" must be a number from ${MIN_SPLIT_RATIO} to ${MAX_SPLIT_RATIO}`);
  }
  return v;
}

export function addWorkspaceRoutes(router: Router, deps: WorkspaceRoutesDeps): void {
  const { registry, workspaces } = deps;
  const createSession = deps.createSession ?? ((spec: SplitSessionSpec) => registry.create(spec));

  router.add('listWorkspaces', () => ({ status: 200, json: workspaces.list() }));

  router.add('getWorkspace', (req) => {
    const name = workspaceName(req.params.name);
    const w = workspaces.get(name);
    if (w === undefined) {
      const known = workspaces.list().map((x) => x.name);
      throw notFound(`no workspace is named "${name}"${known.length ? `; workspaces: ${known.join(', ')}` : ' (there are none)'}`, { candidates: known });
    }
    return { status: 200, json: w };
  });

  router.add('putWorkspace', async (req) => {
    const name = workspaceName(req.params.name);
    const body = await req.json();
    if (!('layout' in body)) throw badRequest('give "layout": a tree of { type: "split", direction, ratio, first, second } and { type: "session", sessionId }, or null');
    // The workspace rules' errors (a bad layout, a session in no list or in another workspace) are answered by http/core-errors.ts.
    const layout = body.layout === null ? null : parseLayout(body.layout);
    return { status: 200, json: workspaces.put(name, layout) };
  });

  router.add('removeWorkspace', (req) => {
    const name = workspaceName(req.params.name);
    const removed = workspaces.remove(name);
    if (!removed) throw notFound(`no workspace is named "${name}"`);
    return { status: 200, json: { name, removed: true } satisfies RemovedWorkspace };
  });

  router.add('addToWorkspace', async (req) => {
    const name = workspaceName(req.params.name);
    const body = await req.json();
    const target = optString(body, 'session', { max: 128 });
    if (target === undefined) throw badRequest('give "session": the session (id, :name or index) to add');
    const session = registry.resolve(target);
    const direction = parseDirection(body.direction);
    return { status: 200, json: workspaces.add(name, session.id, direction) };
  });

  router.add('splitSession', async (req) => {
    const beside = registry.resolve(req.params.target ?? '');
    const body = await req.json();
    const direction = parseDirection(body.direction);
    const ratio = parseRatio(body.ratio);
    const name = optString(body, 'name', { pattern: SESSION_NAME_PATTERN, hint: SESSION_NAME_HINT }) ?? null;
    const env = sessionEnvFromRequest(body);
    const argv = optStringArray(body, 'argv', { maxItems: MAX_ARGV_ITEMS, maxLength: MAX_ARG_CHARS }) ?? defaultShellArgv(env);
    if (argv.length === 0) throw badRequest('"argv" must name a program to run');
    // Beside its neighbour, in the neighbour's directory unless told otherwise.
    const info = beside.info();
    const cwd = optString(body, 'cwd', { max: MAX_CWD_CHARS }) ?? info.cwd;
    if (!isAbsolute(cwd)) throw badRequest(`"cwd" must be an absolute path, not "${cwd}"`);
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw badRequest(`the working directory "${cwd}" does not exist or is not a directory`);
    const spec: SplitSessionSpec = { name, argv, cwd, env, cols: info.cols, rows: info.rows };
    if (body.shellIntegration === false) spec.shellIntegration = false;
    const agent = parseAgentLaunch(body, argv);
    const session = await createSession(spec);
    try {
      const workspace = workspaces.split(beside.id, session.id, direction, ratio);
      if (agent !== undefined) deps.launchAgent?.(session, agent);
      return { status: 201, json: { session: session.info(), workspace } satisfies SplitReply };
    } catch (err) {
      // A session nobody can see in any layout is worse than none: undo it.
      await registry.kill(session);
      throw err;
    }
  });
}
