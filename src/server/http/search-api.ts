// Searching sessions' histories: the query both search routes read (one
// session's, GET /v1/sessions/:target/search in sessions-api.ts, and every
// session's, GET /v1/search here), and the search of every session, which
// runs each session's own search one after another, each given the time
// the whole search has left. Each of those runs a user's regular expression
// on a pattern thread, never where the screens are parsed, so searching
// every session blocks no session either (and, one search after another,
// they reuse one thread: pattern-thread.ts). docs/api.md documents both routes.
import type { Router } from './router.js';
import {
  DEFAULT_SEARCH_MATCHES,
  MAX_SEARCH_MATCHES,
  MAX_SEARCH_PATTERN_CHARS,
  SEARCH_ALL_BUDGET_MS,
  type SearchAllReply,
  type SearchReply,
  type SessionSearchHits,
  type SessionSearchSkip,
} from '../../protocol/api/index.js';
import { badRequest } from './errors.js';
import { queryWholeNumber } from './request-parts.js';
import type { SessionRegistry } from '../session-registry.js';
import type { Session } from '../session.js';
import { ScreenHostError, type SearchQuery } from '../screen-host/index.js';

/**
 * How long a search of every session may take in all: SEARCH_ALL_BUDGET_MS,
 * or TEND_SEARCH_ALL_BUDGET_MS (whole milliseconds), a knob for tests, which
 * make it short to see where the search stops.
 */
function searchAllBudgetMs(env: NodeJS.ProcessEnv): number {
  const set = env.TEND_SEARCH_ALL_BUDGET_MS;
  return set !== undefined && /^\d+$/.test(set) ? Number(set) : SEARCH_ALL_BUDGET_MS;
}

/** What a search route was asked: the pattern and how to read it, and how many matches (per session) to keep. */
export interface SearchAsked {
  query: SearchQuery;
  max: number;
}

/** `?q=TEXT&regex=1&ignore-case=1&max=N`, checked: a bad one is 400 with the parameter named. */
export function searchAskedOf(params: URLSearchParams): SearchAsked {
  const pattern = params.get('q');
  if (pattern === null || pattern === '') throw badRequest('give the text to find as "q"');
  if (pattern.length > MAX_SEARCH_PATTERN_CHARS) throw badRequest(`"q" is at most ${MAX_SEARCH_PATTERN_CHARS} characters`);
  const max = queryWholeNumber(params, 'max', 1, MAX_SEARCH_MATCHES, DEFAULT_SEARCH_MATCHES);
  const ignoreCase = params.get('ignore-case') === '1';
  const regex = params.get('regex') === '1';
  if (regex) {
    try {
      new RegExp(pattern, ignoreCase ? 'iu' : 'u');
    } catch (err) {
      throw badRequest(`"q" is not a regular expression: ${(err as Error).message}`);
    }
  }
  return { query: { pattern, regex, ignoreCase }, max };
}

/**
 * One session's search as the API answers it, stopped after `budgetMs`
 * (default: a search's own budget). A search that gives up throws
 * (http/core-errors.ts says why).
 */
export async function searchOneSession(session: Session, asked: SearchAsked, budgetMs?: number): Promise<SearchReply> {
  const result = await session.screen.search(asked.query, asked.max, budgetMs);
  return { ...result, truncated: result.total > result.matches.length };
}

export function addSearchRoutes(router: Router, registry: SessionRegistry): void {
  const budgetMs = searchAllBudgetMs(process.env);
  router.add('searchSessions', async (req) => {
    const asked = searchAskedOf(req.query);
    const listed = registry.list();
    const chosen = chosenSessions(req.query.get('sessions'), registry);
    return { status: 200, json: await searchEverySession(listed.filter((s) => chosen === null || chosen.has(s)), listed, asked, budgetMs) satisfies SearchAllReply };
  });
}

/** `sessions=T,T`: each a target as any route takes it (an unknown one is 404 with candidates); null when absent (every session). */
function chosenSessions(param: string | null, registry: SessionRegistry): Set<Session> | null {
  if (param === null) return null;
  const targets = param.split(',');
  if (targets.some((t) => t.trim() === '')) throw badRequest(`"sessions" must be session targets separated by commas, not ${JSON.stringify(param)}`);
  return new Set(targets.map((t) => registry.resolve(t.trim())));
}

/**
 * Searches `sessions` one after another, in their order, within `budgetMs`
 * in all: each session's search is given the time left, so the one running
 * when it is spent stops there (listed as search_too_long) and those after
 * it are not begun (budget_spent). A pattern that backtracks fails the whole
 * search (it would in every session); a session removed meanwhile is listed
 * as gone.
 */
async function searchEverySession(sessions: Session[], listed: Session[], asked: SearchAsked, budgetMs: number): Promise<SearchAllReply> {
  const reply: SearchAllReply = { sessions: [], searched: 0, total: 0, skipped: [] };
  const started = performance.now();
  const skip = (session: Session, reason: SessionSearchSkip['reason'], message: string): void => {
    reply.skipped.push({ id: session.id, name: session.name, reason, message });
  };
  for (const session of sessions) {
    if (session.isDisposed) {
      skip(session, 'gone', 'not searched: it was removed before its turn');
      continue;
    }
    const spentMs = performance.now() - started;
    if (spentMs >= budgetMs) {
      skip(session, 'budget_spent', `not searched: the search of every session had taken ${duration(spentMs)} before its turn (\`tend search ${session.label} TEXT\` searches it alone)`);
      continue;
    }
    let found: SearchReply;
    try {
      found = await searchOneSession(session, asked, budgetMs - spentMs);
    } catch (err) {
      if (session.isDisposed) {
        skip(session, 'gone', 'not searched: it was removed while it was searched');
        continue;
      }
      if (err instanceof ScreenHostError && err.searchStopped === 'search_too_long') {
        // A session's own search may take as long as the whole (both 30 s): what stopped it was the time left.
        skip(session, 'search_too_long', `not searched to its end: the search of every session reached its ${duration(budgetMs)} while this session's history was read ` +
          `(\`tend search ${session.label} TEXT\` searches it alone)`);
        continue;
      }
      throw err; // pattern_too_slow: the same pattern everywhere, so the whole request fails
    }
    // Removed as its search ended: its rows are no session's any more.
    if (session.isDisposed) {
      skip(session, 'gone', 'not searched: it was removed while it was searched');
      continue;
    }
    reply.searched++;
    reply.total += found.total;
    if (found.total === 0) continue;
    const hits: SessionSearchHits = { id: session.id, name: session.name, index: listed.indexOf(session) + 1, status: session.status, ...found };
    reply.sessions.push(hits);
  }
  return reply;
}

/** `30 s`, or `250 ms` under a second. */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}
