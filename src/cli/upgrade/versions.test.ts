import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Versions } from './versions.js';
import { productionPackageDirs } from './build-tree.js';

const TEST_TIMEOUT_MS = 20_000;
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tend-versions-'));
  dirs.push(d);
  return d;
}

/** A minimal tend tree: what readBuildIdentity and the copy need. */
function tree(root: string, build: string, deps: Record<string, string> = {}): string {
  mkdirSync(join(root, 'dist'), { recursive: true });
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'viewer', 'build'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'tend', version: '1.2.3', dependencies: deps }));
  writeFileSync(join(root, 'dist', 'build-id.json'), JSON.stringify({ version: '1.2.3', build }));
  // As in a checkout: the tend on PATH is a relative link to the native binary.
  writeFileSync(join(root, 'viewer', 'build', 'tend-attach'), '#!/bin/sh\n');
  symlinkSync('../viewer/build/tend-attach', join(root, 'bin', 'tend'));
  return root;
}

function pkg(dir: string, deps: Record<string, string> = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: dir.split('node_modules/').at(-1), dependencies: deps }));
}

describe('versions', { timeout: TEST_TIMEOUT_MS }, () => {
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test('installs a build under its id, once, and points current and previous at builds by rename', () => {
    const home = tempDir();
    const versions = new Versions(home);
    const a = tree(join(tempDir(), 'a'), 'aaaa');
    const first = versions.install(a, { version: '1.2.3', build: 'aaaa' });
    assert.deepEqual(first, { root: join(home, 'versions', 'aaaa'), copied: true });
    assert.equal(versions.install(a, { version: '1.2.3', build: 'aaaa' }).copied, false, 'an installed build is not copied again');
    versions.point('current', 'aaaa');
    assert.equal(readlinkSync(join(home, 'versions', 'current')), 'aaaa');
    assert.deepEqual(versions.read('current'), { build: 'aaaa', root: join(home, 'versions', 'aaaa') });
    const b = tree(join(tempDir(), 'b'), 'bbbb');
    versions.install(b, { version: '1.2.3', build: 'bbbb' });
    versions.point('previous', 'aaaa');
    versions.point('current', 'bbbb');
    assert.equal(versions.read('current')?.build, 'bbbb');
    assert.equal(versions.read('previous')?.build, 'aaaa');
    // No temporary link or half copy is left beside them.
    assert.deepEqual(readdirSync(join(home, 'versions')).sort(), ['aaaa', 'bbbb', 'current', 'previous']);
    versions.clear('previous');
    assert.equal(versions.read('previous'), null);
  });

  test('a build id cannot name a directory outside versions/ or a pointer', () => {
    const versions = new Versions(tempDir());
    assert.equal(versions.pathOf('../../etc'), join(versions.dir, '.._.._etc'));
    assert.equal(versions.pathOf('current'), join(versions.dir, 'build-current'));
    assert.equal(versions.pathOf('..'), join(versions.dir, 'build-..'));
  });

  test('copies the production dependencies as Node resolves them, nested versions included, dev ones not', () => {
    const root = tree(tempDir(), 'cccc', { left: '1', right: '1' });
    pkg(join(root, 'node_modules', 'left'), { shared: '2' });
    pkg(join(root, 'node_modules', 'left', 'node_modules', 'shared')); // left's own version
    pkg(join(root, 'node_modules', 'right'), { shared: '1' });
    pkg(join(root, 'node_modules', 'shared')); // the hoisted one, right's
    pkg(join(root, 'node_modules', 'dev-only'));
    const found = productionPackageDirs(root).map((d) => d.slice(root.length + 1)).sort();
    assert.deepEqual(found, ['node_modules/left', 'node_modules/left/node_modules/shared', 'node_modules/right', 'node_modules/shared']);

    const versions = new Versions(tempDir());
    const { root: installed } = versions.install(root, { version: '1.2.3', build: 'cccc' });
    assert.ok(existsSync(join(installed, 'node_modules', 'left', 'node_modules', 'shared', 'package.json')));
    assert.equal(existsSync(join(installed, 'node_modules', 'dev-only')), false);
    // The launcher's link stays relative: it names the copy's own binary, not the tree it came from.
    assert.equal(readlinkSync(join(installed, 'bin', 'tend')), '../viewer/build/tend-attach');
    assert.ok(existsSync(join(installed, 'bin', 'tend')));
  });
});
