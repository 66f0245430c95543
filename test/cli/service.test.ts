// `tend service`: the systemd unit and the launchd agent it writes, checked
// by the tools that read them (systemd-analyze, plutil or Python's plistlib,
// and a strict well-formedness check of our own where neither is there);
// status and its --json; install where there is no user manager; the
// holders' own scopes under systemd (or, where systemd-run cannot make one,
// the plain start and its one log line); and, where this machine has a
// systemd user manager, a real install whose restart keeps every holder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cliWith, isAlive, repoRoot, startTestServer, waitFor, type CliResult } from '../server/harness.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { killQuietly } from '../support/processes.js';
import { xmlProblem } from '../support/xml-well-formed.js';
import { spawnHolder, type HolderLauncher } from '../../src/holder-client/spawn-holder.js';
import { runTool } from '../../src/cli/service/run-tool.js';
import { findOnPath } from '../../src/cli/open/find-program.js';

const TEST_TIMEOUT_MS = 120_000;

function has(program: string): boolean {
  return findOnPath(program, process.env) !== null;
}

/** Why this machine's user can have no systemd user unit, or null when it can. */
async function noUserManager(): Promise<string | null> {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  const r = await runTool('systemctl', ['--user', 'is-system-running']);
  if (r.missing) return 'systemctl is not installed';
  const state = r.stdout.trim();
  if (['running', 'degraded'].includes(state)) return null;
  return `no systemd user manager here (systemctl --user is-system-running: "${state}"${r.stderr.trim() ? `, ${r.stderr.trim().split('\n')[0]}` : ''})`;
}

/** Why systemd-run cannot put a process in a scope of its own here, or null when it can. */
async function noTransientScope(): Promise<string | null> {
  const r = await runTool('systemd-run', ['--user', '--scope', '--quiet', '--collect', 'true']);
  if (r.missing) return 'systemd-run is not installed';
  return r.code === 0 ? null : `systemd-run --user --scope fails here: ${r.stderr.trim().split('\n')[0] ?? `exit ${r.code}`}`;
}

/** A home and a runtime directory of the test's own, and an environment whose HOME is a temp dir too (the unit file lands there). */
function isolatedEnv(homeName = 'home'): { env: NodeJS.ProcessEnv; userHome: string; home: string; runtime: string; dispose(): void } {
  const userHome = makeTempDir('tend-svc-');
  const runtime = makeTempDir('tend-svc-rt-');
  const home = join(userHome, homeName);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: userHome, TEND_HOME: home, TEND_RUNTIME_DIR: runtime, TEND_PORT: '0' };
  delete env.XDG_CONFIG_HOME;
  delete env.TEND_SERVICE;
  return {
    env, userHome, home, runtime,
    dispose() {
      removeTempDir(userHome);
      removeTempDir(runtime);
    },
  };
}

async function serverPidOf(env: NodeJS.ProcessEnv): Promise<number | null> {
  const status = await cliWith(env, ['server', 'status', '--json']);
  if (status.code !== 0) return null;
  return (JSON.parse(status.stdout) as { pid: number }).pid;
}

async function stopAndKill(env: NodeJS.ProcessEnv, holderPids: number[]): Promise<void> {
  const pid = await serverPidOf(env);
  if (pid !== null) killQuietly(pid, 'SIGKILL');
  for (const h of holderPids) killQuietly(h, 'SIGTERM');
  await waitFor('holders gone', () => holderPids.every((h) => !isAlive(h)), 10_000).catch(() => holderPids.forEach((h) => killQuietly(h)));
}

