// After `tend upgrade` (or --rollback) in a home whose server a service runs:
// the upgrade started the new server itself (a take-over, so that no viewer's
// start could take the home mid-way), so it runs outside the service, and the
// service's own server exited when asked to stop (exit 0: the manager leaves
// the unit stopped). Here the server goes back under the manager: the unit
// (or agent) is made to name the build that now runs, through
// TEND_HOME/versions/current, the server the upgrade started is stopped (it
// saves every screen) and the manager starts its own, which is checked as the
// upgrade's was. One server holds the home at any moment: the manager's
// starts only once the other has exited, and a viewer that finds no server
// meanwhile asks the same manager to start it.
//
// When the manager cannot be used, or refuses, the upgrade has still
// succeeded: the server runs outside the service and one line says what to
// run.
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TendClient } from '../client.js';
import { runTool, toolFailure } from '../service/run-tool.js';
import { renderLaunchdPlist } from '../service/launchd-plist.js';
import { renderSystemdUnit } from '../service/systemd-unit.js';
import { serviceCommand, type ServiceKind } from '../service/service-command.js';
import { serviceManagerFor } from '../service/service-for.js';
import type { ServiceManager } from '../service/service-manager.js';
import { serviceStartCommand } from '../service/start-through-service.js';
import { SERVER_MAIN } from './build-tree.js';
import { checkServer, healthOf, type SessionsBefore } from './health-check.js';
import { SERVER_STOP_WAIT_MS, startServerFrom, stopGracefully } from './server-process.js';

/** The manager's server has this long to answer once started (recovery of many sessions included). */
const SERVICE_ANSWER_TIMEOUT_MS = 30_000;
const POLL_MS = 100;

/** What `tend service install` does, and so what to run when the server is left outside the service. */
const SERVICE_REMEDY = 'tend service install';

export interface ServiceMove {
  kind: ServiceKind;
  /** tend.service, tend.server, … */
  name: string;
  file: string;
  /** The server that answers now is the manager's main process, and passed the upgrade's check. */
  runsIt: boolean;
  /** The server that answers now, whoever runs it (null: none does). */
  pid: number | null;
  /** The file was rewritten to name the build that now runs (it named another tree). */
  rewritten: boolean;
  /** Why the server is not under the service (null when it is). */
  problem: string | null;
  /** What to run to put it there (null when it is). */
  remedy: string | null;
  /** The sentence said to the person. */
  line: string;
}

/** The service installed for this home on this system's manager, or null when none is. */
export function installedService(home: string, env: NodeJS.ProcessEnv = process.env): ServiceManager | null {
  let manager: ServiceManager;
  try {
    manager = serviceManagerFor(home, undefined, env);
  } catch {
    return null; // a system tend service knows no manager of
  }
  return existsSync(manager.file) ? manager : null;
}

/**
 * The server's main.js the service should name for the build at `root`
 * (TEND_HOME/versions/<build>): through `current` when that is it, so later
 * upgrades need no new file; else that build's own tree.
 */
export function serviceMainFor(home: string, root: string): string {
  const current = join(home, 'versions', 'current');
  try {
    if (realpathSync(current) === realpathSync(root)) return join(current, SERVER_MAIN);
  } catch {
    /* no current yet (a failed first upgrade goes back to a build only versions/<build> names) */
  }
  return join(root, SERVER_MAIN);
}

/** The part of the service's file that says what it runs: ExecStart=, or ProgramArguments. */
export function commandPart(kind: ServiceKind, text: string): string | null {
  const found = kind === 'systemd'
    ? /^ExecStart=.*$/m.exec(text)
    : /<key>ProgramArguments<\/key>\s*<array>[\s\S]*?<\/array>/.exec(text);
  return found?.[0] ?? null;
}

/** The file `tend service install` would write, naming the server at `mainPath`. */
function renderNaming(manager: ServiceManager, home: string, mainPath: string, env: NodeJS.ProcessEnv): string {
  const command = serviceCommand(manager.kind, home, env, mainPath);
  return manager.kind === 'systemd' ? renderSystemdUnit(command, home) : renderLaunchdPlist(command, manager.name, join(home, 'logs'));
}

