// install, uninstall and status of `tend service`, over whichever manager
// (service-manager.ts) this system has. One server per TEND_HOME: install
// stops a server the CLI started before the manager starts its own, and
// waits until the server that answers is the manager's.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, type TendClient } from '../client.js';
import { API_ROUTES, type HealthReply } from '../../protocol/api/index.js';
import type { ServiceKind } from './service-command.js';
import { ServiceManagerError, type JobState, type ServiceManager } from './service-manager.js';
import { UnitTextError } from './systemd-unit.js';
import { PlistTextError } from './launchd-plist.js';
import { stopGracefully } from '../upgrade/server-process.js';

/** The manager's server has this long to answer after install (recovery of many sessions included). */
const SERVICE_ANSWER_TIMEOUT_MS = 30_000;
const STOP_WAIT_MS = 15_000;
const POLL_MS = 100;

export interface InstallOutcome {
  kind: ServiceKind;
  name: string;
  file: string;
  /** The server the manager runs. */
  pid: number;
  /** A server the CLI had started, stopped so the manager's could take the home. */
  stoppedPid: number | null;
  advice: string[];
}

export interface UninstallOutcome {
  kind: ServiceKind;
  name: string;
  file: string;
  /** False when there was nothing to remove. */
  removed: boolean;
  /** Why the manager was not asked to stop the job, when it could not be reached. */
  managerProblem: string | null;
}

export interface StatusOutcome {
  kind: ServiceKind;
  name: string;
  file: string;
  installed: boolean;
  /** Why the manager cannot be used here, or null. */
  managerProblem: string | null;
  job: JobState | null;
  server: { running: boolean; pid: number | null; service: HealthReply['service'] };
  /** The running server is the one the manager runs. */
  managedByService: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A manager's failure, or a path a unit file cannot hold, as the CLI's one line. */
function said(action: string, err: unknown): CliError {
  if (err instanceof ServiceManagerError || err instanceof UnitTextError || err instanceof PlistTextError) {
    return new CliError(`${action}: ${err.message}`);
  }
  throw err;
}

async function health(client: TendClient): Promise<HealthReply | null> {
  try {
    const res = await client.raw<HealthReply>(API_ROUTES.health.method, API_ROUTES.health.path, undefined, 5000);
    return res.status === 200 ? res.body : null;
  } catch {
    return null;
  }
}

/** Asks a running server to stop (it checkpoints; holders stay) and waits until its process is gone. */
async function stopServer(client: TendClient, pid: number): Promise<void> {
  if (await stopGracefully(client, pid, STOP_WAIT_MS)) return;
  throw new CliError(`the server (pid ${pid}) did not stop within ${STOP_WAIT_MS / 1000} s, so the service was not started beside it; see ${client.paths.serverLog}`);
}

/** Waits until the server that answers is the job's main process. */
async function waitForServiceServer(client: TendClient, manager: ServiceManager): Promise<number> {
  const deadline = Date.now() + SERVICE_ANSWER_TIMEOUT_MS;
  let job: JobState = { active: false, state: 'unknown', pid: null };
  for (;;) {
    job = await manager.state();
    const h = await health(client);
    if (h !== null && job.pid !== null && h.pid === job.pid) return h.pid;
    if (Date.now() > deadline) break;
    await sleep(POLL_MS);
  }
  const how = manager.kind === 'systemd' ? `systemctl --user status ${manager.name}` : `launchctl print gui/${process.getuid?.() ?? 0}/${manager.name}`;
  throw new CliError(`${manager.name} is installed but its server did not answer within ${SERVICE_ANSWER_TIMEOUT_MS / 1000} s (the manager says ${job.state}); see \`${how}\` and ${client.paths.serverLog}`);
}

/** The file install writes, or why it cannot be written (a path a unit cannot hold). */
export function renderServiceFile(manager: ServiceManager): string {
  try {
    return manager.render();
  } catch (err) {
    throw said('cannot write the service file', err);
  }
}

export async function installService(client: TendClient, manager: ServiceManager): Promise<InstallOutcome> {
  const problem = await manager.unavailable();
  if (problem !== null) throw new CliError(`cannot install the service: ${problem}`);
  const text = renderServiceFile(manager);
  // Written before any server is stopped: a tend command that finds no server
  // from here on starts it through the manager (client.ts), never beside it.
  mkdirSync(dirname(manager.file), { recursive: true });
  mkdirSync(join(client.paths.home, 'logs'), { recursive: true, mode: 0o700 });
  writeFileSync(manager.file, text, { mode: 0o644 });
  let stoppedPid: number | null = null;
  const running = await client.isRunning();
  if (running !== null) {
    const job = await manager.state().catch(() => null);
    if (job?.pid !== running.pid) {
      await stopServer(client, running.pid);
      stoppedPid = running.pid;
    }
  }
  try {
    await manager.activate();
  } catch (err) {
    throw said(`wrote ${manager.file} but could not start it`, err);
  }
  const pid = await waitForServiceServer(client, manager);
  return { kind: manager.kind, name: manager.name, file: manager.file, pid, stoppedPid, advice: await manager.advice() };
}

export async function uninstallService(manager: ServiceManager): Promise<UninstallOutcome> {
  const outcome = { kind: manager.kind, name: manager.name, file: manager.file };
  if (!existsSync(manager.file)) return { ...outcome, removed: false, managerProblem: null };
  const problem = await manager.unavailable();
  if (problem === null) {
    try {
      await manager.deactivate();
    } catch (err) {
      throw said(`could not stop ${manager.name}, so ${manager.file} is left in place`, err);
    }
  }
  rmSync(manager.file, { force: true });
  if (problem === null) await manager.forget().catch(() => undefined);
  return { ...outcome, removed: true, managerProblem: problem };
}

export async function serviceStatus(client: TendClient, manager: ServiceManager): Promise<StatusOutcome> {
  const installed = existsSync(manager.file);
  const managerProblem = await manager.unavailable();
  let job: JobState | null = null;
  if (managerProblem === null) {
    try {
      job = await manager.state();
    } catch (err) {
      throw said(`could not ask about ${manager.name}`, err);
    }
  }
  const h = await health(client);
  const server = { running: h !== null, pid: h?.pid ?? null, service: h?.service ?? null };
  const managedByService = h !== null && job?.pid === h.pid;
  return { kind: manager.kind, name: manager.name, file: manager.file, installed, managerProblem, job, server, managedByService };
}
