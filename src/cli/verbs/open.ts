import { spawn } from 'node:child_process';
import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { API_ROUTES, type HealthReply, type SessionInfo, type Workspace } from '../../protocol/api/index.js';

/** Opens a URL with the desktop's opener, if there is one; never waits for it. */
function openInBrowser(url: string): boolean {
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/**
 * The page's path for a session: the workspace that holds it, with the
 * session focused (?focus=), or the session alone when no workspace does.
 */
function pagePathFor(session: Pick<SessionInfo, 'id' | 'name'>, workspaces: readonly Pick<Workspace, 'name' | 'sessions'>[]): string {
  const holder = workspaces.find((w) => Array.isArray(w.sessions) && w.sessions.includes(session.id));
  if (holder) return `/w/${encodeURIComponent(holder.name)}?focus=${encodeURIComponent(session.id)}`;
  // The page looks a name up as a workspace first: a session named like another workspace goes by its id.
  const byName = session.name !== null && !workspaces.some((w) => w.name === session.name);
  return `/w/${encodeURIComponent(byName ? session.name! : session.id)}`;
}

export const openVerb: Verb = {
  name: 'open',
  summary: 'open the browser app',
  usage: `tend open [TARGET] [--print] [--json]

Opens the browser app (served by the tend server on 127.0.0.1) at the
dashboard, or at the workspace that holds TARGET with TARGET's pane focused
(TARGET alone when no workspace holds it). Prints the address too.

  -p, --print   only print the address
  -j, --json    print { url } as JSON (and open nothing)`,
  options: { ...jsonOption, print: { type: 'boolean', short: 'p' } },
  operands: '[TARGET]',
  async run({ args, client, stdout }) {
    const health = await client.callRoute<Pick<HealthReply, 'port'>>(API_ROUTES.health);
    if (health.port === null) {
      throw new CliError('the server has no 127.0.0.1 listener (its port was taken?); see TEND_PORT and the server log');
    }
    const [target] = args.positionals;
    let path = '/';
    if (target !== undefined) {
      const session = await client.callRoute<Pick<SessionInfo, 'id' | 'name'>>(API_ROUTES.getSession, { target });
      const workspaces = await client.callRoute<Array<Pick<Workspace, 'name' | 'sessions'>>>(API_ROUTES.listWorkspaces);
      path = pagePathFor(session, workspaces);
    }
    const url = `http://127.0.0.1:${health.port}${path}`;
    if (args.values.json) printJson(stdout, { url });
    else stdout.write(`${url}\n`);
    if (!args.values.print && !args.values.json) openInBrowser(url);
    return 0;
  },
};
