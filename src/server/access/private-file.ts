// The remote-access files (settings, logins) hold what decides who gets in:
// written whole through a temporary file and a rename, so a reader (or a
// crash) never sees half a file, mode 0600 in a 0700 directory, so no other
// user of the machine can read a hash or change a setting.
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDir } from '../../common/paths.js';

export function writePrivateJson(file: string, value: unknown): void {
  ensurePrivateDir(dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  // A file left by an older tend, or made by hand, may be wider than 0600.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** The file's JSON; null when there is no file; throws (with a plain message) when it is not JSON. */
export function readPrivateJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
}
