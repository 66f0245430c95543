// A small router over node:http: routes are the API contract's
// (src/protocol/api/routes.ts), whose `:name` segments become params. JSON
// in, JSON out, bodies bounded.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.js';
import { apiErrorOf } from './core-errors.js';
import { diskTroubleOf } from '../../common/disk-trouble.js';
import type { Logger } from '../log.js';
import { parseJsonObject, parseRequestTarget } from './request-parts.js';
import { API_ROUTES, type ApiRouteName } from '../../protocol/api/index.js';
import { API_HEADER, API_VERSIONS, BUILD_HEADER, VERSION_HEADER, formatVersionRange, parseVersionRange, versionRangesOverlap } from '../../protocol/api/versions.js';
import { TEND_BUILD, TEND_VERSION } from '../../common/version.js';

export interface Request {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Reads the body as JSON (an object), at most limitBytes. */
  json(limitBytes?: number): Promise<Record<string, unknown>>;
  raw: IncomingMessage;
}

export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; text: string; contentType?: string; headers?: Record<string, string> };

export type Handler = (req: Request, res: ServerResponse) => Promise<Reply | undefined> | Reply | undefined;

interface Route {
  method: string;
  path: string;
  segments: string[];
  handler: Handler;
}

const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export class Router {
  private readonly routes: Route[] = [];

  /** Serves a route of the contract: by name, so no route outside it can be served. */
  add(name: ApiRouteName, handler: Handler): void {
    const route = API_ROUTES[name];
    if (this.routes.some((r) => r.method === route.method && r.path === route.path)) throw new Error(`route ${route.method} ${route.path} added twice`);
    this.routes.push({ method: route.method, path: route.path, segments: route.path.split('/').filter(Boolean), handler });
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | 'method' | null {
    const parts = path.split('/').filter(Boolean);
    let methodMismatch = false;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          try {
            params[seg.slice(1)] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        } else ok = seg === part;
      }
      if (!ok) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      return { route, params };
    }
    return methodMismatch ? 'method' : null;
  }

  async handle(raw: IncomingMessage, res: ServerResponse, log: Logger): Promise<void> {
    const method = raw.method ?? 'GET';
    // For the log until the target is parsed: a target that is no URL is answered too.
    let path = raw.url ?? '/';
    sayWhichTend(res);
    try {
      refuseIncompatibleClient(raw.headers);
      const target = parseRequestTarget(raw.url ?? '/');
      path = target.path;
      const found = this.match(method, path);
      if (found === null) throw new ApiError('not_found', `no such route: ${method} ${path}`);
      if (found === 'method') throw new ApiError('method_not_allowed', `${method} is not allowed on ${path}`);
      const req: Request = {
        method,
        path,
        params: found.params,
        query: target.query,
        headers: raw.headers,
        raw,
        json: (limit = DEFAULT_BODY_LIMIT_BYTES) => readJson(raw, limit),
      };
      const reply = await found.route.handler(req, res);
      if (reply) send(res, reply);
    } catch (caught) {
      // The core's errors are answered with their API codes; anything else is a bug.
      const answer = apiErrorOf(caught);
      if (answer !== null) {
        // A full or read-only disk is the machine's trouble, not the request's: the log keeps it too.
        if (diskTroubleOf(caught) !== null) log.warn(`${method} ${path}: ${answer.message}`);
        send(res, { status: answer.status, json: answer.body() });
      } else {
        log.error(`${method} ${path} failed`, caught);
        send(res, { status: 500, json: new ApiError('internal', 'internal server error; see the server log').body() });
      }
    }
  }
}

/**
 * Every reply says which tend answers (docs/api.md, "Versions"): set before
 * the handler runs, so a reply the handler writes itself carries them too,
 * and a client of another build learns it without asking.
 */
function sayWhichTend(res: ServerResponse): void {
  for (const [name, value] of WHICH_TEND_HEADER_ENTRIES) res.setHeader(name, value);
}

/** Which tend answers does not change while the process runs: built once, not on every request. */
const WHICH_TEND_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  [VERSION_HEADER]: TEND_VERSION,
  [BUILD_HEADER]: TEND_BUILD,
  [API_HEADER]: formatVersionRange(API_VERSIONS),
});
const WHICH_TEND_HEADER_ENTRIES = Object.entries(WHICH_TEND_HEADERS);

/** The headers that say which tend answers: also on the answers written before any route (client-errors.ts). */
export function whichTendHeaders(): Readonly<Record<string, string>> {
  return WHICH_TEND_HEADERS;
}

/**
 * A client that says which API versions it speaks (the CLI does) and shares
 * none with this server is refused before anything is done: it could
 * misread the answer, or ask for what it does not mean. A client that says
 * nothing (curl, the page, a script) is served as ever.
 */
function refuseIncompatibleClient(headers: IncomingMessage['headers']): void {
  const said = headers[API_HEADER];
  const client = parseVersionRange(Array.isArray(said) ? said[0] : said);
  if (client === null || versionRangesOverlap(client, API_VERSIONS)) return;
  const build = headers[BUILD_HEADER];
  throw new ApiError(
    'incompatible_client',
    `this client (build ${typeof build === 'string' ? build : 'unknown'}) speaks API ${formatVersionRange(client)}, ` +
      `this server (tend ${TEND_VERSION}, build ${TEND_BUILD}) speaks ${formatVersionRange(API_VERSIONS)}: nothing was done`,
  );
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...reply.headers };
  if ('json' in reply) {
    const body = JSON.stringify(reply.json);
    res.writeHead(reply.status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  } else {
    res.writeHead(reply.status, { ...headers, 'content-type': reply.contentType ?? 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(reply.text)) });
    res.end(reply.text);
  }
}

/**
 * An oversized body is read to its end and dropped, up to this much, before
 * the 413 goes out. Answering early would close the connection under a
 * client still writing: it gets EPIPE, often before it has read the answer,
 * and reports a broken connection instead of "too large".
 */
const OVERSIZE_DISCARD_BYTES = 256 * 1024 * 1024;

export async function readBody(raw: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(raw.headers['content-length'] ?? 0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes || declared > limitBytes) {
      chunks.length = 0;
      if (size > limitBytes + OVERSIZE_DISCARD_BYTES) break; // past that, the connection closes under the client
      continue;
    }
    chunks.push(chunk);
  }
  if (declared > limitBytes) throw new ApiError('too_large', `request body of ${declared} bytes is over the limit of ${limitBytes}`);
  if (size > limitBytes) throw new ApiError('too_large', `request body is over the limit of ${limitBytes} bytes`);
  return Buffer.concat(chunks);
}

async function readJson(raw: IncomingMessage, limitBytes: number): Promise<Record<string, unknown>> {
  return parseJsonObject(await readBody(raw, limitBytes));
}
