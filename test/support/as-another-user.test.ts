// The tests that run code as another user must pass wherever the checkout
// is, including under a home directory that user cannot enter (mode 0700).
// This runs one of them from such a checkout: a copy of this one's compiled
// tree under a 0700 directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { copyRunnablePackage, runsAsRoot } from './as-another-user.js';

const TEST_TIMEOUT_MS = 120_000;
const packageRoot = resolve(import.meta.dirname, '..', '..', '..');
/** A test whose child runs as another user and imports the package's modules. */
const OTHER_USER_TEST = join('dist', 'src', 'server', 'store', 'open-database.test.js');

function run(cwd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, reject) => {
    // Without the runner's marker, or the nested node --test would decline to run.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, output }));
  });
}

test('a test run as another user passes from a checkout under a 0700 directory', {
  timeout: TEST_TIMEOUT_MS,
  skip: runsAsRoot() ? false : 'only root starts a process as another user; as anyone else the child is that same user',
}, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'tend-private-home-')); // 0700, as a home directory
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const checkout = join(home, 'tend');
  mkdirSync(checkout);
  copyRunnablePackage(packageRoot, checkout, [join('dist', 'test', 'support'), join('dist', 'test', 'helpers')]);

  const r = await run(checkout, ['--test', '--test-reporter=tap', OTHER_USER_TEST]);
  assert.equal(r.code, 0, r.output);
  assert.match(r.output, /^# fail 0$/m);
  assert.doesNotMatch(r.output, /^# pass 0$/m, 'the tests ran rather than being skipped');
});
