// Where this copy of tend is installed: the directory with its package.json
// and holder/, found by walking up from this file (the same in src/ and dist/).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'holder'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the tend package root above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}
