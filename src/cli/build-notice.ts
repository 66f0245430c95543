// What the CLI and `tend attach` say when the server that answers is
// another build of tend than theirs (docs/api.md, "Versions"): one line on
// stderr, naming both and what to do, said once per invocation for each
// server build met. While the API versions overlap the command goes on; when
// they do not, the same words end it (client.ts). `tend attach` holds the
// line until it has put the terminal back, so it never lands in the middle
// of a screen.
import { TEND_BUILD, TEND_VERSION } from '../common/version.js';
import type { VersionRange } from '../protocol/api/index.js';
import { API_VERSIONS, formatVersionRange } from '../protocol/api/versions.js';

/** Which tend a server is, as its replies (or its WELCOME) say; null fields: a server from before build ids, which says neither. */
export interface ServerTend {
  version: string | null;
  build: string | null;
}

/** What to do about a server of another build, the same words wherever it is said. */
const REMEDY = '`tend upgrade` moves the server to this build without closing a terminal (`tend server restart` also works)';

function describe(tend: ServerTend): string {
  if (tend.build === null) return tend.version === null ? 'a tend from before build ids' : `tend ${tend.version} (from before build ids)`;
  return `tend ${tend.version ?? '?'} (build ${tend.build})`;
}

/** True when the server is not this build. */
function isOtherBuild(server: ServerTend): boolean {
  return server.build !== TEND_BUILD || (server.version !== null && server.version !== TEND_VERSION);
}

/** The line for a server of another build whose API this tend speaks. */
function otherBuildLine(server: ServerTend): string {
  return `tend: the server is ${describe(server)}, this is tend ${TEND_VERSION} (build ${TEND_BUILD}): ${REMEDY}`;
}

/** The message when this tend and the server share no API version: nothing was asked of it. */
export function incompatibleServerMessage(server: ServerTend, serverApi: VersionRange): string {
  return `the server is ${describe(server)} and speaks API ${formatVersionRange(serverApi)}, this is tend ${TEND_VERSION} (build ${TEND_BUILD}) ` +
    `and speaks API ${formatVersionRange(API_VERSIONS)}, so nothing was done: ${REMEDY}, or use tend ${server.version ?? 'of the server'}`;
}

const said = new Set<string>();
/** While an attach runs: the lines to say once it has put the terminal back. */
let held: string[] | null = null;

/** Says the line for a server of another build, once per build met; nothing for this build. */
export function noteServerTend(server: ServerTend): void {
  if (!isOtherBuild(server)) return;
  const key = `${server.version ?? ''}\0${server.build ?? ''}`;
  if (said.has(key)) return;
  said.add(key);
  const line = `${otherBuildLine(server)}\n`;
  if (held !== null) held.push(line);
  else process.stderr.write(line);
}

/** From now on the lines wait for sayHeldNotices (an attach is drawing on the terminal). */
export function holdNotices(): void {
  held ??= [];
}

/** Says what was held, to `to` (the attach's stderr; a discarding stream where stderr carries JSON events), and stops holding. */
export function sayHeldNotices(to: { write(text: string): unknown }): void {
  const lines = held ?? [];
  held = null;
  for (const line of lines) to.write(line);
}
