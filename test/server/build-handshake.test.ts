// Versioned hand-shakes between the CLI and the server: a build id computed
// from the sources, said by the server's health, its home lock and every API
// reply; a CLI of another build says so once on stderr and goes on while the
// API versions overlap, refuses (exit 76, nothing done) when they do not, and
// never starts a second server beside the running one; a server that takes a
// request and never answers ends the command with why, never hangs. The
// other builds are real runnable copies of this tree (test/support/other-build.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { cliOf, startTestServer, repoRoot, type CliResult, type TestServer } from './harness.js';
import { makeOtherBuild } from '../support/other-build.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { isProcessAlive, pidsWithEnv } from '../support/processes.js';
import { TEND_BUILD, TEND_VERSION, UNKNOWN_BUILD } from '../../src/common/version.js';
import type { HealthReply } from '../../src/protocol/api/index.js';

const TEST_TIMEOUT_MS = 180_000;
const OTHER_VERSION = '9.0.0';
const OTHER_BUILD = 'test-900';
/** What every line about another build ends with: the remedy. */
const REMEDY = '`tend upgrade` moves the server to this build without closing a terminal (`tend server restart` also works)';

/** `tend ARGS` of the tree at root (this one or a copy), with exactly this environment, and how long it took. */
async function tendOf(root: string, env: NodeJS.ProcessEnv, args: string[], timeoutMs = 60_000): Promise<CliResult & { ms: number }> {
  const startedAt = Date.now();
  const result = await cliOf(root, env, args, timeoutMs);
  return { ...result, ms: Date.now() - startedAt };
}

/** The tend server processes started with this TEND_HOME. */
function serversOf(home: string): number[] {
  return pidsWithEnv('TEND_HOME', home).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('server/main.js');
    } catch {
      return false;
    }
  });
}

function homeLockOf(server: TestServer): Record<string, unknown> {
  return JSON.parse(readFileSync(join(server.home, 'server.lock'), 'utf8')) as Record<string, unknown>;
}

function stderrLines(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line !== '');
}

