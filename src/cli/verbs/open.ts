import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { CliError } from '../client.js';
import { API_ROUTES, type HealthReply, type SessionInfo, type Workspace } from '../../protocol/api/index.js';
import { APP_BROWSER_ARGS_ENV, defaultOpener, planAppWindow, type OpenPlan } from '../open/app-window.js';
import { launchDetached } from '../open/launch.js';
import { shellLine } from '../../common/command-line.js';

/** Opens a URL with the desktop's opener, if there is one; never waits for it, and a failure is not the verb's. */
async function openInBrowser(url: string): Promise<void> {
  const opener = defaultOpener(url, process.env, process.platform);
  if (opener !== null) await launchDetached(opener, process.env).catch(() => undefined);
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

/** The plan as one line: which browser and what runs, or why the default browser. */
function describePlan(plan: OpenPlan): string {
  if (plan.kind === 'default-browser') return plan.command ? `${plan.note}: ${shellLine(plan.command)}` : plan.note;
  return `${plan.browser}: ${shellLine(plan.command)}`;
}

/** Runs the plan; the lines a person should see go to stderr (stdout holds the address alone). */
async function openAppWindow(plan: OpenPlan, env: NodeJS.ProcessEnv, stderr: NodeJS.WriteStream): Promise<void> {
  if (plan.kind === 'default-browser') {
    stderr.write(`tend: ${plan.note}\n`);
    if (plan.command) await launchDetached(plan.command, env).catch((err: Error) => stderr.write(`tend: ${err.message}\n`));
    return;
  }
  if (plan.note) stderr.write(`tend: ${plan.note}\n`);
  try {
    await launchDetached(plan.command, env);
  } catch (err) {
    throw new CliError(`${(err as Error).message}; \`tend open\` without --app opens the default browser`);
  }
}

export const openVerb: Verb = {
  name: 'open',
  summary: 'open the browser app',
  usage: `tend open [TARGET] [--app] [--print] [--json]

Opens the browser app (served by the tend server on 127.0.0.1) at the
dashboard, or at the workspace that holds TARGET with TARGET's pane focused
(TARGET alone when no workspace holds it). Prints the address too.

With --app, in a window of its own (no tabs, no address bar): an installed
Chromium-family browser in app mode (Linux: chromium, google-chrome,
brave-browser or microsoft-edge on PATH; macOS: one of them in
/Applications), on a profile of tend's own in TEND_HOME/browser-profile, so
the window is not one of your main browser's and your extensions stay out of
it. With none found, the default browser opens the page, and tend says so.
${APP_BROWSER_ARGS_ENV} adds arguments to the browser's (for tests and scripts).

  -a, --app     a window of its own
  -p, --print   only print the address (with --app, and the browser's command)
  -j, --json    print { url } as JSON, with --app also { app: { kind, browser,
                command, profileDir, note } } (and open nothing)`,
  options: { ...jsonOption, print: { type: 'boolean', short: 'p' }, app: { type: 'boolean', short: 'a' } },
  operands: '[TARGET]',
  async run({ args, client, stdout, stderr }) {
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
    const plan = args.values.app ? planAppWindow(url, { env: process.env, platform: process.platform, home: client.paths.home }) : null;
    if (args.values.json) {
      printJson(stdout, plan ? { url, app: plan.kind === 'app-window' ? plan : { ...plan, browser: null, profileDir: null } } : { url });
      return 0;
    }
    stdout.write(`${url}\n`);
    if (args.values.print) {
      if (plan) stdout.write(`${describePlan(plan)}\n`);
      return 0;
    }
    if (plan) await openAppWindow(plan, process.env, stderr);
    else await openInBrowser(url);
    return 0;
  },
};
