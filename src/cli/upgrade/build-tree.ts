// A build of tend on disk: a tree with a runnable server, CLI, holder, viewer
// and web app. Says which build a tree is (its dist/build-id.json), whether it
// is built, and copies the parts a running tend needs into a directory of its
// own (TEND_HOME/versions/<build>/), production dependencies included, so the
// copy stays runnable whatever later happens to the tree it came from.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { UNKNOWN_BUILD } from '../../common/version.js';

export { UNKNOWN_BUILD };

export interface BuildIdentity {
  version: string;
  /** Two trees of one version can differ in build (docs/upgrades.md). */
  build: string;
}

/** The files that say a tree is built: without them it must be built first. */
export const SERVER_MAIN = join('dist', 'src', 'server', 'main.js');
const CLI_ENTRY = join('bin', 'tend.js');
const HOLDER_BINARY = join('holder', 'build', 'tend-holder');

/** Whole directories a running tend reads (web/dist is absent in a tree built without the web app). */
const RUNNABLE_DIRS = ['bin', 'dist', 'web/dist'] as const;
/** Directories of which only the top-level files are needed: the binaries, not objects or sanitizer builds. */
const BINARY_DIRS = ['holder/build', 'viewer/build'] as const;
/** What a build's own test and bench output adds to dist/ and no user runs. */
const DIST_LEFT_OUT = ['test', 'bench', 'faults'].map((d) => join('dist', d));

/** What a tree says it is; null when it is no tend tree at all. */
export function readBuildIdentity(root: string): BuildIdentity | null {
  let version: string;
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: string; version?: string };
    if (pkg.name !== 'tend' || typeof pkg.version !== 'string') return null;
    version = pkg.version;
  } catch {
    return null;
  }
  try {
    const id = JSON.parse(readFileSync(join(root, 'dist', 'build-id.json'), 'utf8')) as Partial<BuildIdentity>;
    if (typeof id.build === 'string' && id.build !== '') return { version: id.version ?? version, build: id.build };
  } catch {
    /* built without scripts/write-build-id.js (`tsc -b` alone), or before build ids */
  }
  return { version, build: UNKNOWN_BUILD };
}

/** Whether a tree can run as it is (else `npm ci` builds it). */
export function isBuilt(root: string): boolean {
  return [SERVER_MAIN, CLI_ENTRY, HOLDER_BINARY].every((part) => existsSync(join(root, part)));
}

/**
 * Copies the runnable parts of `from` into `to` (which must not exist yet).
 * node_modules gets the production dependencies only, copied rather than
 * linked: a hard link would let a later `npm install` in the source tree
 * change the kept build under a rollback that relies on it.
 */
export function copyRunnableTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  cpSync(join(from, 'package.json'), join(to, 'package.json'));
  for (const dir of RUNNABLE_DIRS) {
    const source = join(from, dir);
    if (!existsSync(source)) continue;
    cpSync(source, join(to, dir), {
      recursive: true,
      preserveTimestamps: true,
      // bin/tend is a relative link to viewer/build/tend-attach: kept as it is, it names the copy's own binary.
      verbatimSymlinks: true,
      filter: (path) => !DIST_LEFT_OUT.includes(relative(from, path)),
    });
  }
  for (const dir of BINARY_DIRS) {
    const source = join(from, dir);
    if (!existsSync(source)) continue;
    mkdirSync(join(to, dir), { recursive: true });
    for (const name of readdirSync(source)) {
      if (statSync(join(source, name)).isFile()) cpSync(join(source, name), join(to, dir, name), { preserveTimestamps: true });
    }
  }
  for (const pkgDir of productionPackageDirs(from)) {
    const target = join(to, relative(from, pkgDir));
    mkdirSync(dirname(target), { recursive: true });
    const native = existsSync(join(pkgDir, 'binding.gyp'));
    // A package's own node_modules holds nested versions: each is copied when reached, dev-only ones never.
    cpSync(pkgDir, target, { recursive: true, preserveTimestamps: true, filter: (path) => isRuntimeFile(relative(pkgDir, path), native) });
  }
}

/**
 * Whether a file of a package is needed to run it. Not its nested
 * node_modules (copied package by package) and, for a native addon, not what
 * compiling it left: its C sources and objects (better-sqlite3: 27 of its 30 MB).
 */
function isRuntimeFile(rel: string, native: boolean): boolean {
  if (rel === 'node_modules' || rel.startsWith('node_modules/') || rel === '.bin') return false;
  if (!native) return true;
  const top = rel.split('/')[0];
  if (top === 'deps' || top === 'src') return false;
  if (top !== 'build' || rel === 'build' || rel === 'build/Release') return true;
  return rel.startsWith('build/Release/') && !rel.slice('build/Release/'.length).includes('/') && rel.endsWith('.node');
}

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

function readPackageJson(dir: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return null;
  }
}

/**
 * Where Node finds package `name` for code in `from`: the nearest
 * node_modules/name at or above it, no higher than the tree's root.
 */
function resolvePackageDir(root: string, from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root) return null;
    const up = dirname(dir);
    if (up === dir || relative(root, up).startsWith('..')) return null;
    dir = up;
  }
}

/**
 * The package directories the tree's dependencies (and theirs) resolve to,
 * as paths inside the tree: what `npm ci --omit=dev` would leave. An optional
 * dependency that is not installed is skipped, as Node would skip it.
 */
export function productionPackageDirs(root: string): string[] {
  const seen = new Set<string>();
  const queue: Array<{ from: string; pkg: PackageJson | null }> = [{ from: root, pkg: readPackageJson(root) }];
  while (queue.length > 0) {
    const { from, pkg } = queue.shift()!;
    const names = [...Object.keys(pkg?.dependencies ?? {}), ...Object.keys(pkg?.optionalDependencies ?? {})];
    for (const name of names) {
      const dir = resolvePackageDir(root, from, name);
      if (dir === null || seen.has(dir)) continue;
      seen.add(dir);
      queue.push({ from: dir, pkg: readPackageJson(dir) });
    }
  }
  return [...seen];
}

/** The tree a server's main module is in (…/dist/src/server/main.js → …), or null. */
export function treeOfServerMain(mainPath: string): string | null {
  let real: string;
  try {
    real = realpathSync(mainPath);
  } catch {
    return null;
  }
  const suffix = `/${SERVER_MAIN}`;
  return real.endsWith(suffix) ? real.slice(0, -suffix.length) : null;
}