/** One raw request on the server's socket, with these headers: its status, headers and parsed body. */
function rawRequest(server: TestServer, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: server.client.paths.serverSocket, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? null : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

let scratch: string;
/** A copy of this tree saying version 9.0.0, build test-900. */
let other: string;
/** The same, speaking API 2-3 (none of this tree's 1-1). */
let incompatible: string;

before(() => {
  scratch = makeTempDir('tend-builds-');
  other = makeOtherBuild({ dir: join(scratch, 'other'), version: OTHER_VERSION, build: OTHER_BUILD });
  incompatible = makeOtherBuild({
    dir: join(scratch, 'api3'),
    version: '10.0.0',
    build: 'test-api3',
    patch: (root) => {
      const file = join(root, 'dist', 'src', 'protocol', 'api', 'versions.js');
      const text = readFileSync(file, 'utf8');
      const patched = text.replace(/API_VERSIONS = \{ oldest: 1, newest: 1 \}/, 'API_VERSIONS = { oldest: 2, newest: 3 }');
      assert.notEqual(patched, text, 'the copy\'s API range was patched');
      writeFileSync(file, patched);
    },
  });
});

after(() => removeTempDir(scratch));

describe('the build id', { timeout: TEST_TIMEOUT_MS }, () => {
  test('is a hash of the sources, not of git or the path: the same tree gives the same id anywhere, a changed source or version another', () => {
    const tree = join(scratch, 'tree');
    mkdirSync(join(tree, 'scripts'), { recursive: true });
    cpSync(join(repoRoot, 'scripts', 'write-build-id.js'), join(tree, 'scripts', 'write-build-id.js'));
    writeFileSync(join(tree, 'package.json'), JSON.stringify({ name: 'tend', version: '1.2.3', type: 'module' }));
    for (const dir of ['src/common', 'web/src', 'holder/build', 'viewer']) mkdirSync(join(tree, dir), { recursive: true });
    writeFileSync(join(tree, 'src', 'common', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(tree, 'holder', 'main.c'), 'int main(void) { return 0; }\n');
    writeFileSync(join(tree, 'holder', 'build', 'tend-holder'), 'a binary');
    const idOf = (root: string): { version: string; build: string } => {
      const run = spawnSync(process.execPath, [join(root, 'scripts', 'write-build-id.js')], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const text = readFileSync(join(root, 'dist', 'build-id.json'), 'utf8');
      const id = JSON.parse(text) as { version: string; build: string };
      assert.deepEqual(Object.keys(id), ['version', 'build'], text);
      return id;
    };
    const first = idOf(tree);
    assert.equal(first.version, '1.2.3');
    assert.match(first.build, /^[0-9a-f]{16}$/);
    assert.deepEqual(idOf(tree), first, 'the same sources, the same id');
    const moved = join(scratch, 'tree-elsewhere');
    cpSync(tree, moved, { recursive: true });
    assert.deepEqual(idOf(moved), first, 'a copy elsewhere (no .git anywhere) has the same id');
    writeFileSync(join(moved, 'holder', 'build', 'tend-holder'), 'another binary');
    assert.deepEqual(idOf(moved), first, 'build outputs are not sources');
    writeFileSync(join(moved, 'src', 'common', 'a.ts'), 'export const a = 2;\n');
    const edited = idOf(moved);
    assert.notEqual(edited.build, first.build, 'a changed source changes the id');
    writeFileSync(join(moved, 'package.json'), JSON.stringify({ name: 'tend', version: '1.2.4', type: 'module' }));
    assert.notEqual(idOf(moved).build, edited.build, 'a new version changes the id');
  });

  test('is this tree\'s, read from dist/build-id.json: the server says it in its health, its home lock and on every API reply', async (t) => {
    const file = join(repoRoot, 'dist', 'build-id.json');
    assert.equal(TEND_BUILD, existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { build: string }).build : UNKNOWN_BUILD);
    const server = startTestServer();
    t.after(() => server.dispose());
    const started = await server.cli(['server', 'start']);
    assert.equal(started.code, 0, started.stderr);
    const health = await rawRequest(server, 'GET', '/v1/health');
    const body = health.body as HealthReply;
    assert.equal(body.version, TEND_VERSION);
    assert.equal(body.build, TEND_BUILD);
    assert.deepEqual(body.protocols.api, { oldest: 1, newest: 1 });
    assert.equal(homeLockOf(server).build, TEND_BUILD);
    assert.equal(homeLockOf(server).version, TEND_VERSION);
    // Every reply, an error too, says which tend answers: the CLI learns it without asking.
    // A request line over 16 KiB is answered before any route, by the HTTP server's own refusal.
    const tooLong = await rawRequest(server, 'GET', `/v1/sessions/${'x'.repeat(17 * 1024)}`);
    assert.equal(tooLong.status, 431);
    for (const reply of [health, await rawRequest(server, 'GET', '/v1/no-such-route'), await rawRequest(server, 'GET', '/v1/sessions/nothing-here'), tooLong]) {
      assert.equal(reply.headers['tend-build'], TEND_BUILD);
      assert.equal(reply.headers['tend-version'], TEND_VERSION);
      assert.equal(reply.headers['tend-api'], '1-1');
    }
    // The same-build CLI says nothing about builds.
    const ls = await server.cli(['ls']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.equal(ls.stderr, '');
  });
});

describe('a CLI and a server of different builds', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a CLI of another build (another runtime directory too) uses the running server: one line on stderr, the answer on stdout, still one server', async (t) => {
    const server = startTestServer();
    t.after(() => server.dispose());
    assert.equal((await server.cli(['server', 'start'])).code, 0);
    assert.equal((await server.cli(['new', '--name', 'mine', '--', 'sh'])).code, 0);
    const pid = server.serverPid();
    assert.ok(pid !== null);
    const env = { ...server.env, TEND_RUNTIME_DIR: makeTempDir('tend-rt-other-') };
    t.after(() => removeTempDir(env.TEND_RUNTIME_DIR));
    const line = `tend: the server is tend ${TEND_VERSION} (build ${TEND_BUILD}), this is tend ${OTHER_VERSION} (build ${OTHER_BUILD}): ${REMEDY}`;

    const ls = await tendOf(other, env, ['ls']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, /\bmine\b/);
    assert.deepEqual(stderrLines(ls), [line]);

    const json = await tendOf(other, env, ['ls', '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual((JSON.parse(json.stdout) as Array<{ name: string }>).map((s) => s.name), ['mine'], 'stdout is the JSON alone');
    assert.deepEqual(stderrLines(json), [line]);

    const created = await tendOf(other, env, ['new', '--name', 'theirs', '--', 'sh']);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(stderrLines(created), [line], 'said once per invocation');
    await server.holderPids();
    const mine = await server.cli(['ls', '--json']);
    assert.deepEqual((JSON.parse(mine.stdout) as Array<{ name: string }>).map((s) => s.name).sort(), ['mine', 'theirs'], 'the other CLI\'s session is on this server');
    assert.equal(server.serverPid(), pid);
    assert.deepEqual(serversOf(server.home), [pid], 'one server for this TEND_HOME');
  });

  test('this CLI meets a server of another build: says so once and is answered by it; no second server starts beside it', async (t) => {
    const server = startTestServer();
    t.after(() => server.dispose());
    const started = await tendOf(other, server.env, ['server', 'start']);
    assert.equal(started.code, 0, started.stderr);
    const lock = homeLockOf(server);
    assert.equal(lock.build, OTHER_BUILD);
    const pid = lock.pid as number;
    // Another runtime directory: only the home's lock leads this CLI to that server.
    const env = { ...server.env, TEND_RUNTIME_DIR: makeTempDir('tend-rt-mine-') };
    t.after(() => removeTempDir(env.TEND_RUNTIME_DIR));
    const line = `tend: the server is tend ${OTHER_VERSION} (build ${OTHER_BUILD}), this is tend ${TEND_VERSION} (build ${TEND_BUILD}): ${REMEDY}`;

    const created = await tendOf(repoRoot, env, ['new', '--name', 'here', '--', 'sh']);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(stderrLines(created), [line]);
    const ls = await tendOf(repoRoot, env, ['ls']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, /\bhere\b/);
    assert.deepEqual(stderrLines(ls), [line]);
    assert.ok(isProcessAlive(pid));
    assert.deepEqual(serversOf(server.home), [pid], 'one server for this TEND_HOME, the other build\'s');
  });

  test('a server that shares no API version with the CLI: refused in one line with exit 76, and nothing is done, whichever side is newer', async (t) => {
    // This CLI against a server speaking API 2-3.
    const theirs = startTestServer();
    t.after(() => theirs.dispose());
    assert.equal((await tendOf(incompatible, theirs.env, ['server', 'start'])).code, 0);
    assert.equal((await tendOf(incompatible, theirs.env, ['new', '--name', 'keep', '--', 'sh'])).code, 0);
    const killed = await tendOf(repoRoot, theirs.env, ['kill', ':keep']);
    assert.equal(killed.code, 76, killed.stderr);
    const lines = stderrLines(killed);
    assert.equal(lines.length, 1, killed.stderr);
    assert.match(lines[0]!, /^tend: the server is tend 10\.0\.0 \(build test-api3\) and speaks API 2-3, this is tend .* and speaks API 1-1, so nothing was done: `tend upgrade`/);
    const left = await tendOf(incompatible, theirs.env, ['ls', '--json']);
    assert.deepEqual((JSON.parse(left.stdout) as Array<{ name: string; status: string }>).map((s) => [s.name, s.status]), [['keep', 'running']]);

    // A CLI speaking API 2-3 against this server: refused by the server before anything is done.
    const mine = startTestServer();
    t.after(() => mine.dispose());
    assert.equal((await mine.cli(['server', 'start'])).code, 0);
    assert.equal((await mine.cli(['new', '--name', 'keep', '--', 'sh'])).code, 0);
    const refused = await rawRequest(mine, 'DELETE', '/v1/sessions/%3Akeep', { 'tend-api': '2-3', 'tend-build': 'test-api3' });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, 'incompatible_client');
    assert.match(refused.body.error.message, /speaks API 2-3, this server .* speaks 1-1: nothing was done/);
    const byThem = await tendOf(incompatible, mine.env, ['kill', ':keep']);
    assert.equal(byThem.code, 76, byThem.stderr);
    assert.equal(stderrLines(byThem).length, 1, byThem.stderr);
    const still = await mine.cli(['ls', '--json']);
    assert.deepEqual((JSON.parse(still.stdout) as Array<{ name: string; status: string }>).map((s) => [s.name, s.status]), [['keep', 'running']]);
  });

  test('a server that takes the request and never answers (stopped): the CLI says why and which process within seconds, never hangs', async (t) => {
    const server = startTestServer();
    let stopped: number | null = null;
    // Resumed before the disposal, which asks the server for its holders.
    t.after(async () => {
      try {
        if (stopped !== null) process.kill(stopped, 'SIGCONT');
      } catch {
        /* gone */
      }
      await server.dispose();
    });
    assert.equal((await server.cli(['server', 'start'])).code, 0);
    const pid = server.serverPid()!;
    process.kill(pid, 'SIGSTOP');
    stopped = pid;
    const ls = await tendOf(repoRoot, server.env, ['ls'], 45_000);
    assert.equal(ls.code, 1, ls.stderr);
    assert.deepEqual(stderrLines(ls).length, 1, ls.stderr);
    assert.match(ls.stderr, new RegExp(`the server \\(pid ${pid}\\) took the request but has not answered in \\d+ s, nor a health check: .*\`kill -CONT ${pid}\``));
    assert.ok(ls.ms < 30_000, `gave up after ${ls.ms} ms`);
    process.kill(pid, 'SIGCONT');
    const again = await server.cli(['ls']);
    assert.equal(again.code, 0, again.stderr);
  });
});
