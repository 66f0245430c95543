// The HTTP API's parsing, as pure functions: the request target and its
// query's numbers (src/server/http/request-parts.ts) and the JSON body with the checks the
// routes make on it (request-parts.ts, validate.ts, input-api.ts's
// parseInputBody, session-env.ts, the workspace layout's parseLayout). The
// contract: a value comes back, or a 4xx ApiError (LayoutError for a
// layout, which the route turns into one); and what comes back is what the
// check promised (a whole number in its range, a string under its limit...).
import { parseJsonObject, parseRequestTarget, queryWholeNumber } from '../../../src/server/http/request-parts.js';
import { ApiError } from '../../../src/server/http/errors.js';
import { optInt, optString, optStringArray, optStringMap, reqInt, reqString, SESSION_NAME_PATTERN } from '../../../src/server/http/validate.js';
import { parseInputBody } from '../../../src/server/http/input-api.js';
import { sessionEnvFromRequest } from '../../../src/server/http/session-env.js';
import { LayoutError, parseLayout } from '../../../src/protocol/api/layout.js';
import { ContractBroken, type FuzzTarget } from '../target.js';

/** Runs one check; its refusal is the API's own (a 4xx), anything else escapes. */
function refusedOrValue<T>(check: () => T): T | undefined {
  try {
    return check();
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500) return undefined;
    if (err instanceof LayoutError) return undefined;
    throw err;
  }
}

function promise(holds: boolean, what: string): void {
  if (!holds) throw new ContractBroken(what);
}

/** The checks the routes make on bodies, with the bounds they use (sessions-api.ts, commands-api.ts, workspaces-api.ts). */
function checkBody(body: Record<string, unknown>): void {
  const name = refusedOrValue(() => optString(body, 'name', { pattern: SESSION_NAME_PATTERN, hint: 'a session name' }));
  promise(name === undefined || SESSION_NAME_PATTERN.test(name), `optString let through the name ${JSON.stringify(name)}`);
  const cwd = refusedOrValue(() => optString(body, 'cwd', { max: 4096 }));
  promise(cwd === undefined || cwd.length <= 4096, 'optString let through a cwd over its limit');
  for (const key of ['cols', 'rows']) {
    const n = refusedOrValue(() => optInt(body, key, 1, 1000));
    promise(n === undefined || (Number.isInteger(n) && n >= 1 && n <= 1000), `optInt let through ${key} = ${n}`);
    const required = refusedOrValue(() => reqInt(body, key, 1, 1000));
    promise(required === undefined || (Number.isInteger(required) && required >= 1 && required <= 1000), `reqInt let through ${key} = ${required}`);
  }
  const awaited = refusedOrValue(() => reqString(body, 'input', { max: 1024 * 1024 }));
  promise(awaited === undefined || typeof awaited === 'string', 'reqString let through a non-string');
  const timeout = refusedOrValue(() => optInt(body, 'timeoutMs', 0, 60 * 60 * 1000));
  promise(timeout === undefined || (Number.isSafeInteger(timeout) && timeout >= 0), `optInt let through timeoutMs = ${timeout}`);
  const argv = refusedOrValue(() => optStringArray(body, 'argv', { maxItems: 4096, maxLength: 128 * 1024 }));
  promise(argv === undefined || (Array.isArray(argv) && argv.every((a) => typeof a === 'string')), 'optStringArray let through a non-string');
  const env = refusedOrValue(() => optStringMap(body, 'env', { maxItems: 4096, maxLength: 128 * 1024 }));
  promise(env === undefined || Object.values(env).every((v) => typeof v === 'string'), 'optStringMap let through a non-string');
  const sessionEnv = refusedOrValue(() => sessionEnvFromRequest(body));
  if (sessionEnv !== undefined) {
    promise(typeof sessionEnv.TERM === 'string' && sessionEnv.TERM !== '', 'sessionEnvFromRequest gave no TERM');
    for (const [k, v] of Object.entries(sessionEnv)) promise(typeof v === 'string' && k !== '' && !k.includes('=') && !k.includes('\0') && !v.includes('\0'), `sessionEnvFromRequest let through ${JSON.stringify(k)}`);
  }
  const input = refusedOrValue(() => parseInputBody(body));
  if (input !== undefined) {
    promise(input.writer.length === 16, `parseInputBody gave a writer of ${input.writer.length} bytes`);
    if (typeof body.base64 === 'string') promise(input.bytes.toString('base64') === body.base64, 'parseInputBody took base64 that does not encode back to itself');
    else promise(input.bytes.toString('utf8') === Buffer.from(String(body.text), 'utf8').toString('utf8'), 'parseInputBody changed the text');
  }
  if ('layout' in body && body.layout !== null) refusedOrValue(() => parseLayout(body.layout));
}

export const httpBody: FuzzTarget = {
  name: 'http-body',
  parses: "the API's JSON bodies: parseJsonObject, then the routes' checks (validate.ts, parseInputBody, sessionEnvFromRequest, parseLayout)",
  fuzz(data) {
    const body = refusedOrValue(() => parseJsonObject(data));
    if (body !== undefined) checkBody(body);
  },
  tokens: ['{"', '":', '",', '"}', '[', ']', 'null', 'true', 'false', '-0', '1e999', '0.5', '9007199254740993', '\\u0000', '\\ud800', '"__proto__"', '{"type":"split","direction":"right","ratio":0.5,"first":', '{"type":"session","sessionId":"s1"}'].map((t) => new TextEncoder().encode(t)),
};

const QUERY_NUMBERS: ReadonlyArray<[string, number, number, number]> = [
  ['scrollback', 0, 1_000_000, 0],
  ['max', 1, 10_000, 100],
  ['waitMs', 0, 60 * 60 * 1000, 0],
];

export const httpRequestTarget: FuzzTarget = {
  name: 'http-request-target',
  parses: "parseRequestTarget, the path and query of a request as Node hands it over, and the query's numbers (queryWholeNumber)",
  fuzz(data) {
    // Node gives the request target as bytes, one character each.
    const target = refusedOrValue(() => parseRequestTarget(Buffer.from(data).toString('latin1')));
    if (target === undefined) return;
    promise(typeof target.path === 'string', 'the path is not a string');
    for (const [key, value] of target.query) promise(typeof key === 'string' && typeof value === 'string', 'a query pair is not two strings');
    // The numbers the routes read from the query, with their bounds (sessions-api.ts, commands-api.ts).
    for (const [key, min, max, fallback] of QUERY_NUMBERS) {
      const n = refusedOrValue(() => queryWholeNumber(target.query, key, min, max, fallback));
      promise(n === undefined || (Number.isInteger(n) && n >= min && n <= max), `queryWholeNumber let through ${key} = ${n}`);
    }
  },
  tokens: ['//', '/v1/sessions/', '?q=', '&max=', '&scrollback=', '?waitMs=', '0x', '1e', '-', '.5', 'Infinity', '%', '%2F', '%00', '[', ']', '@', ':', '#', '\\', ' ', '?scrollback=1e3&format=snapshot'].map((t) => new TextEncoder().encode(t)),
};
