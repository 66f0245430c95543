// /v1/sessions: create, list, inspect, rename, kill, revive, type into,
// resize, signal and read sessions. docs/api.md documents every route.
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { constants as osConstants } from 'node:os';
import type { Router } from './router.js';
import { ApiError, badRequest, diskTroubleAnswer } from './errors.js';
import { optInt, optString, optStringArray, reqInt, SESSION_NAME_HINT, SESSION_NAME_PATTERN } from './validate.js';
import type { SessionRegistry } from '../session-registry.js';
import { SessionStateError, type Session } from '../session.js';
import { defaultShellArgv } from '../default-shell.js';
import { sessionEnvFromRequest } from './session-env.js';
import { queryWholeNumber } from './request-parts.js';
import { addInputRoute } from './input-api.js';
import { ScreenHostError } from '../screen-host/index.js';

const MAX_ARGV_ITEMS = 4096;
const MAX_ARG_LENGTH = 128 * 1024;
const MAX_SCROLLBACK_ROWS = 1_000_000;
const DEFAULT_SEARCH_MATCHES = 100;
const MAX_SEARCH_MATCHES = 10_000;
const MAX_SEARCH_PATTERN_CHARS = 1000;

function stateErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SessionStateError) throw new ApiError(409, 'session_not_running', err.message);
    throw err;
  }
}

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

export function addSessionRoutes(router: Router, registry: SessionRegistry): void {
  const target = (t: string | undefined): Session => registry.resolve(t ?? '');

  router.add('GET', '/v1/sessions', () => ({ status: 200, json: registry.list().map((s, i) => ({ index: i + 1, ...s.info() })) }));

  router.add('POST', '/v1/sessions', async (req) => {
    const body = await req.json();
    const name = optString(body, 'name', { pattern: SESSION_NAME_PATTERN, hint: SESSION_NAME_HINT }) ?? null;
    const env = sessionEnvFromRequest(body);
    const argv = optStringArray(body, 'argv', { maxItems: MAX_ARGV_ITEMS, maxLength: MAX_ARG_LENGTH }) ?? defaultShellArgv(env);
    if (argv.length === 0) throw badRequest('"argv" must name a program to run');
    const cwd = parseCwd(optString(body, 'cwd', { max: 4096 }), env.HOME ?? process.cwd());
    const cols = optInt(body, 'cols', 1, 1000) ?? 80;
    const rows = optInt(body, 'rows', 1, 1000) ?? 24;
    if (body.shellIntegration !== undefined && typeof body.shellIntegration !== 'boolean') throw badRequest('"shellIntegration" must be true or false');
    const session = await registry.create({ name, argv, cwd, env, cols, rows, shellIntegration: body.shellIntegration !== false });
    return { status: 201, json: session.info() };
  });

  router.add('GET', '/v1/sessions/:target', (req) => ({ status: 200, json: target(req.params.target).info() }));

  router.add('PATCH', '/v1/sessions/:target', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    if (!('name' in body)) throw badRequest('nothing to change: give "name"');
    const name = body.name === null ? null : optString(body, 'name', { pattern: SESSION_NAME_PATTERN, hint: SESSION_NAME_HINT }) ?? null;
    registry.checkName(name, session);
    session.rename(name);
    return { status: 200, json: session.info() };
  });

  router.add('DELETE', '/v1/sessions/:target', async (req) => {
    const session = target(req.params.target);
    const info = session.info();
    await registry.kill(session);
    return { status: 200, json: { ...info, status: 'disposed' } };
  });

  router.add('POST', '/v1/sessions/:target/revive', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    const argv = optStringArray(body, 'argv', { maxItems: MAX_ARGV_ITEMS, maxLength: MAX_ARG_LENGTH }) ?? defaultShellArgv(process.env);
    try {
      await session.revive(argv);
    } catch (err) {
      if (err instanceof SessionStateError) throw new ApiError(409, 'not_revivable', err.message);
      throw diskTroubleAnswer(err) ?? new ApiError(400, 'spawn_failed', (err as Error).message);
    }
    return { status: 200, json: session.info() };
  });

  addInputRoute(router, target);

  router.add('POST', '/v1/sessions/:target/resize', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    const cols = reqInt(body, 'cols', 1, 1000);
    const rows = reqInt(body, 'rows', 1, 1000);
    stateErrors(() => session.resize(cols, rows));
    return { status: 200, json: session.info() };
  });

  router.add('POST', '/v1/sessions/:target/signal', async (req) => {
    const session = target(req.params.target);
    const body = await req.json();
    const signo = parseSignal(body.signal);
    stateErrors(() => session.signal(signo));
    return { status: 200, json: { signal: signo } };
  });

  router.add('GET', '/v1/sessions/:target/screen', async (req) => {
    const session = target(req.params.target);
    const format = req.query.get('format') ?? 'text';
    const scrollbackRows = queryWholeNumber(req.query, 'scrollback', 0, MAX_SCROLLBACK_ROWS, 0);
    if (format === 'snapshot') {
      // The snapshot covers exactly the bytes fed before the call: read the offset first.
      const offset = session.offset;
      const { snapshot, scrollback } = await session.screen.snapshot({ scrollbackRows });
      return { status: 200, json: { ...snapshot, offset, degraded: session.degraded, status: session.status, scrollback } };
    }
    if (format !== 'text' && format !== 'ansi') throw badRequest('"format" must be text, ansi or snapshot');
    // Read in slices in the screen host: thousands of rows of history hold no loop for long.
    const { text, scrollback, cols, rows, cursor } = await session.screen.text({ scrollbackRows, ansi: format === 'ansi' });
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
      },
    };
  });

  router.add('GET', '/v1/sessions/:target/search', async (req) => {
    const session = target(req.params.target);
    const pattern = req.query.get('q');
    if (pattern === null || pattern === '') throw badRequest('give the text to find as "q"');
    if (pattern.length > MAX_SEARCH_PATTERN_CHARS) throw badRequest(`"q" is at most ${MAX_SEARCH_PATTERN_CHARS} characters`);
    const max = queryWholeNumber(req.query, 'max', 1, MAX_SEARCH_MATCHES, DEFAULT_SEARCH_MATCHES);
    const ignoreCase = req.query.get('ignore-case') === '1';
    const regex = req.query.get('regex') === '1';
    if (regex) {
      try {
        new RegExp(pattern, ignoreCase ? 'iu' : 'u');
      } catch (err) {
        throw badRequest(`"q" is not a regular expression: ${(err as Error).message}`);
      }
    }
    const result = await session.screen.search({ pattern, regex, ignoreCase }, max).catch((err: unknown) => {
      // A search that gave up (a pattern that backtracks, a history too long to read at once) says why.
      if (!(err instanceof ScreenHostError) || err.searchStopped === undefined) throw err;
      throw new ApiError(err.searchStopped === 'pattern_too_slow' ? 400 : 422, err.searchStopped, err.message);
    });
    return { status: 200, json: { ...result, truncated: result.total > result.matches.length } };
  });
}
