// `tend upgrade` and `tend upgrade --rollback`, step by step: install the new
// build beside the running one, stop the running server (it saves every
// screen; holders keep every terminal), back the store up, start the new
// server and check it. A pass makes the new build `current` and keeps the old
// one as `previous`; a failure stops the new server, puts the store back byte
// for byte, starts the old server again, checks it, and says what failed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { API_ROUTES, type HealthReply, type ListedSession } from '../../protocol/api/index.js';
import { CliError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import type { TendClient } from '../client.js';
import { UNKNOWN_BUILD, readBuildIdentity, type BuildIdentity } from './build-tree.js';
import { checkServer, healthOf, sessionsBefore, type HealthResult, type SessionsBefore } from './health-check.js';
import { ServerStart, startServerFrom, stopForcibly, stopGracefully, treeOfServer, SERVER_STOP_WAIT_MS, type StartOutcome } from './server-process.js';
import { TAKEN_LINE, WAITING_LINE } from '../../protocol/take-over.js';
import { describeSource, prepareBuild, type UpgradeSource } from './source.js';
import { backUpStore, backupBytes, readBackupManifest, restoreStore } from './store-backup.js';
import { Versions } from './versions.js';
import { installedService, moveUnderService, type ServiceMove } from './under-service.js';

/** A server of another build that took the home while the new one was starting (an attached viewer brought one back): stopped, and the start tried again, this many times. */
const START_ATTEMPTS = 3;

export interface UpgradeOptions {
  client: TendClient;
  /** Ignored with rollback: the target is versions/previous. */
  source: UpgradeSource;
  rollback: boolean;
  /** A progress line for the person waiting. */
  say: (line: string) => void;
  /** Where a build's own output (npm, git) goes. */
  buildLog: NodeJS.WritableStream;
}

export interface UpgradeReport {
  ok: boolean;
  /** upgraded (or rolled back) to `to`; unchanged: it was running already; failed: back on `from`. */
  outcome: 'upgraded' | 'rolled-back' | 'unchanged' | 'failed';
  from: BuildIdentity | null;
  to: BuildIdentity;
  /** Sessions that were running before, and of those, running again after. */
  sessions: { running: number; recovered: number };
  /** Why the new build was not kept (empty on success). */
  problems: string[];
  /** After a failure: whether the old server serves again. */
  oldServerBack: boolean | null;
  /** The store was put back from a backup (a rollback over a migration, or a failure). */
  storeRestored: boolean;
  /** A service installed for this home: whether the server went back under it, else why not and what to run (under-service.ts). Null when none is installed. */
  service: ServiceMove | null;
  durationMs: number;
  phasesMs: Record<string, number>;
  /** The last words, as said to the person. */
  message: string;
}

interface RunningServer {
  pid: number;
  health: HealthReply;
  before: SessionsBefore;
}

/** Version strings compared as numbers, part by part (0.10.0 > 0.9.1); pre-release tags ignored. */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0]!.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

const label = (id: BuildIdentity) => `${id.version} (build ${id.build})`;

