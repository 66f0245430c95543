// Holders an older tend started are still running when a newer tend meets
// them: these build the holder of an earlier commit of this repository, for
// the tests that drive one with today's code.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { findPackageRoot } from '../../src/common/package-root.js';

/** The last commit whose holder speaks protocol version 1 only. */
export const LAST_VERSION_1_COMMIT = '237841cedd1c73ed3ab52e6348389fbb9f68fa2e';
/** The last commit whose holder speaks protocol version 2 (INPUT_FROM, no EXEC). */
export const LAST_VERSION_2_COMMIT = '08dae512e09ac4e4947b141074030341b0fe6289';

/**
 * Builds the holder of `commit` into dir: its path, or why it cannot be had
 * (a checkout without that history: a shallow clone, a tarball).
 */
export function buildHolderAt(commit: string, dir: string): { path: string } | { missing: string } {
  try {
    const archive = execFileSync('git', ['-C', findPackageRoot(), 'archive', commit, 'holder'], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  } catch (err) {
    return { missing: `commit ${commit.slice(0, 12)} is not in this checkout: ${(err as Error).message.split('\n')[0]}` };
  }
  execFileSync('make', ['-s', '-C', join(dir, 'holder')], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { path: join(dir, 'holder', 'build', 'tend-holder') };
}
