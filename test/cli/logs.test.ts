// `tend logs` prints the server's log, and with -f follows it as the server
// writes, across a rotation; `tend server status` names the log. A real
// server writes the lines: it logs "serving on … (pid N" when it starts and
// "stopping" when asked to stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, killQuietly } from '../support/processes.js';
import { repoRoot, startTestServer, waitFor } from '../server/harness.js';

interface Follower {
  output(): string;
  /** Ctrl-C, as a terminal sends it; resolves with the exit code. */
  interrupt(): Promise<number | null>;
  pid: number;
}

function follow(env: NodeJS.ProcessEnv, args: string[]): Follower {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'tend.js'), 'logs', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    output: () => out,
    pid: child.pid!,
    interrupt: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

test('tend logs prints the lines the server wrote, the last N with -n, as JSON with --json', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const missing = await t.cli(['logs']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no server log at .*server\.log/);
    assert.equal(t.serverPid(), null, 'reading the log starts no server');

    const started = await t.cli(['server', 'start', '--json']);
    assert.equal(started.code, 0, started.stderr);
    const { pid } = JSON.parse(started.stdout) as { pid: number };
    const logs = await t.cli(['logs']);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stdout, new RegExp(`info serving on .* \\(pid ${pid},`));

    const last = await t.cli(['logs', '-n', '1']);
    assert.equal(last.stdout.split('\n').filter((l) => l !== '').length, 1, last.stdout);
    assert.ok(logs.stdout.endsWith(last.stdout), 'the last line is the log\'s last line');

    const json = JSON.parse((await t.cli(['logs', '--json', '--lines', '2'])).stdout) as { log: string; lines: string[] };
    assert.equal(json.log, t.client.paths.serverLog);
    assert.equal(json.lines.length, 2);
    assert.deepEqual(json.lines, logs.stdout.trimEnd().split('\n').slice(-2));

    assert.equal((await t.cli(['logs', '-n', 'many'])).code, 2);
  } finally {
    await t.dispose();
  }
});

test('tend logs -f shows a line written after it started, goes on in the new file after a rotation, and exits 0 on Ctrl-C', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  let follower: Follower | null = null;
  try {
    assert.equal((await t.cli(['server', 'start'])).code, 0);
    follower = follow(t.env, ['-f', '-n', '1']);
    const f = follower;
    await waitFor('the last line before following', () => f.output().includes('serving on'));

    assert.equal((await t.cli(['server', 'stop'])).code, 0);
    await waitFor('the stop line, written after the follow began', () => f.output().includes('info stopping'), 30_000);

    // Rotate as the server does (rename aside, then append to a new file at the same path).
    const log = t.client.paths.serverLog;
    renameSync(log, `${log}.1`);
    const restarted = await t.cli(['server', 'start', '--json']);
    assert.equal(restarted.code, 0, restarted.stderr);
    const { pid } = JSON.parse(restarted.stdout) as { pid: number };
    assert.ok(existsSync(log), 'the new server started a new log');
    await waitFor('the new server\'s line, in the new file', () => f.output().includes(`(pid ${pid},`), 30_000);

    assert.equal(await f.interrupt(), 0);
    assert.equal(f.output().match(/info stopping/g)?.length, 1, `each line once: ${f.output()}`);
  } finally {
    if (follower && isProcessAlive(follower.pid)) killQuietly(follower.pid);
    await t.dispose();
  }
});

test('tend server status names the log, running or not, and --json has it', { timeout: 120_000 }, async () => {
  const t = startTestServer();
  try {
    const log = t.client.paths.serverLog;
    const stopped = await t.cli(['server', 'status']);
    assert.equal(stopped.code, 1);
    assert.ok(stopped.stdout.includes(`log: ${log}`), stopped.stdout);
    assert.equal((JSON.parse((await t.cli(['server', 'status', '--json'])).stdout) as { log: string }).log, log);

    assert.equal((await t.cli(['server', 'start'])).code, 0);
    const running = await t.cli(['server', 'status']);
    assert.equal(running.code, 0, running.stderr);
    assert.ok(running.stdout.includes(`log: ${log}`), running.stdout);
    const json = JSON.parse((await t.cli(['server', 'status', '--json'])).stdout) as { running: boolean; log: string };
    assert.deepEqual([json.running, json.log], [true, log]);
  } finally {
    await t.dispose();
  }
});
