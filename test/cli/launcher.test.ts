// The `tend` on PATH: bin/tend is a link to the native viewer's binary
// (viewer/build/tend-attach), which is the launcher too (viewer/launch.c).
// Reached through links of links, it finds its own tree without starting any
// other process; every verb but a terminal's `attach` becomes `node
// bin/tend.js ARGS`; after `tend upgrade` it runs the build
// TEND_HOME/versions/current names, except for `upgrade` itself; and a copy
// of the binary outside any tree says so rather than guess.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readlinkSync, realpathSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../server/harness.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';

const LAUNCHER = join(repoRoot, 'bin', 'tend');
const RUN_TIMEOUT_MS = 30_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(argv0: string, args: string[], env: NodeJS.ProcessEnv, cwd = repoRoot): Run {
  // node's own directory first, as a user's shell has it: the launcher execs `node` from PATH.
  const r = spawnSync(argv0, args, {
    cwd,
    env: { ...env, PATH: `${dirname(process.execPath)}:${env.PATH ?? ''}` },
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function baseEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TEND_HOME: join(dir, 'home'), HOME: join(dir, 'user') };
  delete env.TEND_CLI_JS;
  delete env.TEND_VIEWER;
  return env;
}

test('bin/tend is a link to the native binary, and reached through links of links it runs the CLI of its own tree', (t) => {
  const dir = makeTempDir();
  t.after(() => removeTempDir(dir));
  assert.equal(readlinkSync(LAUNCHER), '../viewer/build/tend-attach');
  const env = baseEnv(dir);
  const own = run(join(repoRoot, 'bin', 'tend.js'), ['--version'], env);
  assert.equal(own.status, 0, own.stderr);

  // ~/.local/bin/tend → a relative link in another directory → bin/tend → the binary.
  mkdirSync(join(dir, 'links'));
  mkdirSync(join(dir, 'user', '.local', 'bin'), { recursive: true });
  symlinkSync(LAUNCHER, join(dir, 'links', 'tend'));
  symlinkSync(join('..', '..', '..', 'links', 'tend'), join(dir, 'user', '.local', 'bin', 'tend'));
  const direct = run(join(dir, 'user', '.local', 'bin', 'tend'), ['--version'], env, dir);
  assert.equal(direct.status, 0, direct.stderr);
  assert.equal(direct.stdout, own.stdout);

  // Found on PATH by a bare name, from another working directory.
  const onPath = run('tend', ['--version'], { ...env, PATH: `${join(dir, 'user', '.local', 'bin')}:${process.env.PATH ?? ''}` }, dir);
  assert.equal(onPath.status, 0, onPath.stderr);
  assert.equal(onPath.stdout, own.stdout);
});

test('every verb but a terminal\'s attach is the Node CLI, with its words and exit statuses', (t) => {
  const dir = makeTempDir();
  t.after(() => removeTempDir(dir));
  const env = baseEnv(dir);
  const unknown = run(LAUNCHER, ['frobnicate'], env);
  assert.equal(unknown.status, 2, unknown.stderr);
  assert.match(unknown.stderr, /^tend: /);
  // `attach` with no terminal goes to the TypeScript viewer, which says what it needs.
  const attach = run(LAUNCHER, ['attach', '--help'], env);
  assert.equal(attach.status, 0, attach.stderr);
  assert.match(attach.stdout, /^tend attach TARGET/);
  const viaNode = run(LAUNCHER, ['attach', ':nothing'], { ...env, TEND_VIEWER: 'node' });
  assert.notEqual(viaNode.status, 0);
  assert.match(viaNode.stderr, /^tend: /);
});

test('after an upgrade the tend on PATH runs TEND_HOME/versions/current, but not for `upgrade`, and never loops on its own tree', (t) => {
  const dir = makeTempDir();
  t.after(() => removeTempDir(dir));
  const env = baseEnv(dir);
  const versions = join(dir, 'home', 'versions');
  const other = join(versions, 'other-build');
  mkdirSync(join(other, 'bin'), { recursive: true });
  // The other build's launcher: a script saying how it was reached and with what.
  writeFileSync(join(other, 'bin', 'tend'), '#!/bin/sh\necho "other build: $0 $*"\n');
  chmodSync(join(other, 'bin', 'tend'), 0o755);
  symlinkSync('other-build', join(versions, 'current'));

  const ls = run(LAUNCHER, ['ls', '--json'], env);
  assert.equal(ls.status, 0, ls.stderr);
  // Through the `current` link, so a build's own launcher sees itself as current.
  assert.equal(ls.stdout, `other build: ${join(versions, 'current', 'bin', 'tend')} ls --json\n`);

  const upgrade = run(LAUNCHER, ['upgrade', '--help'], env);
  assert.equal(upgrade.status, 0, upgrade.stderr);
  assert.match(upgrade.stdout, /^tend upgrade/);

  // `current` naming this very tree (by any path): this tree runs the command itself.
  const self = join(dir, 'self');
  symlinkSync(realpathSync(repoRoot), self);
  const env2 = { ...env, TEND_HOME: join(dir, 'home2') };
  mkdirSync(join(dir, 'home2', 'versions'), { recursive: true });
  symlinkSync(self, join(dir, 'home2', 'versions', 'current'));
  const version = run(LAUNCHER, ['--version'], env2);
  assert.equal(version.status, 0, version.stderr);
  assert.match(version.stdout, /^tend \d/);
});

test('a copy of the binary outside any tend tree says so, and starts nothing', (t) => {
  const dir = makeTempDir();
  t.after(() => removeTempDir(dir));
  const stray = join(dir, 'tend');
  copyFileSync(realpathSync(LAUNCHER), stray);
  chmodSync(stray, 0o755);
  const r = run(stray, ['ls'], baseEnv(dir), dir);
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^tend: cannot find the tend tree this binary belongs to/);
});