test('the systemd unit passes systemd-analyze verify with no warning, for a TEND_HOME with a space, % and $ in its path', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  if (!has('systemd-analyze')) return t.skip('systemd-analyze is not installed');
  const box = isolatedEnv('my home %i $HOME');
  t.after(() => box.dispose());
  const printed = await cliWith(box.env, ['service', 'install', '--print', '--manager', 'systemd']);
  assert.equal(printed.code, 0, printed.stderr);
  const unit = printed.stdout;
  assert.match(unit, /^KillMode=process$/m, 'only the server is stopped with the unit');
  assert.match(unit, /^Restart=on-failure$/m);
  assert.match(unit, /^Environment=TEND_SERVICE=systemd$/m);
  // "%" is a specifier everywhere; "$" is literal in Environment= and needs no doubling there.
  assert.match(unit, /^Environment="TEND_HOME=.*\/my home %%i \$HOME"$/m);
  const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1] ?? '';
  assert.ok(execStart.startsWith(`${process.execPath} `), execStart);
  assert.match(execStart, /\/dist\/src\/server\/main\.js$/);
  assert.doesNotMatch(execStart, /--ready-fd|--foreground/, 'the service runs the server as its main process, with no pipe to report on');

  const dir = makeTempDir('tend-svc-unit-');
  t.after(() => removeTempDir(dir));
  const file = join(dir, 'tend-verify.service');
  writeFileSync(file, unit);
  // Without a running manager `systemd-analyze verify` still loads and checks the file (system mode needs none).
  const verified = await runTool('systemd-analyze', ['verify', file]);
  assert.equal(verified.code, 0, verified.stderr);
  assert.equal(verified.stderr.trim(), '', `systemd-analyze found something to say: ${verified.stderr}`);

  // The check is not blind: the same unit with one bad setting is reported.
  const broken = join(dir, 'tend-broken.service');
  writeFileSync(broken, unit.replace(/^KillMode=process$/m, 'KillMode=processes'));
  const caught = await runTool('systemd-analyze', ['verify', broken]);
  assert.match(caught.stderr, /kill mode/i);
});

test('the launchd agent is a property list a real parser reads: KeepAlive on failure, RunAtLoad, AbandonProcessGroup, ExitTimeOut', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const parser = has('plutil') ? 'plutil' : has('python3') ? 'python3' : null;
  const box = isolatedEnv('a&b <c> "d" \'e\'');
  t.after(() => box.dispose());
  const printed = await cliWith(box.env, ['service', 'install', '--print', '--manager', 'launchd']);
  assert.equal(printed.code, 0, printed.stderr);
  // Well-formed by a strict check of our own everywhere (and it is not blind: an unescaped "&" is caught).
  assert.equal(xmlProblem(printed.stdout), null);
  assert.match(xmlProblem(printed.stdout.replace('&amp;', '&')) ?? '', /bare "&"/);
  if (parser === null) {
    t.diagnostic('neither plutil nor python3 (plistlib) is installed: the property list is checked as well-formed XML only');
    return;
  }
  const dir = makeTempDir('tend-svc-plist-');
  t.after(() => removeTempDir(dir));
  const file = join(dir, 'agent.plist');
  writeFileSync(file, printed.stdout);
  let parsed: Record<string, unknown>;
  if (parser === 'plutil') {
    const lint = await runTool('plutil', ['-lint', file]);
    assert.equal(lint.code, 0, lint.stdout + lint.stderr);
    parsed = JSON.parse((await runTool('plutil', ['-convert', 'json', '-o', '-', file])).stdout) as Record<string, unknown>;
  } else {
    const read = await runTool('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', file]);
    assert.equal(read.code, 0, read.stderr);
    parsed = JSON.parse(read.stdout) as Record<string, unknown>;
  }
  assert.match(String(parsed.Label), /^tend\.server\.[0-9a-f]{12}$/, 'a home other than ~/.tend gets a label of its own');
  assert.deepEqual(parsed.KeepAlive, { SuccessfulExit: false, Crashed: true });
  assert.equal(parsed.RunAtLoad, true);
  assert.equal(parsed.AbandonProcessGroup, true);
  assert.equal(parsed.ExitTimeOut, 30);
  const program = parsed.ProgramArguments as string[];
  assert.equal(program[0], process.execPath);
  assert.match(program.at(-1) ?? '', /\/dist\/src\/server\/main\.js$/);
  const env = parsed.EnvironmentVariables as Record<string, string>;
  assert.equal(env.TEND_HOME, box.home, 'the home comes back exactly, & < > " \' and all');
  assert.equal(env.TEND_SERVICE, 'launchd');
  assert.equal(env.HOME, box.userHome);
});

test('the default home gets tend.service and tend.server; another home names its own, so two homes can each have one', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const box = isolatedEnv('.tend');
  t.after(() => box.dispose());
  const names = async (env: NodeJS.ProcessEnv, manager: string) =>
    JSON.parse((await cliWith(env, ['service', 'install', '--print', '--manager', manager, '--json'])).stdout) as { name: string; file: string };
  const systemd = await names(box.env, 'systemd');
  assert.equal(systemd.name, 'tend.service');
  assert.equal(systemd.file, join(box.userHome, '.config', 'systemd', 'user', 'tend.service'));
  const launchd = await names(box.env, 'launchd');
  assert.equal(launchd.name, 'tend.server');
  assert.equal(launchd.file, join(box.userHome, 'Library', 'LaunchAgents', 'tend.server.plist'));
  const other = await names({ ...box.env, TEND_HOME: join(box.userHome, 'work') }, 'systemd');
  assert.match(other.name, /^tend-[0-9a-f]{12}\.service$/);
});

