// This tree's holder built again from a copy whose sources differ by a
// comment: another build id, the same code — what a holder hand-over
// (POST /v1/holders/upgrade) needs to have something to hand over to.
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../server/harness.js';

/** Builds it under `dir` and returns the binary's path. */
export function buildOtherHolder(dir: string): string {
  const src = join(repoRoot, 'holder');
  const copy = join(dir, 'holder');
  cpSync(src, copy, { recursive: true, filter: (from) => !from.startsWith(join(src, 'build')) });
  appendFileSync(join(copy, 'log.c'), '/* another build of the same holder, for the upgrade test */\n');
  execFileSync('make', ['-s', '-C', copy, 'build/tend-holder'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return join(copy, 'build', 'tend-holder');
}
