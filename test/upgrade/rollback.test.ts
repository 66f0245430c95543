// `tend upgrade` to a build that fails goes back by itself: a new server that
// exits at start leaves the old build serving every session it served, a
// store migration that fails half-way leaves the store byte for byte as it
// was, and a program that ends while the new build is checked is found ended,
// with its last output, by the old build. Real servers of two builds
// (test/support/other-build.ts), real holders.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, repoRoot, type TestServer } from '../server/harness.js';
import { makeOtherBuild } from '../support/other-build.js';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import type { UpgradeReport } from '../../src/cli/upgrade/run-upgrade.js';

const TEST_TIMEOUT_MS = 300_000;
const STORE_FILES = ['tend.db', 'tend.db-wal', 'tend.db-shm'];
const thisBuild = (JSON.parse(readFileSync(join(repoRoot, 'dist', 'build-id.json'), 'utf8')) as { build: string }).build;

interface ListedSession {
  id: string;
  status: string;
  holderPid: number | null;
  exitCode: number | null;
}

// Armed by a line of input, it shows the alternate screen; then the first
// SIGWINCH ends it, with a last line and code 7. A server recovering a program
// on the alternate screen asks it to redraw (SIGWINCH): the new build's server
// ends it while the upgrade checks that server.
const ENDS_ON_REDRAW = `
let armed = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  if (armed || !d.includes('arm')) return;
  armed = true;
  process.stdout.write('\\x1b[?1049h\\x1b[Harmed\\r\\n');
});
process.on('SIGWINCH', () => {
  if (armed) process.stdout.write('\\x1b[?1049lended by the redraw\\r\\n', () => process.exit(7));
});`;

async function sessions(t: TestServer): Promise<ListedSession[]> {
  const res = await t.api<ListedSession[]>('GET', '/v1/sessions');
  assert.equal(res.status, 200);
  return res.body;
}

async function startSessions(t: TestServer, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = await t.cli(['new', '--json', '--', 'sh', '-c', `echo session ${i}; exec cat`]);
    assert.equal(made.code, 0, made.stderr);
    ids.push((JSON.parse(made.stdout) as { id: string }).id);
  }
  await t.holderPids(); // the harness kills them at the end, whichever server knew them
  return ids;
}

/** Each store file's bytes, or null when it is absent. */
function storeBytes(home: string): Record<string, Buffer | null> {
  return Object.fromEntries(STORE_FILES.map((name) => [name, existsSync(join(home, name)) ? readFileSync(join(home, name)) : null]));
}

function upgradeReport(stdout: string): UpgradeReport {
  return JSON.parse(stdout) as UpgradeReport;
}