test('a tree `tend upgrade` installed is named through TEND_HOME/versions/current, so the service runs the current build; any other by its own path', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const box = isolatedEnv();
  t.after(() => box.dispose());
  const execStart = async () => /^ExecStart=(.*)$/m.exec((await cliWith(box.env, ['service', 'install', '--print', '--manager', 'systemd'])).stdout)?.[1] ?? '';
  assert.ok((await execStart()).endsWith(` ${join(repoRoot, 'dist', 'src', 'server', 'main.js')}`));
  mkdirSync(join(box.home, 'versions'), { recursive: true });
  symlinkSync(repoRoot, join(box.home, 'versions', 'this-build'));
  symlinkSync('this-build', join(box.home, 'versions', 'current'));
  assert.ok((await execStart()).endsWith(` ${join(box.home, 'versions', 'current', 'dist', 'src', 'server', 'main.js')}`));
});

test('status says not installed (exit 1), whether a server runs and that no service runs it; --json has the same facts', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const box = isolatedEnv();
  t.after(async () => {
    await stopAndKill(box.env, []);
    box.dispose();
  });
  const before = await cliWith(box.env, ['service', 'status', '--manager', 'systemd']);
  assert.equal(before.code, 1, before.stderr);
  assert.match(before.stdout, /^tend-[0-9a-f]{12}\.service \(systemd\): not installed \(.+ does not exist\)$/m);
  assert.match(before.stdout, /^server: not running$/m);

  const started = await cliWith(box.env, ['server', 'start', '--json']);
  assert.equal(started.code, 0, started.stderr);
  const pid = (JSON.parse(started.stdout) as { pid: number }).pid;
  const text = await cliWith(box.env, ['service', 'status', '--manager', 'systemd']);
  assert.match(text.stdout, new RegExp(`^server: running \\(pid ${pid}\\), not run by tend-[0-9a-f]{12}\\.service \\(started by tend itself\\)$`, 'm'));
  const json = await cliWith(box.env, ['service', 'status', '--manager', 'systemd', '--json']);
  assert.equal(json.code, 1);
  const status = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(status).sort(), ['file', 'installed', 'job', 'kind', 'managedByService', 'managerProblem', 'name', 'server'].sort());
  assert.equal(status.kind, 'systemd');
  assert.equal(status.installed, false);
  assert.equal(status.managedByService, false);
  assert.deepEqual(status.server, { running: true, pid, service: null });
  const problem = await noUserManager();
  if (problem === null) assert.equal(status.managerProblem, null);
  else assert.equal(typeof status.managerProblem, 'string', 'a manager that cannot be used is said');

  const serverStatus = await cliWith(box.env, ['server', 'status']);
  assert.match(serverStatus.stdout, /^service: none runs it \(`tend service install` makes one\)$/m);
});

test('install without a systemd user manager says why in one line and writes nothing', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const problem = await noUserManager();
  if (problem === null) return t.skip('this machine has a systemd user manager: the real install test covers it');
  const box = isolatedEnv();
  t.after(() => box.dispose());
  const r = await cliWith(box.env, ['service', 'install', '--manager', 'systemd']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^tend: cannot install the service: (no systemd user manager runs for this user|systemctl is not installed).*\n$/);
  assert.equal(existsSync(join(box.userHome, '.config', 'systemd', 'user')), false, 'no unit file is left behind');
  const uninstall = await cliWith(box.env, ['service', 'uninstall', '--manager', 'systemd']);
  assert.equal(uninstall.code, 0, uninstall.stderr);
  assert.match(uninstall.stdout, /is not installed/);
});

