// The server's life: started by the first verb, one per TEND_HOME, stopped and
// restarted without closing a terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverArgs, serverNodeFlags } from '../../src/common/node-flags.js';
import { PARSE_THREAD_NICE } from '../../src/server/screen-host/thread-priority.js';
import { startTestServer, waitFor, isAlive, repoRoot } from './harness.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

/** A session these tests started: its program and holder have pids. */
type Info = SessionInfo & { pid: number; holderPid: number };

async function screenText(t: ReturnType<typeof startTestServer>, target: string): Promise<string> {
  const r = await t.cli(['screen', target]);
  return r.code === 0 ? r.stdout : '';
}

test('the first verb starts the server; stopping it leaves the shell running and the next server shows the same screen', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const created = await t.cli(['new', '--json', '--name', 'sh1', '--size', '80x24', '--', 'sh']);
    assert.equal(created.code, 0, created.stderr);
    const s = JSON.parse(created.stdout) as Info;
    assert.equal(s.status, 'running');
    await t.holderPids();
    assert.equal((await t.cli(['send', ':sh1', '--enter', 'echo', 'hello-$((6*7))'])).code, 0);
    await waitFor('echo output', async () => (await screenText(t, ':sh1')).includes('hello-42'));
    const before = await screenText(t, ':sh1');

    const stopped = await t.cli(['server', 'stop']);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(t.serverPid(), null);
    assert.ok(isAlive(s.holderPid), 'the holder outlives the server');
    assert.ok(isAlive(s.pid), 'the shell outlives the server');

    // Any verb brings the server back, and with it the session and its screen.
    const ls = await t.cli(['ls', '--json']);
    assert.equal(ls.code, 0, ls.stderr);
    const listed = JSON.parse(ls.stdout) as Info[];
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.status, 'running');
    assert.equal(await screenText(t, ':sh1'), before);
    assert.equal((await t.cli(['send', ':sh1', '--enter', 'echo', 'again-$((7*6))'])).code, 0);
    await waitFor('echo after restart', async () => (await screenText(t, ':sh1')).includes('again-42'));

    const killed = await t.cli(['kill', ':sh1']);
    assert.equal(killed.code, 0, killed.stderr);
    await waitFor('holder exit', () => !isAlive(s.holderPid));
    assert.equal(JSON.parse((await t.cli(['ls', '--json'])).stdout).length, 0);
  } finally {
    await t.dispose();
  }
});

test('a starting server reports its recovery on the ready pipe, then OK with its pid', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    for (let i = 0; i < 3; i++) assert.equal((await t.cli(['new', '--', 'cat'])).code, 0);
    await t.holderPids();
    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    const child = spawn(process.execPath, serverArgs(join(repoRoot, 'dist', 'src', 'server', 'main.js')), {
      env: t.env,
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    });
    child.unref();
    let text = '';
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    pipe.on('data', (c: string) => (text += c));
    await new Promise((resolve) => pipe.on('end', resolve));
    const lines = text.trim().split('\n');
    assert.equal(lines[0], 'RECOVERING 0/3', text);
    assert.equal(lines.at(-2), 'RECOVERING 3/3', text);
    assert.equal(lines.at(-1), `OK ${child.pid}`, text);
    assert.ok(lines.slice(0, -1).every((l) => /^RECOVERING [0-3]\/3$/.test(l)), text);
    assert.equal(t.serverPid(), child.pid);
  } finally {
    await t.dispose();
  }
});

test('a second server for the same TEND_HOME is refused with a clear message', { timeout: 60_000 }, async () => {
  const t = startTestServer();
  try {
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    const pid = t.serverPid();
    assert.ok(pid);
    // the server runs with the flags the CLI starts it with
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const flag of serverNodeFlags()) assert.ok(argv.includes(flag), `${flag} in ${argv.join(' ')}`);
    // one thread, the screen host's, parses at a lower priority than the loop's (field 19 of stat is the nice value)
    const nices = () => readdirSync(`/proc/${pid}/task`).map((tid) => Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[16]));
    await waitFor('the screen host to lower its priority', () => nices().includes(PARSE_THREAD_NICE) || null);
    assert.deepEqual(nices().filter((n) => n !== 0), [PARSE_THREAD_NICE], `thread nice values: ${nices().join(' ')}`);
    const second = spawnSync(process.execPath, [join(repoRoot, 'dist', 'src', 'server', 'main.js')], { env: t.env, encoding: 'utf8', timeout: 30_000 });
    assert.equal(second.status, 3);
    assert.match(second.stderr, new RegExp(`already running .*pid ${pid}`));
    assert.equal(t.serverPid(), pid, 'the first server is untouched');
    const again = await t.cli(['server', 'start']);
    assert.match(again.stdout, /already running/);
  } finally {
    await t.dispose();
  }
});

test('verbs reject bad input with one clear line and exit code 2', { timeout: 60_000 }, async () => {
  const t = startTestServer();
  try {
    const badSize = await t.cli(['new', '--size', '80by24']);
    assert.equal(badSize.code, 2);
    assert.match(badSize.stderr, /--size must look like COLSxROWS/);
    const badCwd = await t.cli(['new', '--cwd', '/definitely/not/here', '--', 'sh']);
    assert.notEqual(badCwd.code, 0);
    assert.match(badCwd.stderr, /does not exist/);
    const noProgram = await t.cli(['new', '--', 'no-such-program-tend-test']);
    assert.notEqual(noProgram.code, 0);
    assert.match(noProgram.stderr, /no-such-program-tend-test/);
    const unknown = await t.cli(['screen', ':nobody']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no session is named ":nobody"/);
    assert.doesNotMatch(unknown.stderr + noProgram.stderr + badCwd.stderr, /\n\s+at /, 'no stack traces');
    const help = await t.cli(['new', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^tend new/);
  } finally {
    await t.dispose();
  }
});

test('an unreadable store is reported, not overwritten', { timeout: 60_000 }, async () => {
  const t = startTestServer();
  try {
    const { writeFileSync, readFileSync } = await import('node:fs');
    const db = join(t.home, 'tend.db');
    const garbage = Buffer.from('this is not a database, and tend must not make it one\n'.repeat(100));
    writeFileSync(db, garbage);
    const r = await t.cli(['ls']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /could not start/);
    assert.match(r.stderr, /tend\.db/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.deepEqual(readFileSync(db), garbage, 'the file is untouched');
    assert.equal(t.serverPid(), null);
  } finally {
    await t.dispose();
  }
});

test('tend open --print gives the browser app address, and the server serves the app there', { timeout: 60_000 }, async () => {
  const t = startTestServer();
  try {
    const r = await t.cli(['open', '--print']);
    assert.equal(r.code, 0, r.stderr);
    const url = r.stdout.trim();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await page.text(), /<div id="root">|<html/i);
    const health = await fetch(new URL('/v1/health', url));
    assert.equal(health.status, 200);
  } finally {
    await t.dispose();
  }
});