/** The manager's main pid once the server answering is it; else why not. */
async function waitForManagersServer(client: TendClient, manager: ServiceManager): Promise<{ pid: number } | { why: string }> {
  const deadline = performance.now() + SERVICE_ANSWER_TIMEOUT_MS;
  let said = 'unknown';
  for (;;) {
    const job = await manager.state().catch(() => null);
    said = job?.state ?? said;
    const health = await healthOf(client);
    if (health !== null && job?.pid === health.pid) return { pid: health.pid };
    if (health !== null && job !== null && !job.active) {
      return { why: `another server (pid ${health.pid}) took the home while ${manager.name} was starting, and the manager says ${job.state}` };
    }
    if (performance.now() > deadline) return { why: `its server did not answer within ${SERVICE_ANSWER_TIMEOUT_MS / 1000} s (the manager says ${said}); see ${client.paths.serverLog}` };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export interface MoveRequest {
  client: TendClient;
  manager: ServiceManager;
  /** The build that should run, installed at versions/<build>. */
  build: string;
  root: string;
  /** How the build is named to the person: "0.3.0 (build …)". */
  label: string;
  /** What succeeded, for the line when the move does not: "the upgrade", "the rollback". */
  done: string;
  /** The sessions the next server must have running (as the upgrade's own check). */
  before: SessionsBefore | null;
  say: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** The server left outside the service: why, and what to run, in one line. */
function outsideOf(request: MoveRequest, pid: number | null, problem: string, rewritten: boolean, when = ''): ServiceMove {
  const { manager } = request;
  const remedy = SERVICE_REMEDY;
  const where = pid === null ? 'no server runs now' : `the server (pid ${pid}) runs outside the service ${manager.name}`;
  const line = `${request.done} succeeded, but ${where}: ${problem}. Run \`${remedy}\`${when} to put it under the service${pid === null ? ' (`tend server start` starts one now)' : ''}`;
  return { kind: manager.kind, name: manager.name, file: manager.file, runsIt: false, pid, rewritten, problem, remedy, line };
}

/** Never throws: whatever goes wrong here, the upgrade itself has succeeded, and the line says so. */
export async function moveUnderService(request: MoveRequest): Promise<ServiceMove> {
  try {
    return await move(request);
  } catch (err) {
    const now = await healthOf(request.client);
    return outsideOf(request, now?.pid ?? null, (err as Error).message, false);
  }
}

async function move(request: MoveRequest): Promise<ServiceMove> {
  const { client, manager, say } = request;
  const env = request.env ?? process.env;
  const home = client.paths.home;
  const base = { kind: manager.kind, name: manager.name, file: manager.file };
  const outside = (pid: number | null, problem: string, rewritten: boolean, when = ''): ServiceMove => outsideOf(request, pid, problem, rewritten, when);

  const running = await healthOf(request.client);
  const unavailable = await manager.unavailable();
  if (unavailable !== null) return outside(running?.pid ?? null, unavailable, false, ' once the manager runs');

  // The file must start this build: a unit naming a checkout would start whatever that holds.
  let wanted: string;
  try {
    wanted = renderNaming(manager, home, serviceMainFor(home, request.root), env);
  } catch (err) {
    return outside(running?.pid ?? null, `its file cannot name ${request.root} (${(err as Error).message})`, false);
  }
  let text: string;
  try {
    text = readFileSync(manager.file, 'utf8');
  } catch (err) {
    return outside(running?.pid ?? null, `its file ${manager.file} cannot be read (${(err as Error).message})`, false);
  }
  const rewritten = commandPart(manager.kind, text) !== commandPart(manager.kind, wanted);

  const job = await manager.state().catch(() => null);
  if (running !== null && job?.pid === running.pid && !rewritten) {
    // Already the manager's (a viewer asked it to start the server): checked below all the same.
  } else {
    say(`moving the server under the service ${manager.name}${rewritten ? ` (its file now names ${request.label} through ${join(home, 'versions')})` : ''}`);
    if (rewritten) writeFileSync(manager.file, wanted, { mode: 0o644 });
    if (running !== null && job?.pid !== running.pid) {
      say(`stopping the server (pid ${running.pid}) the upgrade started, for the service's to take over`);
      if (!(await stopGracefully(client, running.pid))) {
        return outside(running.pid, `it did not stop within ${SERVER_STOP_WAIT_MS / 1000} s when asked to make way for the service's`, rewritten);
      }
    }
    const started = await startUnit(manager, home, rewritten, env);
    if (started !== null) return bringBack(request, started, rewritten);
  }
  const serving = await waitForManagersServer(client, manager);
  if ('why' in serving) return bringBack(request, serving.why, rewritten);
  const check = await checkServer(client, { build: request.build, before: request.before });
  if (!check.ok) {
    // It is the manager's, but not a server to leave there unsaid: the same remedy rewrites the file and restarts it.
    const problem = `it failed the upgrade's check: ${check.problems.join('; ')}`;
    const line = `${request.done} succeeded, but the server ${manager.name} started (pid ${serving.pid}) ${problem}. Run \`${SERVICE_REMEDY}\` to start it again from the current build`;
    return { ...base, runsIt: false, pid: serving.pid, rewritten, problem, remedy: SERVICE_REMEDY, line };
  }
  const line = `the service ${manager.name} runs ${request.label} (server pid ${serving.pid})`;
  return { ...base, runsIt: true, pid: serving.pid, rewritten, problem: null, remedy: null, line };
}

/** Starts the unit (a rewritten file is loaded first, as install does); null, or why it could not. */
async function startUnit(manager: ServiceManager, home: string, rewritten: boolean, env: NodeJS.ProcessEnv): Promise<string | null> {
  if (rewritten) {
    try {
      await manager.activate();
      return null;
    } catch (err) {
      return `the manager did not start it (${(err as Error).message})`;
    }
  }
  const command = serviceStartCommand(home, env);
  if (command === null) return `its file ${manager.file} is gone`;
  const result = await runTool(command[0], command[1], env);
  return result.ok ? null : `the manager did not start it (${toolFailure(command[0], command[1], result)})`;
}

/**
 * The service did not take the server over: whatever answers now stays (the
 * manager's, late, or a viewer's); if nothing does, the build is started
 * again here, so the home is served whatever the manager did.
 */
async function bringBack(request: MoveRequest, why: string, rewritten: boolean): Promise<ServiceMove> {
  const now = await healthOf(request.client);
  if (now !== null) return outsideOf(request, now.pid, why, rewritten);
  request.say(`${request.manager.name} did not start the server (${why}); starting ${request.label} again without it`);
  const again = await startServerFrom(request.client, request.root, () => {});
  return outsideOf(request, again.ok ? again.pid : null, again.ok ? why : `${why}; starting it without the service failed too (${again.message})`, rewritten);
}
