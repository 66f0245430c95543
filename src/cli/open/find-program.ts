// Where a program is, the way a shell finds it: the first directory of PATH
// that holds an executable file of that name. `tend open` looks for browsers
// and for the desktop's opener this way before it runs one, so it can say
// which it found (or that it found none) instead of a spawn's ENOENT.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The program's path on PATH, or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    // An empty PATH entry means the current directory to a shell; a browser is never looked for there.
    if (dir === '') continue;
    const path = join(dir, name);
    if (isExecutableFile(path)) return path;
  }
  return null;
}

export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