export async function runUpgrade(options: UpgradeOptions): Promise<UpgradeReport> {
  const { client, say } = options;
  const home = client.paths.home;
  const versions = new Versions(home);
  const started = performance.now();
  const phasesMs: Record<string, number> = {};
  const phase = async <T>(name: string, work: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      phasesMs[name] = Math.round(performance.now() - t0);
    }
  };

  const running = await readRunningServer(client);
  // A service that runs (or should run) this home's server: the server the upgrade starts runs outside it, and goes back under it after.
  const service = installedService(home);
  const fromIdentity: BuildIdentity | null = running
    ? { version: running.health.version, build: running.health.build }
    : (() => {
        const current = versions.read('current');
        return current ? readBuildIdentity(current.root) : null;
      })();

  // The target: a build to install, or (rollback) the one installed before.
  let target: { root: string; identity: BuildIdentity; discard(): void };
  if (options.rollback) {
    const previous = versions.read('previous');
    if (previous === null) throw new CliError(`there is no previous build to roll back to (${join(versions.dir, 'previous')} names none); \`tend upgrade --from PATH\` installs a given one`, EXIT.failed);
    target = { root: previous.root, identity: readBuildIdentity(previous.root)!, discard: () => {} };
  } else {
    target = await phase('build', () => prepareBuild(options.source, versions.dir, say, options.buildLog));
  }
  const to = target.identity;
  if (to.build === UNKNOWN_BUILD) {
    target.discard();
    throw new CliError(`${target.root} has no build id (dist/build-id.json); build it with \`npm run build\``, EXIT.failed);
  }
  if (fromIdentity !== null && fromIdentity.build === to.build && (running !== null || versions.read('current')?.build === to.build)) {
    target.discard();
    const message = `already on ${label(to)}${running ? ` (server pid ${running.pid})` : ''}; nothing to do`;
    return { ok: true, outcome: 'unchanged', from: fromIdentity, to, sessions: { running: running?.before.running.length ?? 0, recovered: running?.before.running.length ?? 0 },
      problems: [], oldServerBack: null, storeRestored: false, service: null, durationMs: Math.round(performance.now() - started), phasesMs, message };
  }
  if (!options.rollback && options.source.kind === 'self' && running && compareVersions(to.version, running.health.version) < 0) {
    target.discard();
    throw new CliError(`this tend is ${label(to)}, older than the running server's ${label(fromIdentity!)}: \`tend upgrade\` installs the tend that runs it. ` +
      'Run the newer tend\'s `tend upgrade`, `tend upgrade --rollback` to go back to the previous build, or `tend upgrade --from PATH` to install this one anyway', EXIT.failed);
  }
  say(`${options.rollback ? 'rolling back' : 'upgrading'}: ${fromIdentity ? label(fromIdentity) : 'no server running'} → ${label(to)}${options.rollback ? '' : ` from ${describeSource(options.source)}`}`);

  // 1. Install the new build beside the old; keep the old one installed too, for the way back.
  const newRoot = await phase('install', () => {
    const { root, copied } = versions.install(target.root, to);
    target.discard();
    say(copied ? `installed ${label(to)} in ${root}` : `${label(to)} is installed in ${root}`);
    return root;
  });
  const oldRoot = await phase('keepOld', () => keepOldBuild(versions, running, fromIdentity, say));

  // 2–6. Stop the running server gracefully (it checkpoints every screen; holders keep running),
  // back the store up, start the new server from its own tree.
  const backupDir = oldRoot ? join(oldRoot, 'store-backup') : join(versions.dir, '.store-backup');
  let storeRestored = false;
  const backUp = () => phase('backup', () => {
    const backup = backUpStore(home, backupDir, fromIdentity?.build ?? UNKNOWN_BUILD);
    say(`store backed up in ${backupDir} (${Object.keys(backup.files).length} files, ${formatBytes(backupBytes(backup))})`);
    if (options.rollback) storeRestored = restoreBackupOfTarget(home, newRoot, backup.schemaVersion, say);
  });
  const newStart = running
    ? await handOver(client, { pid: running.pid, sessions: running.before.all, mustStop: true }, newRoot, to, say, phase, backUp)
    : await (async () => {
      await backUp();
      return phase('start', () => startWithRetries(client, newRoot, to, say));
    })();
  const check = newStart.ok ? await phase('check', () => checkServer(client, { build: to.build, before: running?.before ?? null })) : null;
  const runningCount = running?.before.running.length ?? check?.health?.recovery.total ?? 0;

  if (check?.ok) {
    // The new server is kept: it may let the holders of programs that ended since go (holder-release.ts).
    if (newStart.ok) newStart.keep();
    // 7. Pass: the new build is current; the old one (when a copy of it is installed) is previous.
    versions.point('current', to.build);
    if (oldRoot && fromIdentity) versions.point('previous', fromIdentity.build);
    else versions.clear('previous');
    const moved = service === null ? null : await phase('service', () => moveUnderService({
      client, manager: service, build: to.build, root: newRoot, label: label(to), done: options.rollback ? 'the rollback' : 'the upgrade',
      before: running?.before ?? null, say,
    }));
    const durationMs = Math.round(performance.now() - started);
    const back = fromIdentity && oldRoot ? `; \`tend upgrade --rollback\` goes back to ${label(fromIdentity)}` : '';
    const message = `${options.rollback ? 'rolled back' : 'upgraded'} to ${label(to)} in ${(durationMs / 1000).toFixed(1)} s: ` +
      `${check.recovered}/${runningCount} sessions running${check.snapshotOf ? `, a viewer got the screen of ${check.snapshotOf}` : ''}${back}` +
      (moved ? `\n${moved.line}` : '');
    say(message);
    return { ok: true, outcome: options.rollback ? 'rolled-back' : 'upgraded', from: fromIdentity, to, sessions: { running: runningCount, recovered: check.recovered },
      problems: [], oldServerBack: null, storeRestored, service: moved, durationMs, phasesMs, message };
  }

  // Fail: the new server goes, the store comes back, the old server starts again.
  const problems = newStart.ok ? check!.problems : [`it did not start: ${newStart.message}`];
  say(`${label(to)} failed its check: ${problems.join('; ')}; going back`);
  const restore = () => phase('restore', () => {
    restoreStore(home, backupDir);
    say(`store restored from ${backupDir}, byte for byte`);
  });
  let oldServerBack: boolean | null = null;
  let oldCheck: HealthResult | null = null;
  let oldStartProblem: string | null = null;
  if (running && oldRoot && fromIdentity) {
    say(`starting ${label(fromIdentity)} again`);
    // The failed server hands over as the old one did: no viewer's start may open the store mid-restore.
    const oldStart = await phase('restartOld', () => (newStart.ok
      ? handOver(client, { pid: newStart.pid, sessions: runningCount, mustStop: false }, oldRoot, fromIdentity, say, phase, restore)
      : restore().then(() => startWithRetries(client, oldRoot, fromIdentity, say))));
    if (oldStart.ok) {
      oldCheck = await checkServer(client, { build: fromIdentity.build, before: running.before });
      oldStart.keep(); // there is nothing further back to go to
    } else oldStartProblem = oldStart.message;
    oldServerBack = oldStart.ok && oldCheck!.ok;
  } else {
    if (newStart.ok) await phase('stopNew', () => stopForcibly(client, newStart.pid));
    await restore();
  }
  if (running && !(oldRoot && fromIdentity)) {
    oldServerBack = false;
    oldStartProblem = 'no copy of it is on disk to start again (its files were replaced when the new tend was installed)';
  }
  // The old server is back, started here as the new one was: under the service again, as it was.
  const moved = service !== null && oldServerBack && oldRoot && fromIdentity ? await phase('service', () => moveUnderService({
    client, manager: service, build: fromIdentity.build, root: oldRoot, label: label(fromIdentity), done: `going back to ${label(fromIdentity)}`,
    before: running?.before ?? null, say,
  })) : null;
  const message = failureParagraph({ to, from: fromIdentity, problems, running: running !== null, oldServerBack, oldCheck, oldStartProblem, log: client.paths.serverLog, rollback: options.rollback }) +
    (moved ? ` ${moved.line}.` : '');
  return { ok: false, outcome: 'failed', from: fromIdentity, to, sessions: { running: runningCount, recovered: oldCheck?.recovered ?? 0 },
    problems, oldServerBack, storeRestored: true, service: moved, durationMs: Math.round(performance.now() - started), phasesMs, message };
}

