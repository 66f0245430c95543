// `tend upgrade` in a home a service is installed for: the upgrade starts the
// new server itself (a take-over), so afterwards the server goes back under
// the service, or the upgrade says in one line that it runs outside it and
// what to run. Where this machine has no service manager (a container whose
// PID 1 is not systemd), the decision is checked with a real server, a real
// upgrade to another build and back, and a unit file written where the CLI
// reads it; where it has one, a real upgrade under a real unit.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cliWith, repoRoot, startTestServer, waitFor } from '../server/harness.js';
import { makeOtherBuild } from '../support/other-build.js';
import { useTestScope } from '../support/test-scope.js';
import { killQuietly, pidsWithEnv } from '../support/processes.js';
import type { UpgradeReport } from '../../src/cli/upgrade/run-upgrade.js';
import { commandPart, serviceMainFor } from '../../src/cli/upgrade/under-service.js';

const TEST_TIMEOUT_MS = 300_000;
const UPGRADE_TIMEOUT_MS = 120_000;
const thisBuild = (JSON.parse(readFileSync(join(repoRoot, 'dist', 'build-id.json'), 'utf8')) as { build: string }).build;

function run(program: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(program, args, { encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1;
      resolve({ code, stdout, stderr, missing: (err as NodeJS.ErrnoException | null)?.code === 'ENOENT' });
    });
  });
}

/** Why this machine's user can have no systemd user unit, or null when it can. */
async function noUserManager(): Promise<string | null> {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  const r = await run('systemctl', ['--user', 'is-system-running']);
  if (r.missing) return 'systemctl is not installed';
  const state = r.stdout.trim();
  if (['running', 'degraded'].includes(state)) return null;
  return `no systemd user manager here (systemctl --user is-system-running: "${state}")`;
}

