// Serves the built browser app (web/dist) from the tend server itself, so
// using it needs no dev server. GET and HEAD of any path outside /v1: a file
// of web/dist when one matches, index.html for client routes (/w/build), 404
// for a missing asset (a stale page asking for an old hash must not get HTML).
// Paths are resolved inside the root and checked to stay there, so "..",
// encoded or not, never leaves it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createReadStream, statSync, type Stats } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** web/dist beside the compiled server: dist/src/server/http/ → the repository root. */
export const DEFAULT_WEB_DIST_DIR = fileURLToPath(new URL('../../../../web/dist/', import.meta.url));

/**
 * Vite names what it emits under assets/ by content hash: a changed file gets
 * a new name, so these can be cached for good. Everything else (index.html,
 * the manifest, icons) must be revalidated, or a browser keeps an old page.
 */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
const REVALIDATE_CACHE = 'no-cache';
const HASHED_ASSET_DIR = 'assets/';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

export interface StaticFilesOptions {
  /** The built app; TEND_WEB_DIR in the environment, else web/dist. */
  root?: string;
}

export interface StaticFiles {
  /**
   * Answers the request when it is the web app's (GET or HEAD outside /v1)
   * and returns true; returns false, touching nothing, for everything else.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly root: string;
}

function isApiPath(pathname: string): boolean {
  return pathname === '/v1' || pathname.startsWith('/v1/');
}

/** The file under root a URL path names, or null when it would leave root or cannot be decoded. */
export function resolveInside(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const file = resolve(root, '.' + (decoded.startsWith('/') ? decoded : `/${decoded}`));
  return file === root || file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

function statFile(path: string): Stats | null {
  try {
    const st = statSync(path);
    return st.isFile() ? st : null;
  } catch {
    return null;
  }
}

function plain(res: ServerResponse, status: number, text: string, head: boolean): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store' });
  res.end(head ? undefined : text);
}

export function createStaticFiles(options: StaticFilesOptions = {}): StaticFiles {
  const root = resolve(options.root ?? (process.env.TEND_WEB_DIR || DEFAULT_WEB_DIST_DIR));

  const sendFile = (req: IncomingMessage, res: ServerResponse, file: string, st: Stats, relative: string) => {
    const head = req.method === 'HEAD';
    const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
    const headers: Record<string, string> = {
      'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'cache-control': relative.startsWith(HASHED_ASSET_DIR) ? HASHED_ASSET_CACHE : REVALIDATE_CACHE,
      etag,
      'x-content-type-options': 'nosniff',
    };
    if (extname(file) === '.html') {
      // The page is only ever its own frame: no clickjacking of a terminal.
      headers['x-frame-options'] = 'DENY';
      headers['content-security-policy'] = "frame-ancestors 'none'";
    }
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    headers['content-length'] = String(st.size);
    res.writeHead(200, headers);
    if (head) {
      res.end();
      return;
    }
    const stream = createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') return false;
    let pathname: string;
    try {
      pathname = new URL(req.url ?? '/', 'http://tend').pathname;
    } catch {
      return false;
    }
    if (isApiPath(pathname)) return false;
    const head = method === 'HEAD';
    const file = resolveInside(root, pathname);
    if (file === null) {
      plain(res, 400, 'bad path\n', head);
      return true;
    }
    const relative = file.slice(root.length + 1).split(sep).join('/');
    const st = statFile(file);
    if (st) {
      sendFile(req, res, file, st, relative);
      return true;
    }
    // A path with a file extension asks for a file; anything else is a page of the app.
    const looksLikeFile = extname(pathname) !== '' || relative.startsWith(HASHED_ASSET_DIR);
    const index = join(root, 'index.html');
    const indexStat = looksLikeFile ? null : statFile(index);
    if (indexStat) {
      sendFile(req, res, index, indexStat, 'index.html');
      return true;
    }
    if (!looksLikeFile && statFile(index) === null) {
      plain(res, 404, `the web app is not built (no ${index}); run \`npm run build:web\`\n`, head);
      return true;
    }
    plain(res, 404, `no such file: ${pathname}\n`, head);
    return true;
  };

  return { handle, root };
}
