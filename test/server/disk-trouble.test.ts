// A TEND_HOME whose disk is full or read-only: every refusal is one line that
// says what is wrong and where, never "internal server error", never a stack,
// and no session that was running is lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, waitFor, killAndRestart, type TestServer } from './harness.js';
import { mountSmallDisk, type SmallDisk } from './small-disk.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';

const TEST_TIMEOUT_MS = 120_000;
const SMALL_DISK_BYTES = 4 * 1024 * 1024;
const IS_ROOT = process.getuid?.() === 0;

interface Info { id: string; status: string; warning?: string }

/** A refusal as a person sees it: exactly one line on stderr. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `expected one line, got:\n${stderr}`);
  return lines[0]!;
}

async function startShell(s: TestServer, name: string): Promise<Info> {
  const r = await s.cli(['new', '--json', '--name', name, '--', 'sh']);
  assert.equal(r.code, 0, r.stderr);
  await s.holderPids();
  return JSON.parse(r.stdout) as Info;
}

async function echoes(s: TestServer, target: string, word: string): Promise<void> {
  // The shell computes the number: the screen shows the output, not the typed line.
  assert.equal((await s.cli(['send', target, '--enter', 'echo', `${word}-$((40+2))`])).code, 0);
  await waitFor(`${word} on the screen`, async () => (await s.cli(['screen', target])).stdout.includes(`${word}-42`));
}

test('with TEND_HOME full, tend new says the disk is full and where (507 disk_full); the running session runs on', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const home = makeTempDir('tend-full-');
  const disk = mountSmallDisk(home, SMALL_DISK_BYTES);
  if ('skip' in disk) {
    removeTempDir(home);
    t.skip(disk.skip);
    return;
  }
  const s = startTestServer({ TEND_HOME: home, TEND_CHECKPOINT_QUIET_MS: '100' });
  try {
    const before = await startShell(s, 'before');
    disk.fill();

    const created = await s.cli(['new', '--', 'sh']);
    assert.equal(created.code, 1);
    const said = oneLine(created.stderr);
    assert.match(said, /^tend: .*disk .*is full/);
    assert.ok(said.includes(join(home, 'tend.db')), said);
    assert.doesNotMatch(said, /internal/);

    const res = await s.api<any>('POST', '/v1/sessions', { argv: ['sh'], cwd: '/' });
    assert.equal(res.status, 507);
    assert.equal(res.body.error.code, 'disk_full');
    assert.equal(res.body.error.errno, 'ENOSPC');
    assert.ok(res.body.error.message.includes(home), res.body.error.message);

    // The session that was running keeps running, takes input and shows output.
    await echoes(s, ':before', 'still');
    const sessions = (await s.api<Info[]>('GET', '/v1/sessions')).body;
    assert.deepEqual(sessions.map((x) => [x.id, x.status]), [[before.id, 'running']]);
  } finally {
    await s.dispose();
    disk.dispose();
    removeTempDir(home);
  }
});

test('with the runtime directory full, a new shell is refused as 507 disk_full naming that directory, not as a bad request', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const runtime = makeTempDir('tend-rt-full-');
  const disk = mountSmallDisk(runtime, SMALL_DISK_BYTES);
  if ('skip' in disk) {
    removeTempDir(runtime);
    t.skip(disk.skip);
    return;
  }
  const s = startTestServer({ TEND_RUNTIME_DIR: runtime });
  try {
    assert.equal((await s.cli(['server', 'start'])).code, 0);
    disk.fill();
    // bash gets tend's shell integration, whose start-up file is written in the runtime directory.
    const res = await s.api<any>('POST', '/v1/sessions', { argv: ['bash'], cwd: '/' });
    assert.equal(res.status, 507, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'disk_full');
    assert.ok(res.body.error.message.includes(runtime), res.body.error.message);
    assert.deepEqual((await s.api<unknown[]>('GET', '/v1/sessions')).body, []);
  } finally {
    await s.dispose();
    disk.dispose();
    removeTempDir(runtime);
  }
});

test('checkpoints that cannot be written leave the session running, warn once in the log and show in its state', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const s = startTestServer({ TEND_CHECKPOINT_QUIET_MS: '100' });
  const checkpoints = join(s.home, 'checkpoints');
  mkdirSync(checkpoints, { recursive: true, mode: 0o700 });
  const disk = mountSmallDisk(checkpoints, SMALL_DISK_BYTES);
  if ('skip' in disk) {
    await s.dispose();
    t.skip(disk.skip);
    return;
  }
  try {
    disk.fill();
    const session = await startShell(s, 'kept');
    await echoes(s, ':kept', 'one');
    const warned = await waitFor('the session to carry a warning', async () => (await s.api<Info>('GET', '/v1/sessions/:kept')).body.warning);
    assert.match(warned, /checkpoints stopped: disk full \(ENOSPC\)/);
    assert.ok(warned.includes(checkpoints), warned);
    const ls = await s.cli(['ls']);
    assert.equal(ls.code, 0);
    assert.equal(oneLine(ls.stderr), `tend: warning: ${warned}`);

    // More output asks for more checkpoints: still one warning in the log, and no stack trace anywhere in it.
    await echoes(s, ':kept', 'two');
    await echoes(s, ':kept', 'three');
    const log = readFileSync(join(s.home, 'logs', 'server.log'), 'utf8');
    assert.equal(log.split('\n').filter((l) => l.includes('checkpoints stopped')).length, 1, log);
    assert.doesNotMatch(log, /^\s+at /m);

    // Nothing is lost: a server crash later, the session is recovered from its holder.
    await killAndRestart(s);
    const after = (await s.api<Info[]>('GET', '/v1/sessions')).body;
    assert.deepEqual(after.map((x) => [x.id, x.status]), [[session.id, 'running']]);
    await waitFor('the screen replayed', async () => (await s.cli(['screen', ':kept'])).stdout.includes('three-42'));
  } finally {
    disk.dispose(); // first: the harness then removes TEND_HOME, which it could not with a disk mounted in it
    await s.dispose();
  }
});

/** An empty TEND_HOME this test's tend cannot write: a read-only mount as root, permissions otherwise. */
function readOnlyHome(t: { skip(why: string): void }): { dir: string; dispose(): void } | null {
  const dir = makeTempDir('tend-ro-');
  if (!IS_ROOT) {
    chmodSync(dir, 0o500);
    return { dir, dispose: () => { chmodSync(dir, 0o700); removeTempDir(dir); } };
  }
  const disk: SmallDisk | { skip: string } = mountSmallDisk(dir, SMALL_DISK_BYTES, { readOnly: true });
  if ('skip' in disk) {
    removeTempDir(dir);
    t.skip(`root writes through permission bits, and ${disk.skip}`);
    return null;
  }
  return { dir, dispose: () => { disk.dispose(); removeTempDir(dir); } };
}

test('on an empty read-only TEND_HOME the CLI says so and what it means, and points at no log that cannot exist', { timeout: TEST_TIMEOUT_MS }, async (t) => {
  const home = readOnlyHome(t);
  if (home === null) return;
  const nested = join(home.dir, 'not-yet');
  const servers = [startTestServer({ TEND_HOME: home.dir }), startTestServer({ TEND_HOME: nested })];
  try {
    for (const [s, dir] of [[servers[0]!, home.dir], [servers[1]!, nested]] as const) {
      const r = await s.cli(['ls']);
      assert.equal(r.code, 1);
      const said = oneLine(r.stderr);
      assert.match(said, /^tend: the tend server could not start: /);
      assert.ok(said.includes(dir), said);
      assert.match(said, /read-only|may not write/);
      assert.match(said, /cannot start there/);
      assert.match(said, /set TEND_HOME to a directory you can write/);
      assert.doesNotMatch(said, /server\.log/);
      assert.equal(existsSync(join(dir, 'logs')), false);
      assert.equal(s.serverPid(), null);
    }
  } finally {
    for (const s of servers) await s.dispose();
    home.dispose();
  }
});