async function readRunningServer(client: TendClient): Promise<RunningServer | null> {
  const health = await healthOf(client);
  if (health === null) return null;
  const list = await client.rawAnyVersion<ListedSession[]>(API_ROUTES.listSessions.method, API_ROUTES.listSessions.path, undefined, 5_000);
  if (list.status !== 200) throw new CliError(`the running server (pid ${health.pid}) did not list its sessions (${list.status}); nothing was changed`, EXIT.failed);
  return { pid: health.pid, health, before: sessionsBefore(list.body) };
}

/**
 * The installed copy of the build that runs now, copying its tree into
 * versions/ the first time (a server started from a checkout or an npm
 * install). Null when there is none to keep: its tree is gone or was
 * replaced by another build (an npm install over it).
 */
function keepOldBuild(versions: Versions, running: RunningServer | null, from: BuildIdentity | null, say: (line: string) => void): string | null {
  if (from === null || from.build === UNKNOWN_BUILD) return null;
  const installed = versions.pathOf(from.build);
  if (readBuildIdentity(installed)?.build === from.build) return installed;
  const tree = running ? treeOfServer(running.pid) : null;
  if (tree === null || readBuildIdentity(tree)?.build !== from.build) {
    say(`no copy of the running build ${label(from)} is on disk (its tree was replaced or cannot be found): a failed check cannot start it again`);
    return null;
  }
  const { root } = versions.install(tree, from);
  say(`kept ${label(from)} in ${root} for the way back`);
  return root;
}

/**
 * A rollback to a build whose store backup has an older schema than the
 * store now: the newer build migrated it, and the older one cannot read it.
 * The backup made when leaving that build goes back (what changed since is
 * lost from the store). Otherwise the store stays as it is.
 */
function restoreBackupOfTarget(home: string, targetRoot: string, schemaNow: number | null, say: (line: string) => void): boolean {
  const dir = join(targetRoot, 'store-backup');
  const manifest = readBackupManifest(dir);
  if (manifest === null || manifest.schemaVersion === null || schemaNow === null || schemaNow <= manifest.schemaVersion) return false;
  restoreStore(home, dir);
  say(`the store is at schema ${schemaNow}, which the older build cannot read: restored the backup made when it was left (schema ${manifest.schemaVersion}, ${new Date(manifest.madeAt).toISOString()})`);
  return true;
}

/**
 * From the running server to the new one. The new server is started first,
 * told to take over (src/server/take-over.ts): it takes the locks the moment
 * the old one exits, before an attached viewer's own start could, and opens
 * the store only after the backup. A build that cannot take over says so at
 * once (it finds the old server's lock); then the old server is stopped
 * first and the new one started after, as `tend server restart` does.
 */
