// Where the hook client is: the small native program agents' hooks run
// (holder/hook-client.c), built beside the holder by `npm install`.
import { join } from 'node:path';
import { findPackageRoot } from '../package-root.js';

/** $TEND_HOOK_CLIENT, else <package root>/holder/build/tend-hook. */
export function defaultHookClientPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TEND_HOOK_CLIENT;
  if (fromEnv) return fromEnv;
  return join(findPackageRoot(), 'holder', 'build', 'tend-hook');
}
