// Test support: runs code as another user, for the checks that file
// permissions and the loopback listener's same-user gate must make.
//
// Tests usually run as root, for whom mode bits stop nothing (every write to
// a chmod 0500 directory succeeds), so as root the child drops to the
// uid/gid of `nobody` at spawn; as anyone else it runs as that same user, for
// whom chmod already works. Either way the write fails in the kernel with a
// real EACCES — no fake fs in between.
//
// `nobody` must be able to read what it runs, and a checkout usually sits in
// a home directory it cannot enter (mode 0700). So when the child switches
// user it runs from a copy of the package's runnable parts (hard links where
// it can) in a temporary directory anyone may read: readableByAnotherUser
// maps a path of this checkout to the same file in that copy.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

/** nobody: a user that is surely not the one running the tests. */
export const OTHER_USER = { uid: 65534, gid: 65534 } as const;

/** This checkout (this file is compiled to dist/test/support/). */
const packageRoot = resolvePath(import.meta.dirname, '..', '..', '..');

export const runsAsRoot = (): boolean => process.getuid?.() === 0;

/**
 * Makes `dir` something the child can enter and read but not write, and its
 * parents traversable (mkdtemp gives 0700, which would shut `nobody` out).
 */
export function makeReadOnlyForChild(dir: string, parents: string[]): void {
  for (const p of parents) chmodSync(p, 0o755);
  chmodSync(dir, 0o555);
}

/** What a tend process needs at run time, relative to the package root. */
const RUNNABLE_PARTS = ['package.json', 'bin', join('dist', 'src'), join('dist', 'build-id.json'), join('holder', 'build', 'tend-holder'), join('web', 'dist')];

/** The packages `from`'s package.json depends on at run time, and theirs, as node_modules paths. */
function runtimePackages(from: string): string[] {
  const found = new Set<string>();
  const visit = (manifest: string): void => {
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: object; optionalDependencies?: object };
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      const dir = join('node_modules', name);
      // One not hoisted to the top lives inside its dependant, copied with it.
      if (found.has(dir) || !existsSync(join(from, dir, 'package.json'))) continue;
      found.add(dir);
      visit(join(from, dir, 'package.json'));
    }
  };
  visit(join(from, 'package.json'));
  return [...found];
}

/**
 * Places `from` at `to`, readable by every user: a hard link where the file
 * already is (cheap, and a checkout is usually 0644 files in 0755 folders
 * below the closed home), otherwise a copy opened to all.
 */
function placeReadable(from: string, to: string): void {
  const st = lstatSync(from);
  if (st.isSymbolicLink()) {
    symlinkSync(readlinkSync(from), to);
  } else if (st.isDirectory()) {
    placeDirectory(to);
    for (const name of readdirSync(from)) placeReadable(join(from, name), join(to, name));
  } else if (!(st.mode & 0o004) || !tryLink(from, to)) {
    copyFileSync(from, to);
    chmodSync(to, st.mode | 0o444 | (st.mode & 0o100 ? 0o111 : 0));
  }
}

/** A hard link, or false where there can be none (another file system, say). */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch {
    return false;
  }
}

/**
 * Places the runnable parts of the package at `from` (its manifest, bin/,
 * the compiled sources, the holder, the web build, the run-time
 * dependencies), plus `extra` paths, under `to`, readable by every user;
 * each part is skipped if not built.
 */
export function copyRunnablePackage(from: string, to: string, extra: string[] = []): void {
  chmodSync(to, 0o755);
  for (const part of [...RUNNABLE_PARTS, ...runtimePackages(from), ...extra]) {
    if (!existsSync(join(from, part))) continue;
    let dir = to;
    for (const step of dirname(part).split(sep).filter((p) => p !== '.')) {
      dir = join(dir, step);
      if (!existsSync(dir)) placeDirectory(dir);
    }
    placeReadable(join(from, part), join(to, part));
  }
}

function placeDirectory(dir: string): void {
  mkdirSync(dir);
  chmodSync(dir, 0o755);
}

let readableCopy: string | undefined;

/** The package root `nobody` runs from: this checkout, or (made once per test process) a readable copy of it. */
function readableRoot(): string {
  if (!runsAsRoot()) return packageRoot;
  if (readableCopy === undefined) {
    const copy = mkdtempSync(join(tmpdir(), 'tend-other-user-'));
    process.on('exit', () => rmSync(copy, { recursive: true, force: true }));
    copyRunnablePackage(packageRoot, copy);
    readableCopy = copy;
  }
  return readableCopy;
}

/**
 * The path another user runs for `path`, a file of this package (a compiled
 * module, bin/tend.js): the same file in a copy it can read when the child
 * switches user, `path` itself otherwise.
 */
export function readableByAnotherUser(path: string): string {
  const inside = relative(packageRoot, path);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`${path} is not inside the package at ${packageRoot}`);
  return join(readableRoot(), inside);
}

/** readableByAnotherUser as a file: URL, for an import in runAsAnotherUser's source. */
export function moduleUrlForAnotherUser(path: string): string {
  return pathToFileURL(readableByAnotherUser(path)).href;
}

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The JSON value the snippet printed on its last stdout line. */
  result: unknown;
}

/**
 * Runs `source` (an ES module: it may use top-level await) and parses its
 * last stdout line as JSON. Modules it imports from this package must be
 * named by moduleUrlForAnotherUser.
 */
export function runAsAnotherUser(source: string, options: { timeoutMs: number }): Promise<ChildResult> {
  const ids = runsAsRoot() ? OTHER_USER : {};
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    ...ids,
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`child did not finish in ${options.timeoutMs} ms; stderr: ${stderr}`));
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      let result: unknown = undefined;
      try {
        result = JSON.parse(last);
      } catch {
        /* left undefined: the assertion on it will show stdout and stderr */
      }
      resolve({ code, stdout, stderr, result });
    });
  });
}