test('a server told it runs under systemd starts each holder in a scope of its own, or, where systemd-run cannot, plainly and says so once', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const scopeProblem = await noTransientScope();
  const server = startTestServer({ TEND_SERVICE: 'systemd', INVOCATION_ID: randomBytes(16).toString('hex') });
  t.after(() => server.dispose());
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const made = await server.cli(['new', '--json', '--', 'sh', '-c', 'echo ready; exec sleep 600']);
    assert.equal(made.code, 0, made.stderr);
    ids.push((JSON.parse(made.stdout) as { id: string }).id);
  }
  const health = (await server.api('GET', '/v1/health')).body as { service: unknown; pid: number };
  assert.equal(health.service, 'systemd');
  const status = await server.cli(['server', 'status']);
  assert.match(status.stdout, /^service: run by systemd \(tend-[0-9a-f]{12}\.service; `tend service status` says more\)$/m);
  const holders = await server.holderPids();
  assert.equal(holders.length, 2);

  const log = readFileSync(join(server.home, 'logs', 'server.log'), 'utf8');
  const fallbackLines = log.split('\n').filter((l) => l.includes('holders start without a scope of their own'));
  if (scopeProblem === null) {
    assert.equal(fallbackLines.length, 0, log);
    for (const [i, pid] of holders.entries()) {
      assert.match(readFileSync(`/proc/${pid}/cgroup`, 'utf8'), new RegExp(`tend-holder-${ids[i]}-[0-9a-z]+\\.scope`));
    }
  } else {
    t.diagnostic(`no transient scopes here (${scopeProblem}): checking the plain start instead`);
    assert.equal(fallbackLines.length, 1, `one line for two holders:\n${log}`);
    assert.match(fallbackLines[0]!, /systemd-run ended without starting the holder|cannot run systemd-run/);
  }

  // A session made without an environment of its own gets the server's, without the service's mark.
  const bare = await server.api('POST', '/v1/sessions', { argv: ['sh', '-c', 'exec sleep 600'] });
  assert.equal(bare.status, 201, JSON.stringify(bare.body));
  const childPid = (bare.body as { pid: number }).pid;
  await server.holderPids();
  const childEnv = readFileSync(`/proc/${childPid}/environ`, 'utf8').split('\0');
  assert.ok(childEnv.some((e) => e.startsWith('TEND_HOME=')), 'the server\'s environment reached the session');
  assert.ok(!childEnv.some((e) => e.startsWith('TEND_SERVICE=')), 'TEND_SERVICE did not');

  // Stopping the server closes no terminal, scope or not.
  const stopped = await server.cli(['server', 'stop']);
  assert.equal(stopped.code, 0, stopped.stderr);
  for (const pid of holders) assert.ok(isAlive(pid), `holder ${pid} outlived the server`);
});

test('TEND_SERVICE without the manager\'s own mark is not believed: health says no service', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const env: Record<string, string> = { TEND_SERVICE: 'systemd' };
  const server = startTestServer(env);
  delete server.env.INVOCATION_ID;
  t.after(() => server.dispose());
  const started = await server.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  assert.equal(((await server.api('GET', '/v1/health')).body as { service: unknown }).service, null);
  const status = await server.cli(['server', 'status']);
  assert.match(status.stdout, /^service: none runs it \(`tend service install` makes one\)$/m);
});

test('a holder started through an exec-ing prefix reports on its pipe as a plain one does; a prefix that fails is said once and the holder starts plainly', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const dir = makeTempDir('tend-svc-h-');
  const started: number[] = [];
  t.after(async () => {
    for (const pid of started) killQuietly(pid, 'SIGTERM');
    await waitFor('holders gone', () => started.every((p) => !isAlive(p)), 10_000).catch(() => started.forEach((p) => killQuietly(p)));
    removeTempDir(dir);
  });
  const base = { cols: 80, rows: 24, cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, argv: ['sleep', '600'] };
  const failures: string[] = [];
  const throughEnv: HolderLauncher = { prefix: () => ['env', '--'], failed: (why) => failures.push(why) };
  const viaEnv = await spawnHolder({ ...base, socketPath: join(dir, 'a.sock'), launcher: throughEnv });
  started.push(viaEnv.holderPid);
  assert.ok(isAlive(viaEnv.holderPid) && isAlive(viaEnv.childPid));
  assert.equal(failures.length, 0, failures.join("\n"));

  let asked = 0;
  let broken = false;
  const missing: HolderLauncher = {
    prefix: () => {
      asked += 1;
      return broken ? null : ['tend-no-such-launcher', '--'];
    },
    failed: (why) => {
      broken = true;
      failures.push(why);
    },
  };
  for (const name of ['b', 'c']) {
    const plain = await spawnHolder({ ...base, socketPath: join(dir, `${name}.sock`), launcher: missing });
    started.push(plain.holderPid);
    assert.ok(isAlive(plain.holderPid));
  }
  assert.equal(asked, 2);
  assert.equal(failures.length, 1, failures.join('\n'));
  assert.match(failures[0]!, /^cannot run tend-no-such-launcher: /);
});

