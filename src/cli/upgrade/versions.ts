// TEND_HOME/versions/: one directory per installed build (versions/<build>/),
// `current` naming the build the server runs and `tend` on PATH follows
// (bin/tend), `previous` the one `tend upgrade --rollback` goes back to. Both
// are symlinks to a build's directory name, replaced by rename(2) so a reader
// sees the old name or the new, never none.
import { existsSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { UNKNOWN_BUILD, copyRunnableTree, readBuildIdentity, type BuildIdentity } from './build-tree.js';

export type VersionPointer = 'current' | 'previous';

export class Versions {
  readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, 'versions');
  }

  /** The directory a build is (or would be) installed in. */
  pathOf(build: string): string {
    return join(this.dir, safeName(build));
  }

  /** The build a pointer names, when it names an installed one. */
  read(pointer: VersionPointer): { build: string; root: string } | null {
    let target: string;
    try {
      target = readlinkSync(join(this.dir, pointer));
    } catch {
      return null;
    }
    const root = join(this.dir, target);
    const identity = readBuildIdentity(root);
    return identity === null ? null : { build: identity.build, root };
  }

  /** Points `pointer` at an installed build, atomically (a new link renamed over the old). */
  point(pointer: VersionPointer, build: string): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.${pointer}-${randomBytes(4).toString('hex')}`);
    symlinkSync(safeName(build), temp);
    try {
      renameSync(temp, join(this.dir, pointer));
    } catch (err) {
      unlinkSync(temp);
      throw err;
    }
  }

  /** Removes a pointer (a build that has no copy to go back to). */
  clear(pointer: VersionPointer): void {
    rmSync(join(this.dir, pointer), { force: true });
  }

  /**
   * The installed build `identity` names, copying `from` when it is not
   * installed yet. The copy is made under a temporary name and renamed into
   * place, so a directory named after a build is always a whole one.
   */
  install(from: string, identity: BuildIdentity): { root: string; copied: boolean } {
    const root = this.pathOf(identity.build);
    // A tree of unknown build cannot be told from another: it is copied again.
    if (identity.build !== UNKNOWN_BUILD && existsSync(root) && readBuildIdentity(root)?.build === identity.build) return { root, copied: false };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.incoming-${randomBytes(4).toString('hex')}`);
    try {
      copyRunnableTree(from, temp);
      rmSync(root, { recursive: true, force: true }); // a partial copy of an older attempt
      renameSync(temp, root);
    } catch (err) {
      rmSync(temp, { recursive: true, force: true });
      throw err;
    }
    return { root, copied: true };
  }
}

/** A build id as a directory name: nothing that could leave versions/. */
function safeName(build: string): string {
  const name = build.replace(/[^0-9A-Za-z._+-]/g, '_');
  return name === '' || name === '.' || name === '..' || name === 'current' || name === 'previous' ? `build-${name}` : name;
}
