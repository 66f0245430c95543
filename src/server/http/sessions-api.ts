// /v1/sessions: create, list, inspect, rename, kill, revive, type into,
// resize, signal and read sessions. docs/api.md documents every route.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { constants as osConstants } from 'node:os';
import type { Router } from './router.js';
import {
  DEFAULT_SESSION_COLS,
  DEFAULT_SESSION_ROWS,
  MAX_ARG_CHARS,
  MAX_ARGV_ITEMS,
  MAX_CWD_CHARS,
  MAX_SCREEN_SCROLLBACK_ROWS,
  SESSION_SIZE_MAX,
  SESSION_SIZE_MIN,
  type KilledSession,
  type ListedSession,
  type ScreenSnapshotReply,
  type ScreenTextReply,
  type SearchReply,
  type SignalSessionReply,
} from '../../protocol/api/index.js';
import { ApiError, badRequest, diskTroubleAnswer } from './errors.js';
import { optInt, optString, optStringArray, reqInt, SESSION_NAME_HINT, SESSION_NAME_PATTERN } from './validate.js';
import type { SessionRegistry } from '../session-registry.js';
import { SessionStateError, type Session } from '../session.js';
import { defaultShellArgv } from '../default-shell.js';
import { sessionEnvFromRequest } from './session-env.js';
import { queryWholeNumber } from './request-parts.js';
import { addInputRoute } from './input-api.js';
import { searchAskedOf, searchOneSession } from './search-api.js';
import { parseAgentLaunch } from './agents-api.js';
import type { AgentRegistry } from '../agents/agent-registry.js';


function parseCwd(cwd: string | undefined, fallback: string): string {
  const dir = cwd ?? fallback;
  if (!isAbsolute(dir)) throw badRequest(`"cwd" must be an absolute path, not "${dir}"`);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw badRequest(`the working directory "${dir}" does not exist or is not a directory`);
  return dir;
}

function parseSignal(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 65) return v;
  if (typeof v === 'string') {
    const name = v.toUpperCase().startsWith('SIG') ? v.toUpperCase() : `SIG${v.toUpperCase()}`;
    const n = (osConstants.signals as Record<string, number>)[name];
    if (n !== undefined) return n;
  }
  throw badRequest(`"signal" must be a signal name like "INT" or a number 1-64, not ${JSON.stringify(v)}`);
}

export function addSessionRoutes(router: Router, registry: SessionRegistry, agents: AgentRegistry): void {
  const target = (t: string | undefined): Session => registry.resolve(t ?? '');

  router.add('listSessions', () => ({ status: 200, json: registry.list().map((s, i): ListedSession => ({ index: i + 1, ...s.info() })) }));

  router.add('createSession', async (req) => {
    const body = await req.json();
    const name = optString(body, 'name', { pattern: SESSION_NAME_PATTERN, hint: SESSION_NAME_HINT }) ?? null;
    const env = sessionEnvFromRequest(body);
    const argv = optStringArray(body, 'argv', { maxItems: MAX_ARGV_ITEMS, maxLength: MAX_ARG_CHARS }) ?? defaultShellArgv(env);
    if (argv.length === 0) throw badRequest('"argv" must name a program to run');
    const cwd = parseCwd(optString(body, 'cwd', { max: MAX_CWD_CHARS }), env.HOME ?? process.cwd());
    const cols = optInt(body, 'cols', SESSION_SIZE_MIN, SESSION_SIZE_MAX) ?? DEFAULT_SESSION_COLS;
    const rows = optInt(body, 'rows', SESSION_SIZE_MIN, SESSION_SIZE_MAX) ?? DEFAULT_SESSION_ROWS;
    if (body.shellIntegration !== undefined && typeof body.shellIntegration !== 'boolean') throw badRequest('"shellIntegration" must be true or false');
    const agent = parseAgentLaunch(body, argv);
    const session = await registry.create({ name, argv, cwd, env, cols, rows, shellIntegration: body.shellIntegration !== false });
    if (agent !== undefined) agents.launch(session, agent);
    return { status: 201, json: session.info() };
  });

  router.add('getSession', (req) => ({ status: 200, json: target(req.params.target).info() }));

  router.add('renameSession', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    if (!('name' in body)) throw badRequest('nothing to change: give "name"');
    const name = body.name === null ? null : optString(body, 'name', { pattern: SESSION_NAME_PATTERN, hint: SESSION_NAME_HINT }) ?? null;
    registry.checkName(name, session);
    session.rename(name);
    return { status: 200, json: session.info() };
  });

  router.add('killSession', async (req) => {
    const session = target(req.params.target);
    const info = session.info();
    await registry.kill(session);
    return { status: 200, json: { ...info, status: 'disposed' } satisfies KilledSession };
  });

  router.add('reviveSession', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    const argv = optStringArray(body, 'argv', { maxItems: MAX_ARGV_ITEMS, maxLength: MAX_ARG_CHARS }) ?? defaultShellArgv(process.env);
    try {
      await session.revive(argv);
    } catch (err) {
      if (err instanceof SessionStateError) throw new ApiError('not_revivable', err.message);
      throw diskTroubleAnswer(err) ?? new ApiError('spawn_failed', (err as Error).message);
    }
    return { status: 200, json: session.info() };
  });

  addInputRoute(router, target);

  router.add('resizeSession', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    const cols = reqInt(body, 'cols', SESSION_SIZE_MIN, SESSION_SIZE_MAX);
    const rows = reqInt(body, 'rows', SESSION_SIZE_MIN, SESSION_SIZE_MAX);
    session.resize(cols, rows);
    return { status: 200, json: session.info() };
  });

  router.add('signalSession', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    const signo = parseSignal(body.signal);
    session.signal(signo);
    return { status: 200, json: { signal: signo } satisfies SignalSessionReply };
  });

  router.add('readScreen', async (req) => {
    const session = target(req.params.target);
    const format = req.query.get('format') ?? 'text';
    const scrollbackRows = queryWholeNumber(req.query, 'scrollback', 0, MAX_SCREEN_SCROLLBACK_ROWS, 0);
    if (format === 'snapshot') {
      // The snapshot covers exactly the bytes fed before the call: read the offset first.
      const offset = session.offset;
      const { snapshot, scrollback } = await session.screen.snapshot({ scrollbackRows });
      return { status: 200, json: { ...snapshot, offset, degraded: session.degraded, status: session.status, scrollback } satisfies ScreenSnapshotReply };
    }
    if (format !== 'text' && format !== 'ansi') throw badRequest('"format" must be text, ansi or snapshot');
    // Read in slices in the screen host: thousands of rows of history hold no loop for long.
    // What people are shown: a sleeping agent's kept screen (server/agents/agent-sleep.ts), else the live one.
    const shown = await session.shownScreen();
    const { text, scrollback, cols, rows, cursor } = await shown.text({ scrollbackRows, ansi: format === 'ansi' });
    const { exitCode, exitSignal } = session.info();
    return {
      status: 200,
      json: {
        text,
        scrollback,
        cols,
        rows,
        cursor,
        title: session.screen.title,
        offset: session.offset,
        degraded: session.degraded,
        status: session.status,
        exitCode, // null when a signal ended it: exitSignal says which
        exitSignal,
      } satisfies ScreenTextReply,
    };
  });

  router.add('searchSession', async (req) => {
    const session = target(req.params.target);
    const asked = searchAskedOf(req.query);
    // A search that gives up (a pattern that backtracks, a history too long to read at once) says why: http/core-errors.ts.
    return { status: 200, json: (await searchOneSession(session, asked)) satisfies SearchReply };
  });
}