async function upgrade(env: NodeJS.ProcessEnv, args: string[]): Promise<{ report: UpgradeReport; stderr: string }> {
  const r = await cliWith(env, ['upgrade', ...args, '--json'], UPGRADE_TIMEOUT_MS);
  assert.equal(r.code, 0, `tend upgrade ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
  return { report: JSON.parse(r.stdout) as UpgradeReport, stderr: r.stderr };
}

describe('tend upgrade where a service is installed', { timeout: TEST_TIMEOUT_MS }, () => {
  test('the service names the build through versions/current when it is current, else the build\'s own tree; its command part is what decides a rewrite', (t) => {
    const scope = useTestScope(t);
    const home = scope.tempDir('tend-svc-home-');
    const versions = join(home, 'versions');
    mkdirSync(join(versions, 'b1'), { recursive: true });
    mkdirSync(join(versions, 'b2'), { recursive: true });
    symlinkSync('b1', join(versions, 'current'));
    assert.equal(serviceMainFor(home, join(versions, 'b1')), join(versions, 'current', 'dist', 'src', 'server', 'main.js'));
    assert.equal(serviceMainFor(home, join(versions, 'b2')), join(versions, 'b2', 'dist', 'src', 'server', 'main.js'));

    const unit = (main: string, path: string) => `[Service]\nExecStart=/usr/bin/node --v8-pool-size=1 ${main}\nEnvironment=PATH=${path}\n`;
    assert.equal(commandPart('systemd', unit('/a/main.js', '/bin')), commandPart('systemd', unit('/a/main.js', '/usr/bin')), 'the environment alone makes no rewrite');
    assert.notEqual(commandPart('systemd', unit('/a/main.js', '/bin')), commandPart('systemd', unit('/b/main.js', '/bin')));
    const plist = (main: string) => `<dict>\n\t<key>ProgramArguments</key>\n\t<array>\n\t\t<string>/usr/bin/node</string>\n\t\t<string>${main}</string>\n\t</array>\n\t<key>RunAtLoad</key>\n</dict>`;
    assert.match(commandPart('launchd', plist('/a/main.js')) ?? '', /\/a\/main\.js<\/string>\s*<\/array>$/);
    assert.notEqual(commandPart('launchd', plist('/a/main.js')), commandPart('launchd', plist('/b/main.js')));
  });

  test('no manager to run it: the upgrade and the rollback succeed, each says the server runs outside the unit and what to run, and the unit file is left as it was', async (t) => {
    const problem = await noUserManager();
    if (problem === null) return t.skip('this machine has a systemd user manager: the test under a real unit covers it');
    const scope = useTestScope(t);
    const userHome = scope.tempDir('tend-svc-user-');
    const server = startTestServer({ HOME: userHome, XDG_CONFIG_HOME: join(userHome, 'config') });
    scope.defer(() => server.dispose());
    const printed = await server.cli(['service', 'install', '--print', '--manager', 'systemd', '--json']);
    assert.equal(printed.code, 0, printed.stderr);
    const unit = JSON.parse(printed.stdout) as { name: string; file: string; text: string };
    assert.equal(unit.file, join(userHome, 'config', 'systemd', 'user', unit.name));
    mkdirSync(join(unit.file, '..'), { recursive: true });
    writeFileSync(unit.file, unit.text);

    // The unit cannot start the server here, so the first command starts it itself (as it says).
    const made = await server.cli(['new', '--json', '--', 'sh', '-c', 'echo under; exec cat']);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stderr, /the installed service could not start the server/);
    const id = (JSON.parse(made.stdout) as { id: string }).id;
    await server.holderPids();

    const other = makeOtherBuild({ dir: join(scope.tempDir('tend-other-'), 'build'), version: '9.1.0' });
    const up = await upgrade(server.env, ['--from', other]);
    assert.equal(up.report.outcome, 'upgraded', up.report.message);
    const health = (await server.api<{ build: string; pid: number }>('GET', '/v1/health')).body;
    assert.equal(health.build, 'test-910');
    const moved = up.report.service;
    assert.ok(moved !== null, 'the report says what became of the installed unit');
    assert.equal(moved.name, unit.name);
    assert.equal(moved.file, unit.file);
    assert.equal(moved.runsIt, false);
    assert.equal(moved.pid, health.pid, 'the server that runs outside it is named');
    assert.equal(moved.rewritten, false);
    assert.equal(moved.remedy, 'tend service install');
    assert.match(moved.problem ?? '', /^(no systemd user manager runs for this user|systemctl is not installed)/);
    const line = `the upgrade succeeded, but the server (pid ${health.pid}) runs outside the service ${unit.name}: ${moved.problem}. ` +
      'Run `tend service install` once the manager runs to put it under the service';
    assert.equal(moved.line, line);
    assert.ok(up.report.message.endsWith(`\n${line}`), up.report.message);
    assert.ok(up.stderr.includes(`${line}\n`), `said as it ends: ${up.stderr}`);
    assert.equal(readFileSync(unit.file, 'utf8'), unit.text, 'a unit the manager cannot load is not rewritten');

    // The rollback, in words as a person sees them (stdout without --json).
    const back = await cliWith(server.env, ['upgrade', '--rollback'], UPGRADE_TIMEOUT_MS);
    assert.equal(back.code, 0, `${back.stdout}\n${back.stderr}`);
    const after = (await server.api<{ build: string; pid: number }>('GET', '/v1/health')).body;
    assert.equal(after.build, thisBuild);
    const lines = back.stdout.trimEnd().split('\n');
    assert.match(lines.at(-2) ?? '', /^rolled back to .* \d+\/1 sessions running/);
    assert.match(lines.at(-1) ?? '', new RegExp(`^the rollback succeeded, but the server \\(pid ${after.pid}\\) runs outside the service ${unit.name.replaceAll('.', '\\.')}: .+\\. Run \`tend service install\` once the manager runs to put it under the service$`));
    const session = await server.api<{ status: string }>('GET', `/v1/sessions/${id}`);
    assert.equal(session.body.status, 'running', 'the session lived through both');
  });

  test('no manager to run it, and a new build that fails: the old build serves again, and the paragraph ends with the line about the unit', async (t) => {
    const problem = await noUserManager();
    if (problem === null) return t.skip('this machine has a systemd user manager: the test under a real unit covers it');
    const scope = useTestScope(t);
    const userHome = scope.tempDir('tend-svc-user-');
    const server = startTestServer({ HOME: userHome, XDG_CONFIG_HOME: join(userHome, 'config') });
    scope.defer(() => server.dispose());
    const unit = JSON.parse((await server.cli(['service', 'install', '--print', '--manager', 'systemd', '--json'])).stdout) as { name: string; file: string; text: string };
    mkdirSync(join(unit.file, '..'), { recursive: true });
    writeFileSync(unit.file, unit.text);
    assert.equal((await server.cli(['server', 'start'])).code, 0);
    const broken = makeOtherBuild({
      dir: join(scope.tempDir('tend-other-'), 'build'),
      version: '9.4.0',
      patch: (root) => writeFileSync(join(root, 'dist', 'src', 'server', 'main.js'), 'process.exit(1);\n'),
    });
    const r = await cliWith(server.env, ['upgrade', '--from', broken, '--json'], UPGRADE_TIMEOUT_MS);
    assert.equal(r.code, 1, `the upgrade must fail: ${r.stderr}`);
    const report = JSON.parse(r.stdout) as UpgradeReport;
    assert.equal(report.oldServerBack, true, report.message);
    const health = (await server.api<{ build: string; pid: number }>('GET', '/v1/health')).body;
    assert.equal(health.build, thisBuild);
    assert.equal(report.service?.runsIt, false);
    assert.equal(report.service?.pid, health.pid);
    assert.match(report.service?.line ?? '', new RegExp(`^going back to \\S+ \\(build ${thisBuild}\\) succeeded, but the server \\(pid ${health.pid}\\) runs outside the service `));
    assert.ok(report.message.endsWith(` ${report.service?.line}.`), report.message);
  });

  test('no service installed: the report says none, and nothing about a service is said', async (t) => {
    const scope = useTestScope(t);
    const userHome = scope.tempDir('tend-svc-user-');
    const server = startTestServer({ HOME: userHome, XDG_CONFIG_HOME: join(userHome, 'config') });
    scope.defer(() => server.dispose());
    assert.equal((await server.cli(['server', 'start'])).code, 0);
    const other = makeOtherBuild({ dir: join(scope.tempDir('tend-other-'), 'build'), version: '9.2.0' });
    const up = await upgrade(server.env, ['--from', other]);
    assert.equal(up.report.outcome, 'upgraded');
    assert.equal(up.report.service, null);
    assert.doesNotMatch(up.stderr, /service/);
  });

  test('under a real systemd user unit: after the upgrade and after the rollback the unit\'s main process is the server, of the right build, every session running', async (t) => {
    const problem = await noUserManager();
    if (problem !== null) return t.skip(problem);
    const scope = useTestScope(t);
    // The user's own manager reads units from the user's own ~/.config: the unit goes there, named by this test's home alone.
    const home = scope.tempDir('tend-svc-home-');
    const runtime = scope.tempDir('tend-svc-rt-');
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: homedir(), TEND_HOME: home, TEND_RUNTIME_DIR: runtime, TEND_PORT: '0' };
    delete env.XDG_CONFIG_HOME;
    delete env.TEND_SERVICE;
    let installed = false;
    scope.defer(async () => {
      if (installed) await cliWith(env, ['service', 'uninstall']);
      for (const pid of pidsWithEnv('TEND_HOME', home)) killQuietly(pid, 'SIGKILL');
    });
    const install = await cliWith(env, ['service', 'install', '--json']);
    assert.equal(install.code, 0, install.stderr);
    installed = true;
    const unit = (JSON.parse(install.stdout) as { name: string; file: string }).name;
    const mainPid = async () => Number((await run('systemctl', ['--user', 'show', unit, '--property=MainPID', '--value'])).stdout.trim());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await cliWith(env, ['new', '--json', '--', 'sh', '-c', 'exec cat']);
      assert.equal(made.code, 0, made.stderr);
      ids.push((JSON.parse(made.stdout) as { id: string }).id);
    }
    const check = async (build: string, report: UpgradeReport) => {
      assert.ok(report.service?.runsIt, report.message);
      const health = JSON.parse((await cliWith(env, ['server', 'status', '--json'])).stdout) as { pid: number };
      await waitFor('the unit to be active', async () => (await mainPid()) === health.pid);
      assert.equal(report.service.pid, health.pid);
      const ls = JSON.parse((await cliWith(env, ['ls', '--json'])).stdout) as Array<{ id: string; status: string }>;
      assert.deepEqual(ls.filter((s) => ids.includes(s.id)).map((s) => s.status), ['running', 'running', 'running']);
      assert.match(report.message, new RegExp(`the service ${unit.replaceAll('.', '\\.')} runs .*build ${build}`));
    };
    const other = makeOtherBuild({ dir: join(scope.tempDir('tend-other-'), 'build'), version: '9.3.0' });
    const up = await upgrade(env, ['--from', other]);
    await check('test-930', up.report);
    assert.equal(up.report.service?.rewritten, true, 'the unit named the checkout; now it names versions/current');
    assert.match(readFileSync((JSON.parse(install.stdout) as { file: string }).file, 'utf8'), /versions\/current\/dist\/src\/server\/main\.js$/m);
    const back = await upgrade(env, ['--rollback']);
    await check(thisBuild, back.report);
    assert.equal(back.report.service?.rewritten, false, 'a unit naming versions/current is left as it is');
  });
});
