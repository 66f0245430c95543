// One server per TEND_HOME whatever the runtime directory: starters that
// resolve another runtime directory (another XDG_RUNTIME_DIR or
// TEND_RUNTIME_DIR: a login shell, a service, an agent that passes few
// variables) find the home's server through TEND_HOME/server.lock instead of
// starting a second one on the same store and holders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverArgs } from '../../src/common/node-flags.js';
import { cliWith, startTestServer, waitFor, isAlive, repoRoot, type TestServer } from './harness.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { OTHER_USER, readableByAnotherUser } from '../support/as-another-user.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';
import { TEND_BUILD } from '../../src/common/version.js';

const TEST_TIMEOUT_MS = 120_000;
const serverMain = join(repoRoot, 'dist', 'src', 'server', 'main.js');

interface StartAttempt {
  /** The ready pipe's last line: `OK <pid>` or `ERR <why>`. */
  said: string;
  /** The exit status, or null while it still runs (it serves). */
  status: number | null;
  pid: number;
  stderr: string;
}

/** Starts a server process as the CLI does (ready pipe on fd 3) and waits for its word, then for its exit if it refused. */
async function startServerProcess(env: NodeJS.ProcessEnv, extraArgs: string[] = [], spawnAs: { uid: number; gid: number; cwd: string } | null = null): Promise<StartAttempt> {
  const main = spawnAs ? readableByAnotherUser(serverMain) : serverMain;
  const child = spawn(process.execPath, [...serverArgs(main), '--ready-fd', '3', ...extraArgs], {
    env,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    ...(spawnAs ?? {}),
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  let text = '';
  const pipe = child.stdio[3] as NodeJS.ReadableStream;
  pipe.setEncoding('utf8');
  pipe.on('data', (c: string) => (text += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise((resolve) => pipe.on('end', resolve));
  const said = text.trim().split('\n').at(-1) ?? '';
  const status = said.startsWith('OK ') ? null : await exited;
  return { said, status, pid: child.pid!, stderr };
}

/** The test server's own runtime directory. */
function runtimeOf(t: TestServer): string {
  return t.env.TEND_RUNTIME_DIR!;
}

async function newShell(t: TestServer, name: string): Promise<SessionInfo> {
  const created = await t.cli(['new', '--json', '--name', name, '--', 'sh']);
  assert.equal(created.code, 0, created.stderr);
  await t.holderPids();
  return JSON.parse(created.stdout) as SessionInfo;
}

test('a second server for the same TEND_HOME with another runtime directory refuses, naming the first (pid, socket); the first keeps serving', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = startTestServer();
  const otherRuntime = makeTempDir('tend-rt2-');
  let second: StartAttempt | null = null;
  try {
    const s = await newShell(t, 'first');
    const pid = t.serverPid();
    assert.ok(pid);
    const firstSocket = join(runtimeOf(t), 'server.sock');

    second = await startServerProcess({ ...t.env, TEND_RUNTIME_DIR: otherRuntime });
    assert.equal(second.status, 3, `the second server answered ${second.said}`);
    assert.equal(second.said, `ERR a tend server is already running for this TEND_HOME (pid ${pid}, socket ${firstSocket})`);
    assert.equal(existsSync(join(otherRuntime, 'server.sock')), false, 'no socket was opened in the other runtime directory');
    const lock = JSON.parse(readFileSync(join(t.home, 'server.lock'), 'utf8'));
    assert.equal(lock.pid, pid);
    assert.equal(lock.socket, firstSocket);

    assert.equal(t.serverPid(), pid, 'the first server is untouched');
    assert.equal((await t.cli(['send', ':first', '--enter', 'echo', 'still-$((40+2))'])).code, 0);
    await waitFor('the first server to show the output', async () => (await t.cli(['screen', ':first'])).stdout.includes('still-42'));
    const listed = JSON.parse((await t.cli(['ls', '--json'])).stdout) as SessionInfo[];
    assert.deepEqual(listed.map((x) => [x.id, x.status]), [[s.id, 'running']]);
  } finally {
    if (second !== null && second.status === null && isAlive(second.pid)) process.kill(second.pid, 'SIGKILL');
    await t.dispose();
    removeTempDir(otherRuntime);
  }
});

test('verbs run with another runtime directory reach the server of their TEND_HOME and start no second one', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = startTestServer();
  const otherRuntime = makeTempDir('tend-rt2-');
  const otherEnv = { ...t.env, TEND_RUNTIME_DIR: otherRuntime };
  try {
    const s = await newShell(t, 'shared');
    const pid = t.serverPid();
    assert.ok(pid);

    const status = await cliWith(otherEnv, ['server', 'status', '--json']);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).pid, pid);
    const ls = await cliWith(otherEnv, ['ls', '--json']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.deepEqual((JSON.parse(ls.stdout) as SessionInfo[]).map((x) => [x.id, x.status]), [[s.id, 'running']]);
    // Input through the other runtime directory reaches the same terminal.
    const sent = await cliWith(otherEnv, ['send', ':shared', '--enter', 'echo', 'via-other-$((6*7))']);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor('the output on the first server', async () => (await t.cli(['screen', ':shared'])).stdout.includes('via-other-42'));
    const started = await cliWith(otherEnv, ['server', 'start']);
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout.trim(), `already running (pid ${pid})`);
    assert.equal(existsSync(join(otherRuntime, 'server.pid')), false, 'no server started in the other runtime directory');
    assert.equal(t.serverPid(), pid);

    // With the home's server stopped, the other runtime directory's verbs start their own, which then serves the home.
    const stopped = await cliWith(otherEnv, ['server', 'stop']);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(t.serverPid(), null);
    assert.equal(existsSync(join(t.home, 'server.lock')), false, 'a stopped server leaves no lock');
    const again = await cliWith(otherEnv, ['ls', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((JSON.parse(again.stdout) as SessionInfo[]).map((x) => x.id), [s.id]);
    const lock = JSON.parse(readFileSync(join(t.home, 'server.lock'), 'utf8'));
    assert.equal(lock.socket, join(otherRuntime, 'server.sock'));
    // and the first runtime directory's verbs now find that one.
    const status2 = await t.cli(['server', 'status', '--json']);
    assert.equal(status2.code, 0, status2.stderr);
    assert.equal(JSON.parse(status2.stdout).pid, lock.pid);
    assert.equal(t.serverPid(), null, 'still no server in the first runtime directory');
    assert.equal((await cliWith(otherEnv, ['server', 'stop'])).code, 0);
  } finally {
    await t.dispose();
    removeTempDir(otherRuntime);
  }
});

test('a lock left by a server that died (its pid gone, or now another program) is taken over', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = startTestServer();
  const lockFile = join(t.home, 'server.lock');
  const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
  try {
    const dead = spawn('true');
    await new Promise((resolve) => dead.on('exit', resolve));
    for (const stalePid of [dead.pid!, sleeper.pid!]) {
      writeFileSync(lockFile, `${JSON.stringify({ pid: stalePid, socket: '/nowhere/server.sock', version: '0.0.1' })}\n`);
      const started = await t.cli(['server', 'start']);
      assert.equal(started.code, 0, started.stderr);
      const pid = t.serverPid();
      assert.ok(pid);
      assert.deepEqual(JSON.parse(readFileSync(lockFile, 'utf8')), {
        pid,
        socket: join(runtimeOf(t), 'server.sock'),
        version: JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version,
        build: TEND_BUILD,
      });
      assert.equal((await t.cli(['server', 'stop'])).code, 0);
    }
    // A lock torn by hand is nobody's either.
    writeFileSync(lockFile, 'not a lock');
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, t.serverPid());
  } finally {
    sleeper.kill('SIGKILL');
    await t.dispose();
  }
});

