// `tend upgrade` is the remedy tend names for a server of another build, so it
// must work where every other verb stops: across an API change. A build that
// speaks only API 2 is upgraded to and rolled back from by this tree's CLI,
// which speaks API 1 and which that server refuses for everything else.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, repoRoot } from '../server/harness.js';
import { makeOtherBuild } from '../support/other-build.js';
import { useTestScope } from '../support/test-scope.js';
import type { UpgradeReport } from '../../src/cli/upgrade/run-upgrade.js';
import { EXIT } from '../../src/cli/exit-codes.js';

const TEST_TIMEOUT_MS = 300_000;
const thisBuild = (JSON.parse(readFileSync(join(repoRoot, 'dist', 'build-id.json'), 'utf8')) as { build: string }).build;

describe('tend upgrade across an API change', { timeout: TEST_TIMEOUT_MS }, () => {
  test('to a build that speaks only API 2 and back, from a CLI that speaks API 1', async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    scope.defer(() => server.dispose());
    const made = await server.cli(['new', '--json', '--', 'sh', '-c', 'echo across; exec cat']);
    assert.equal(made.code, 0, made.stderr);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    await server.holderPids();
    const api2 = makeOtherBuild({
      dir: join(scope.tempDir('tend-other-'), 'build'),
      version: '10.0.0',
      patch: (root) => {
        const file = join(root, 'dist', 'src', 'protocol', 'api', 'versions.js');
        const source = readFileSync(file, 'utf8');
        const line = 'export const API_VERSIONS = { oldest: 1, newest: 1 };';
        assert.ok(source.includes(line), 'versions.js says API 1 where the patch expects it');
        writeFileSync(file, source.replace(line, 'export const API_VERSIONS = { oldest: 2, newest: 2 };'));
      },
    });

    const up = await server.cli(['upgrade', '--from', api2, '--json'], { timeoutMs: 120_000 });
    assert.equal(up.code, 0, `${up.stdout}\n${up.stderr}`);
    assert.equal((JSON.parse(up.stdout) as UpgradeReport).outcome, 'upgraded');
    // The break is real: any other verb of this tree is refused by that server.
    const ls = await server.cli(['ls']);
    assert.equal(ls.code, EXIT.incompatible, `tend ls against an API-2 server: ${ls.stdout}${ls.stderr}`);

    const back = await server.cli(['upgrade', '--rollback', '--json'], { timeoutMs: 120_000 });
    assert.equal(back.code, 0, `${back.stdout}\n${back.stderr}`);
    assert.equal((JSON.parse(back.stdout) as UpgradeReport).outcome, 'rolled-back');
    const health = await server.api<{ build: string }>('GET', '/v1/health');
    assert.equal(health.body.build, thisBuild);
    const session = await server.api<{ status: string }>('GET', `/v1/sessions/${id}`);
    assert.equal(session.body.status, 'running', 'the session lived through both changes');
  });
});
