// The HTTP API's contract (src/protocol/api/) against what serves it and
// what documents it: a real server answers every route the contract lists
// (the router takes routes only by their contract name, so it can serve no
// other), and docs/api.md names every route and every error code.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_ERRORS, API_ROUTES, routePath, type ApiRoute } from '../../src/protocol/api/index.js';
import { repoRoot, startTestServer } from '../server/harness.js';

const TEST_TIMEOUT_MS = 120_000;
const apiDoc = readFileSync(join(repoRoot, 'docs', 'api.md'), 'utf8');

/** Parameters that name nothing: each route must still be found (and answer "no such session", not "no such route"). */
const NOWHERE = { target: ':no-such-session', id: 'w000000000000', name: 'no-such-workspace' };
/** A body no route accepts (argv must name a program): a route is found, and nothing is started. */
const REFUSED_BODY = { argv: [] };

describe('the HTTP API contract', { timeout: TEST_TIMEOUT_MS }, () => {
  test('docs/api.md documents every route of the contract', () => {
    const missing = Object.values(API_ROUTES)
      .map((r: ApiRoute) => `${r.method} ${r.path}`)
      .filter((r) => !apiDoc.includes(`\`${r}\``));
    assert.deepEqual(missing, [], `routes the contract has and docs/api.md does not name (as \`METHOD /path\`)`);
  });

  test('docs/api.md names every error code of the contract', () => {
    const missing = Object.keys(API_ERRORS).filter((code) => !apiDoc.includes(`\`${code}\``));
    assert.deepEqual(missing, [], 'error codes the contract has and docs/api.md does not name');
  });

  test('docs/api.md gives each error code its status', () => {
    // The status table names each code in the row of its status.
    const wrong: string[] = [];
    for (const [code, { status }] of Object.entries(API_ERRORS)) {
      const row = apiDoc.split('\n').find((line) => line.startsWith(`| ${status} |`));
      if (row === undefined || !row.includes(`\`${code}\``)) wrong.push(`${code} (${status})`);
    }
    assert.deepEqual(wrong, [], 'codes missing from their status row of the table in docs/api.md');
  });

  test('a real server serves every route of the contract', async () => {
    const server = startTestServer();
    try {
      assert.equal((await server.cli(['server', 'start'])).code, 0);
      const unserved: string[] = [];
      for (const [name, r] of Object.entries(API_ROUTES) as Array<[string, ApiRoute]>) {
        if (name === 'stopServer') continue; // served, and would stop the server: asked last
        const res = await server.api(r.method, routePath(r, NOWHERE), r.method === 'GET' || r.method === 'DELETE' ? undefined : REFUSED_BODY);
        const error = (res.body as { error?: { code?: string; message?: string } } | null)?.error;
        const noRoute = res.status === 405 || (res.status === 404 && error?.code === 'not_found' && /^no such route/.test(error.message ?? ''));
        if (noRoute) unserved.push(`${r.method} ${r.path}`);
        if (error !== undefined) assert.ok(error.code !== undefined && error.code in API_ERRORS, `${r.method} ${r.path} answered a code the contract lacks: ${error.code}`);
      }
      assert.deepEqual(unserved, [], 'routes of the contract the server does not serve');
      assert.deepEqual(await server.holderPids(), [], 'no route asked started a session');
      const stop = await server.api(API_ROUTES.stopServer.method, API_ROUTES.stopServer.path);
      assert.equal(stop.status, 202);
    } finally {
      await server.dispose();
    }
  });
});