async function handOver(
  client: TendClient,
  from: { pid: number; sessions: number; mustStop: boolean },
  root: string,
  identity: BuildIdentity,
  say: (line: string) => void,
  phase: <T>(name: string, work: () => Promise<T> | T) => Promise<T>,
  between: () => Promise<void>,
): Promise<StartOutcome> {
  say(`starting ${label(identity)} from ${root}, to take over when the running server has stopped`);
  const next = new ServerStart(client, root, from.pid);
  const first = await next.nextLine();
  const takesOver = first !== null && first.startsWith(WAITING_LINE);
  if (!takesOver) await next.abort();
  say(`stopping the server (pid ${from.pid}): it saves the screens of ${from.sessions} sessions`);
  if (from.mustStop) {
    if (!(await phase('stop', () => stopGracefully(client, from.pid)))) {
      if (takesOver) await next.abort();
      throw new CliError(`the running server (pid ${from.pid}) did not stop within ${SERVER_STOP_WAIT_MS / 1000} s; nothing was changed. ` +
        `See ${client.paths.serverLog}, then try again`, EXIT.failed);
    }
  } else {
    await phase('stopNew', () => stopForcibly(client, from.pid));
  }
  if (takesOver) {
    const taken = await next.nextLine();
    if (taken === TAKEN_LINE) {
      await between();
      next.openGate();
      return phase('start', () => next.outcome(progressSayer(say)));
    }
    await next.abort(); // another server got the home first: the way without a take-over
    const stray = await healthOf(client);
    if (stray) {
      say(`another server (pid ${stray.pid}) started meanwhile; stopping it`);
      await stopForcibly(client, stray.pid);
    }
  }
  await between();
  return phase('start', () => startWithRetries(client, root, identity, say));
}

/** "sessions recovered n/N", each figure once. */
function progressSayer(say: (line: string) => void): (done: number, total: number) => void {
  let lastSaid = '';
  return (done, total) => {
    const line = `sessions recovered ${done}/${total}`;
    if (line !== lastSaid) say(line);
    lastSaid = line;
  };
}

/**
 * Starts the server of `root`; a server of another build that took the home
 * meanwhile (an attached viewer brings a server back when it finds none) is
 * stopped and the start tried again.
 */
async function startWithRetries(client: TendClient, root: string, identity: BuildIdentity, say: (line: string) => void): Promise<StartOutcome> {
  let last: StartOutcome = { ok: false, message: 'not tried' };
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    say(`starting ${label(identity)} from ${root}`);
    last = await startServerFrom(client, root, progressSayer(say));
    if (last.ok || !/already running/.test(last.message)) return last;
    // Another starter won (an attached viewer brings a server back when it finds none). Its
    // server, once it answers, is as good as ours when it is this build; else it is stopped and
    // the start tried again.
    const other = await waitAnswering(client);
    if (other === null) continue;
    if (other.build === identity.build) {
      say(`another start of ${label(identity)} (pid ${other.pid}) got there first; it is the one`);
      return { ok: true, pid: other.pid, keep: () => {} };
    }
    say(`a server of build ${other.build} (pid ${other.pid}) started meanwhile; stopping it`);
    await stopForcibly(client, other.pid);
  }
  return last;
}

/** The server that holds the home once it answers; null if none does within the wait. */
async function waitAnswering(client: TendClient): Promise<{ pid: number; build: string } | null> {
  const deadline = performance.now() + SERVER_STOP_WAIT_MS;
  while (performance.now() < deadline) {
    const health = await healthOf(client);
    if (health !== null) return { pid: health.pid, build: health.build };
    if (!existsSync(client.paths.homeLockFile)) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

function failureParagraph(f: {
  to: BuildIdentity;
  from: BuildIdentity | null;
  problems: string[];
  running: boolean;
  oldServerBack: boolean | null;
  oldCheck: HealthResult | null;
  oldStartProblem: string | null;
  log: string;
  rollback: boolean;
}): string {
  const what = f.rollback ? `rolling back to ${label(f.to)}` : `upgrading to ${label(f.to)}`;
  let back: string;
  if (!f.running) back = 'No server was running before, and none runs now; the store is as it was.';
  else if (f.oldServerBack) back = `The server of ${label(f.from!)} runs again with the store as it was, and every session that was running is running.`;
  else if (f.oldCheck) back = `The server of ${label(f.from!)} was started again with the store as it was, but its own check failed: ${f.oldCheck.problems.join('; ')}.`;
  else back = `The server of ${f.from ? label(f.from) : 'the old build'} could not be started again: ${f.oldStartProblem}. The store is as it was; \`tend server start\` starts a server.`;
  return `tend: ${what} failed: ${f.problems.join('; ')}. ${back} ` +
    `Terminals kept running throughout (their holders do not depend on the server). The new server's log is ${f.log}.`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
