// The version and build id this tree reports. The version is package.json's;
// the build id is what scripts/write-build-id.js put in dist/build-id.json at
// build time (a hash of the sources: two trees of one version may differ).
// Both are read once at start, a small file each: every CLI start reads them.
import { readFileSync } from 'node:fs';

/** The build id of a tree built without scripts/write-build-id.js (`tsc -b` alone). */
export const UNKNOWN_BUILD = 'unknown';

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function readBuild(): string {
  try {
    const id = JSON.parse(readFileSync(new URL('../../build-id.json', import.meta.url), 'utf8')) as { build?: unknown };
    return typeof id.build === 'string' && id.build !== '' ? id.build : UNKNOWN_BUILD;
  } catch {
    return UNKNOWN_BUILD;
  }
}

export const TEND_VERSION = readVersion();
export const TEND_BUILD = readBuild();
