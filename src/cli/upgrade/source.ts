// Where the new build comes from, and getting it ready to install: the tree
// of the CLI that runs `tend upgrade` (the usual case: a new tend was
// installed), a tend tree at a path (used as it is when built, else copied
// and built), or a git repository (cloned at a ref, then built). A build runs
// `npm ci` (whose prepare step builds everything) in a staging directory
// under TEND_HOME/versions/, so the user's own checkout is never touched.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, join, resolve } from 'node:path';
import { findPackageRoot } from '../../common/package-root.js';
import { UNKNOWN_BUILD, isBuilt, readBuildIdentity, type BuildIdentity } from './build-tree.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';

export type UpgradeSource =
  | { kind: 'self' }
  | { kind: 'path'; path: string }
  | { kind: 'git'; url: string; ref: string | null };

/** `--from` as typed: `git:URL[#REF]`, or a path. */
export function parseSource(from: string | undefined): UpgradeSource {
  if (from === undefined) return { kind: 'self' };
  if (from.startsWith('git:')) {
    const spec = from.slice('git:'.length);
    const hash = spec.lastIndexOf('#');
    const url = hash >= 0 ? spec.slice(0, hash) : spec;
    const ref = hash >= 0 ? spec.slice(hash + 1) : null;
    if (url === '' || ref === '') throw new CliError(`--from ${from}: say git:URL or git:URL#REF`, EXIT.usage, { code: 'usage' });
    return { kind: 'git', url, ref };
  }
  return { kind: 'path', path: resolve(from) };
}

export function describeSource(source: UpgradeSource): string {
  switch (source.kind) {
    case 'self':
      return 'this tend';
    case 'path':
      return source.path;
    case 'git':
      return `${source.url}${source.ref ? `#${source.ref}` : ''}`;
  }
}

/** A built tree ready to install, and a clean-up for what was staged to make it. */
export interface PreparedBuild {
  root: string;
  identity: BuildIdentity;
  /** Removes the staging copy, if one was made. */
  discard(): void;
}

/** The parts of a tend source tree a build needs (its own node_modules and dist are made anew). */
const SOURCE_LEFT_OUT = new Set(['node_modules', 'dist', '.git', 'test-results']);

/**
 * A built tree of the source, building one when needed. `say` gets progress
 * lines; the build's own output goes to `log` (the user's stderr).
 */
export async function prepareBuild(source: UpgradeSource, versionsDir: string, say: (line: string) => void, log: NodeJS.WritableStream): Promise<PreparedBuild> {
  if (source.kind === 'self') return builtTree(findPackageRoot());
  if (source.kind === 'path') {
    if (readBuildIdentity(source.path) === null) throw new CliError(`${source.path} is not a tend tree (no package.json named "tend" there)`, EXIT.failed);
    if (isBuilt(source.path) && readBuildIdentity(source.path)!.build !== UNKNOWN_BUILD) return builtTree(source.path);
  }
  mkdirSync(versionsDir, { recursive: true, mode: 0o700 });
  const staging = join(versionsDir, `.build-${randomBytes(4).toString('hex')}`);
  const discard = () => rmSync(staging, { recursive: true, force: true });
  try {
    if (source.kind === 'path') {
      say(`copying ${source.path} to build it`);
      cpSync(source.path, staging, { recursive: true, verbatimSymlinks: true, filter: (p) => p === source.path || !SOURCE_LEFT_OUT.has(basename(p)) || !isTopLevel(source.path, p) });
    } else {
      say(`cloning ${source.url}${source.ref ? ` at ${source.ref}` : ''}`);
      await run('git', ['clone', '--quiet', source.url, staging], process.cwd(), log);
      if (source.ref) await run('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', source.ref], staging, log);
      if (readBuildIdentity(staging) === null) throw new CliError(`${source.url} is not a tend repository (no package.json named "tend" at its top)`, EXIT.failed);
    }
    say('building: npm ci (installs dependencies, then builds the holder, the viewer, the server and the web app)');
    await run('npm', ['ci', '--no-audit', '--no-fund'], staging, log);
    if (!isBuilt(staging)) {
      say('building: npm run build');
      await run('npm', ['run', 'build'], staging, log);
    }
    if (!isBuilt(staging)) throw new CliError(`the build of ${describeSource(source)} made no runnable tend (${join(staging, 'dist')} lacks the server)`, EXIT.failed);
    return { root: staging, identity: readBuildIdentity(staging)!, discard };
  } catch (err) {
    discard();
    throw err;
  }
}

function builtTree(root: string): PreparedBuild {
  if (!isBuilt(root)) throw new CliError(`${root} is not built (its server, CLI or holder is missing); run \`npm run build\` there, or give --from the source to build`, EXIT.failed);
  return { root, identity: readBuildIdentity(root)!, discard: () => {} };
}

function isTopLevel(root: string, path: string): boolean {
  return resolve(path, '..') === resolve(root);
}

/** Runs a build step, its output on `log`; a failure names the step and its status. */
function run(command: string, args: string[], cwd: string, log: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on('error', (err) => reject(new CliError(`${command} could not be run: ${err.message}`, EXIT.failed)));
    child.on('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new CliError(`\`${command} ${args.join(' ')}\` failed (${signal ?? `exit status ${code}`}); its output is above`, EXIT.failed));
    });
  });
}