describe('tend upgrade rolls back a build that fails', { timeout: TEST_TIMEOUT_MS }, () => {
  test('a new server that exits at start: the old build serves again, every session running with the same holder', async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    scope.defer(() => server.dispose());
    const ids = await startSessions(server, 4);
    const before = await sessions(server);
    const oldPid = server.serverPid();
    const broken = makeOtherBuild({
      dir: join(scope.tempDir('tend-other-'), 'build'),
      version: '9.0.0',
      patch: (root) => writeFileSync(join(root, 'dist', 'src', 'server', 'main.js'), 'process.exit(1);\n'),
    });

    const run = await server.cli(['upgrade', '--from', broken, '--json']);
    assert.equal(run.code, 1, `the upgrade must fail; stderr: ${run.stderr}`);
    const report = upgradeReport(run.stdout);
    assert.equal(report.outcome, 'failed');
    assert.match(report.problems.join('\n'), /did not start: the server exited before it was ready/);
    assert.equal(report.oldServerBack, true, report.message);
    assert.match(report.message, /runs again with the store as it was/);

    const health = (await server.api<{ build: string; pid: number }>('GET', '/v1/health')).body;
    assert.equal(health.build, thisBuild, 'the old build serves again');
    assert.notEqual(health.pid, oldPid, 'a new process of the old build');
    const after = await sessions(server);
    assert.deepEqual(after.map((s) => [s.id, s.status, s.holderPid]), before.map((s) => [s.id, 'running', s.holderPid]));
    assert.deepEqual(after.map((s) => s.id), ids);
    assert.equal(existsSync(join(server.home, 'versions', 'current')), false, 'the failed build never became current');
    // The terminals still work: input reaches a program started before.
    const sent = await server.cli(['send', ids[0]!, 'still here', '--enter']);
    assert.equal(sent.code, 0, sent.stderr);
  });

  test('a program that ends while the new build is checked: back on the old build, its session is ended with its code and last line, not cold', async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    scope.defer(() => server.dispose());
    const [quiet] = await startSessions(server, 1);
    const made = await server.cli(['new', '--json', '--', process.execPath, '-e', ENDS_ON_REDRAW]);
    assert.equal(made.code, 0, made.stderr);
    const ending = (JSON.parse(made.stdout) as { id: string }).id;
    await server.holderPids();
    const sent = await server.cli(['send', ending, 'arm', '--enter']);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor(async () => (await server.cli(['screen', ending])).stdout.includes('armed'), { what: 'the program to show the alternate screen' });
    // It starts and serves, but says another build than it is: its check fails, and the upgrade goes back.
    const lying = makeOtherBuild({
      dir: join(scope.tempDir('tend-other-'), 'build'),
      version: '9.3.0',
      patch: (root) => {
        const file = join(root, 'dist', 'src', 'common', 'version.js');
        const source = readFileSync(file, 'utf8');
        const line = 'export const TEND_BUILD = readBuild();';
        assert.ok(source.includes(line), 'version.js has the line the patch changes');
        writeFileSync(file, source.replace(line, "export const TEND_BUILD = `not-${readBuild()}`;"));
      },
    });

    const run = await server.cli(['upgrade', '--from', lying, '--json']);
    assert.equal(run.code, 1, `the upgrade must fail; stderr: ${run.stderr}`);
    const report = upgradeReport(run.stdout);
    assert.equal(report.outcome, 'failed');
    assert.match(report.problems.join('\n'), /it says it is build not-test-930, not test-930/);
    assert.equal(report.oldServerBack, true, report.message);
    assert.equal(report.sessions.recovered, report.sessions.running, report.message);

    const after = new Map((await sessions(server)).map((s) => [s.id, s]));
    assert.equal(after.get(quiet!)?.status, 'running');
    // Its holder waited for a server that keeps what it records: the old build was told EXIT again.
    assert.equal(after.get(ending)?.status, 'exited', `the ended program's session: ${JSON.stringify(after.get(ending))}`);
    assert.equal(after.get(ending)?.exitCode, 7);
    const screen = await server.cli(['screen', ending]);
    assert.match(screen.stdout, /ended by the redraw/, 'its last line, written while the new build was checked');
  });

  test('a store migration that fails half-way: the store is put back byte for byte and the sessions come back', async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    scope.defer(() => server.dispose());
    const ids = await startSessions(server, 3);
    // Stopped first, so nothing writes the store between the picture taken here and the upgrade's own.
    const stopped = await server.cli(['server', 'stop']);
    assert.equal(stopped.code, 0, stopped.stderr);
    const before = storeBytes(server.home);
    assert.ok(before['tend.db'], 'the store exists');
    const migrating = makeOtherBuild({
      dir: join(scope.tempDir('tend-other-'), 'build'),
      version: '9.1.0',
      patch: (root) => {
        // Two more steps: the first commits (the file changes), the second throws.
        const file = join(root, 'dist', 'src', 'server', 'store', 'migrations.js');
        const source = readFileSync(file, 'utf8');
        const anchor = 'export const LATEST_SCHEMA_VERSION';
        assert.ok(source.includes(anchor), 'migrations.js has the line the patch goes before');
        writeFileSync(file, source.replace(anchor, `{
  const last = MIGRATIONS[MIGRATIONS.length - 1].version;
  MIGRATIONS.push(
    { version: last + 1, description: 'a table of the newer build', up(db) { db.exec('CREATE TABLE newer_build (x INTEGER)'); } },
    { version: last + 2, description: 'a step that fails', up() { throw new Error('the second new migration failed on purpose'); } },
  );
}
${anchor}`));
      },
    });

    const run = await server.cli(['upgrade', '--from', migrating, '--json']);
    assert.equal(run.code, 1, `the upgrade must fail; stderr: ${run.stderr}`);
    const report = upgradeReport(run.stdout);
    assert.equal(report.outcome, 'failed');
    assert.match(report.problems.join('\n'), /the second new migration failed on purpose/);
    assert.equal(report.storeRestored, true, report.message);
    assert.equal(server.serverPid(), null, 'no server was running before, and none is after');

    const after = storeBytes(server.home);
    for (const name of STORE_FILES) {
      if (before[name] === null) assert.equal(after[name], null, `${name} was absent before and is absent after`);
      else assert.ok(after[name] !== null && before[name]!.equals(after[name]!), `${name} is byte for byte as before`);
    }
    // The old build reads its store: every session is back, running.
    const listed = await server.cli(['ls', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as ListedSession[]).map((s) => [s.id, s.status]), ids.map((id) => [id, 'running']));
  });
});