// Root writes through permission bits, so as root the server runs as an
// unprivileged user whose TEND_HOME is then taken away from it.
const asUser = process.getuid?.() === 0 ? OTHER_USER : undefined;

/** Every file and directory under `dir` read-only to the server's user, as a read-only disk would be. */
function makeReadOnly(dir: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) makeReadOnly(p);
    else {
      if (asUser) chownSync(p, 0, 0);
      chmodSync(p, 0o444);
    }
  }
  if (asUser) chownSync(dir, 0, 0);
  chmodSync(dir, 0o555);
}

test('with TEND_HOME read-only the server starts as before, guarded by the runtime directory lock, and its log says so', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = startTestServer({}, { asUser });
  let started: StartAttempt | null = null;
  try {
    await newShell(t, 'ro');
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    makeReadOnly(t.home);
    // --foreground: the log goes to stderr, as the log file in a read-only TEND_HOME cannot be written.
    started = await startServerProcess(t.env, ['--foreground'], asUser ? { ...asUser, cwd: t.home } : null);
    assert.match(started.said, /^OK \d+$/, started.stderr);
    assert.match(started.stderr, new RegExp(`warn cannot take the lock ${join(t.home, 'server.lock')} \\(.*E(ACCES|ROFS).*\\): only ${join(runtimeOf(t), 'server.pid')} guards this server`));
    assert.equal(t.serverPid(), started.pid);
    const listed = JSON.parse((await t.cli(['ls', '--json'])).stdout) as SessionInfo[];
    assert.deepEqual(listed.map((x) => [x.name, x.status]), [['ro', 'running']]);
    // The runtime directory's lock still refuses a second server beside it.
    const second = await startServerProcess(t.env, [], asUser ? { ...asUser, cwd: t.home } : null);
    assert.equal(second.status, 3, second.said);
    assert.match(second.said, new RegExp(`already running .*pid ${started.pid}`));
  } finally {
    chmodSync(t.home, 0o755);
    if (started !== null && started.status === null && isAlive(started.pid)) process.kill(started.pid, 'SIGTERM');
    await t.dispose();
  }
});