test('where no user manager can start it, a tend command that finds an installed unit says so in one line and starts the server itself', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const problem = await noUserManager();
  if (problem === null) return t.skip('this machine has a systemd user manager: the real install test starts through it');
  if (process.platform !== 'linux') return t.skip('systemd is Linux only');
  const box = isolatedEnv();
  t.after(async () => {
    await stopAndKill(box.env, []);
    box.dispose();
  });
  const printed = JSON.parse((await cliWith(box.env, ['service', 'install', '--print', '--manager', 'systemd', '--json'])).stdout) as { file: string; text: string };
  mkdirSync(join(printed.file, '..'), { recursive: true });
  writeFileSync(printed.file, printed.text);
  const ls: CliResult = await cliWith(box.env, ['ls']);
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(ls.stderr, /^tend: the installed service could not start the server \(systemctl --user start tend-[0-9a-f]{12}\.service: .+\); starting one without it\n$/);
  assert.notEqual(await serverPidOf(box.env), null);
});

test('installed under a real systemd user manager: the server is the unit\'s, a restart keeps every holder, uninstall keeps them too', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const problem = (await noUserManager()) ?? (await noTransientScope());
  if (problem !== null) return t.skip(problem);
  // The user's own manager reads units from the user's own ~/.config, so the
  // unit goes there, under a name of this test's home alone.
  const runtime = makeTempDir('tend-svc-rt-');
  const home = makeTempDir('tend-svc-home-');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: homedir(), TEND_HOME: home, TEND_RUNTIME_DIR: runtime, TEND_PORT: '0' };
  const holders: number[] = [];
  let unit = '';
  t.after(async () => {
    if (unit !== '') await cliWith(env, ['service', 'uninstall']);
    await stopAndKill(env, holders);
    removeTempDir(home);
    removeTempDir(runtime);
  });
  const installed = await cliWith(env, ['service', 'install', '--json']);
  assert.equal(installed.code, 0, installed.stderr);
  const done = JSON.parse(installed.stdout) as { name: string; pid: number };
  unit = done.name;
  const mainPid = async () => Number((await runTool('systemctl', ['--user', 'show', unit, '--property=MainPID', '--value'])).stdout.trim());
  assert.equal(await mainPid(), done.pid);
  for (let i = 0; i < 3; i++) {
    const made = await cliWith(env, ['new', '--json', '--', 'sh', '-c', 'exec sleep 600']);
    assert.equal(made.code, 0, made.stderr);
    holders.push((JSON.parse(made.stdout) as { holderPid: number }).holderPid);
  }
  const status = JSON.parse((await cliWith(env, ['service', 'status', '--json'])).stdout) as { managedByService: boolean; job: { active: boolean } };
  assert.equal(status.managedByService, true);
  assert.equal(status.job.active, true);

  const restarted = await runTool('systemctl', ['--user', 'restart', unit]);
  assert.equal(restarted.code, 0, restarted.stderr);
  const newPid = await waitFor('the restarted unit\'s server to answer', async () => {
    const pid = await serverPidOf(env);
    return pid !== null && pid !== done.pid && pid === (await mainPid()) ? pid : null;
  }, 30_000);
  assert.notEqual(newPid, done.pid);
  for (const pid of holders) assert.ok(isAlive(pid), `holder ${pid} outlived systemctl --user restart`);
  const ls = JSON.parse((await cliWith(env, ['ls', '--json'])).stdout) as Array<{ holderPid: number; status: string }>;
  assert.deepEqual(ls.map((s) => s.holderPid).sort(), [...holders].sort());
  assert.ok(ls.every((s) => s.status === 'running'));

  // Asked to stop, the unit stays stopped; the next command starts it through systemd, not beside it.
  assert.equal((await cliWith(env, ['server', 'stop'])).code, 0);
  assert.equal((await cliWith(env, ['ls'])).code, 0);
  assert.equal(await serverPidOf(env), await mainPid());

  const removed = await cliWith(env, ['service', 'uninstall']);
  assert.equal(removed.code, 0, removed.stderr);
  unit = '';
  for (const pid of holders) assert.ok(isAlive(pid), `holder ${pid} outlived uninstall`);
});
