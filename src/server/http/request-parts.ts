// The parts of a request the router reads before any route runs: its target
// (path and query) and its JSON body, and the query's numbers the routes
// read. Pure functions, so the fault suite's fuzzer can feed them anything;
// every refusal is a 400 ApiError.
import { ApiError, badRequest } from './errors.js';

export interface RequestTarget {
  path: string;
  query: URLSearchParams;
}

/** Longest piece of a bad request target quoted back in the error. */
const QUOTED_TARGET_CHARS = 200;

/**
 * The path and query of a request target as Node hands it over (`req.url`).
 * Node's parser lets through targets no URL parser accepts (`//[`, `//a b`),
 * and `new URL` throws on them: that is a 400, not a request left unanswered.
 */
export function parseRequestTarget(rawUrl: string): RequestTarget {
  let url: URL;
  try {
    url = new URL(rawUrl, 'http://tend');
  } catch {
    throw new ApiError('bad_url', `the request target ${JSON.stringify(rawUrl.slice(0, QUOTED_TARGET_CHARS))} is not a URL path`);
  }
  return { path: url.pathname, query: url.searchParams };
}

/** A request body as the API reads it: nothing is {}, else it must be a JSON object. */
export function parseJsonObject(body: Uint8Array): Record<string, unknown> {
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new ApiError('bad_json', 'the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('bad_json', 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/** A query parameter that must be a whole number from min to max; `fallback` when it is absent. */
export function queryWholeNumber(query: URLSearchParams, key: string, min: number, max: number, fallback: number): number {
  const param = query.get(key);
  const n = param === null ? fallback : Number(param);
  if (!Number.isInteger(n) || n < min || n > max) throw badRequest(`"${key}" must be a whole number from ${min} to ${max}`);
  return n;
}
