// How a client and a server of the HTTP API tell each other which tend they
// are, on every request and every reply, without a round trip of its own:
// three headers (docs/api.md, "Versions"). The API's version moves only with
// a change a client of another build could trip on; a client and a server
// whose ranges overlap work together whatever their builds.
import type { VersionRange } from './health.js';

/** The API versions this tree speaks, oldest to newest. */
export const API_VERSIONS: VersionRange = { oldest: 1, newest: 1 };

/** Headers on every API reply (the server's) and every CLI request (the client's). */
export const VERSION_HEADER = 'tend-version';
export const BUILD_HEADER = 'tend-build';
/** `<oldest>-<newest>`: the API versions the sender speaks. */
export const API_HEADER = 'tend-api';

export function formatVersionRange(range: VersionRange): string {
  return `${range.oldest}-${range.newest}`;
}

/** A header's range, or null for anything that is not one (absent, garbled). */
export function parseVersionRange(text: string | undefined): VersionRange | null {
  const m = /^(\d{1,9})-(\d{1,9})$/.exec(text?.trim() ?? '');
  if (m === null) return null;
  const range = { oldest: Number(m[1]), newest: Number(m[2]) };
  return range.oldest <= range.newest ? range : null;
}

/** True when two sides share a version to speak. */
export function versionRangesOverlap(a: VersionRange, b: VersionRange): boolean {
  return a.oldest <= b.newest && b.oldest <= a.newest;
}
