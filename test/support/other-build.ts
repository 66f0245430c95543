// Another build of tend for upgrade tests: a copy of this tree's runnable
// parts (bin/, dist/, the holder's and the viewer's binaries, the web app,
// package.json) in a directory of its own, saying another version and build
// id, with node_modules linked rather than copied. A test may change the copy
// before it is used (`patch`): a server that exits at start, a store migration
// that fails. It is a real, runnable tend: its own server, CLI and holders.
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPackageRoot } from '../../src/common/package-root.js';

/** What dist/build-id.json says (scripts/write-build-id.js writes it at build time). */
export interface BuildIdFile {
  version: string;
  build: string;
}

export interface OtherBuildOptions {
  /** Where to put it: an empty or missing directory (the test's temp dir). */
  dir: string;
  /** The version its package.json and build id say. */
  version: string;
  /** Its build id; default: derived from the version. */
  build?: string;
  /** Changes to the copy before it is used; gets the copy's root. */
  patch?: (root: string) => void;
}

/** The parts of a tree a running tend needs (node_modules is linked, not copied). */
const RUNNABLE_PARTS = ['bin', 'dist', 'holder/build', 'viewer/build', 'web/dist', 'package.json'] as const;

/** Makes the copy and returns its root. */
export function makeOtherBuild(options: OtherBuildOptions): string {
  const source = findPackageRoot();
  const root = options.dir;
  mkdirSync(root, { recursive: true });
  for (const part of RUNNABLE_PARTS) {
    const from = join(source, part);
    if (!existsSync(from)) continue; // web/dist is absent until `npm run build:web`
    cpSync(from, join(root, part), { recursive: true, dereference: false, verbatimSymlinks: true, preserveTimestamps: true });
  }
  // findPackageRoot() needs holder/ beside package.json; holder/build is there.
  symlinkSync(join(source, 'node_modules'), join(root, 'node_modules'), 'dir');
  const pkgFile = join(root, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, unknown>;
  pkg.version = options.version;
  writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
  const id: BuildIdFile = { version: options.version, build: options.build ?? `test-${options.version.replace(/[^0-9A-Za-z]/g, '')}` };
  writeFileSync(join(root, 'dist', 'build-id.json'), `${JSON.stringify(id)}\n`);
  options.patch?.(root);
  return root;
}
