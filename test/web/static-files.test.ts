// The web app's static files as the server serves them: content types, the
// index.html fallback for client routes, cache headers by hashed name, and
// no way out of the root — over a real http server on 127.0.0.1.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { createStaticFiles } from '../../src/server/http/static-files.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('static files', { timeout: 30_000 }, () => {
  let dir = '';
  let root = '';
  let server: Server;
  let port = 0;

  // A raw request: fetch would normalise "/../" away before it is sent.
  const get = (path: string, method = 'GET', headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  before(async () => {
    dir = makeTempDir('tend-web-');
    root = join(dir, 'dist');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>tend</title>');
    writeFileSync(join(root, 'assets', 'index-AbC123.js'), 'console.log(1)');
    writeFileSync(join(root, 'manifest.webmanifest'), '{}');
    writeFileSync(join(root, 'icon.svg'), '<svg/>');
    writeFileSync(join(dir, 'secret.txt'), 'outside the root');
    const web = createStaticFiles({ root });
    server = createServer((req, res) => {
      if (web.handle(req, res)) return;
      res.writeHead(299, { 'content-type': 'text/plain' });
      res.end('not mine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    removeTempDir(dir);
  });

  test('serves files with their content types; hashed assets are cached for good, the rest revalidated', async () => {
    const js = await get('/assets/index-AbC123.js');
    assert.equal(js.status, 200);
    assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(js.body, 'console.log(1)');
    const manifest = await get('/manifest.webmanifest');
    assert.equal(manifest.headers['content-type'], 'application/manifest+json; charset=utf-8');
    assert.equal(manifest.headers['cache-control'], 'no-cache');
    assert.equal((await get('/icon.svg')).headers['content-type'], 'image/svg+xml');
  });

  test('client routes get index.html; a missing asset is a 404, not the page', async () => {
    for (const path of ['/', '/w/build', '/w/a%20b/']) {
      const page = await get(path);
      assert.equal(page.status, 200, path);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.match(page.body, /<title>tend<\/title>/);
    }
    assert.equal((await get('/assets/index-Old999.js')).status, 404);
    assert.equal((await get('/favicon.ico')).status, 404);
  });

  test('an unchanged file answers 304 to its etag; HEAD has headers and no body', async () => {
    const first = await get('/icon.svg');
    const again = await get('/icon.svg', 'GET', { 'if-none-match': String(first.headers.etag) });
    assert.equal(again.status, 304);
    const head = await get('/icon.svg', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], '6');
    assert.equal(head.body, '');
  });

  test('never leaves the root, with or without encoding', async () => {
    for (const path of ['/../secret.txt', '/assets/../../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/%2e%2e%2f%2e%2e%2fetc/passwd']) {
      const res = await get(path);
      assert.doesNotMatch(res.body, /outside the root/, path);
      assert.ok(res.status === 400 || res.status === 404 || (res.status === 200 && res.body.includes('<title>tend')), `${path}: ${res.status}`);
    }
    assert.equal((await get('/%00')).status, 400);
    assert.equal((await get('/%E0%A4%A')).status, 400);
  });

  test('leaves /v1 and every other method to the API', async () => {
    assert.equal((await get('/v1/health')).body, 'not mine');
    assert.equal((await get('/v1')).body, 'not mine');
    assert.equal((await get('/anything', 'POST')).body, 'not mine');
    assert.equal((await get('/', 'PUT')).body, 'not mine');
  });
});
