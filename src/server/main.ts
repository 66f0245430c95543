// The server process: `node dist/src/server/main.js [--ready-fd N]`, started
// detached by the CLI. It holds the one-per-TEND_HOME lock, serves until told
// to stop (API or SIGTERM), and on the way out checkpoints every session and
// leaves every holder running.
import { writeSync, closeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolvePaths, ensureRuntimeDirs } from '../common/paths.js';
import { takeServerLocks, AlreadyRunningError } from './pid-lock.js';
import { TEND_BUILD, TEND_VERSION } from '../common/version.js';
import { createFileLogger } from './log.js';
import { startFailureMessage } from '../common/start-failure.js';
import { TendServer } from './server.js';
import { awaitOldServer, type TakeOver } from './take-over.js';
import { loopbackPortFromEnv } from './http/loopback.js';
import { recoveringLine } from '../protocol/ready-pipe.js';
import { parseWindowSizePolicy, type WindowSizePolicy } from './viewers/size-policy.js';
import { agentSleepAfterMs } from './agents/sleep-config.js';

/** Progress on the ready pipe at most this often while sessions are recovered. */
const PROGRESS_EVERY_MS = 500;

/** A line on the ready pipe (see protocol/ready-pipe.ts); the last one closes it. */
function tell(readyFd: number, line: string, last: boolean): void {
  try {
    writeSync(readyFd, `${line}\n`);
    if (last) closeSync(readyFd);
  } catch {
    /* the starter went away; nothing to tell */
  }
}

/** The last line on the ready pipe; with no pipe, an error goes to stderr. */
function report(readyFd: number | null, line: string): void {
  if (readyFd === null) {
    if (line.startsWith('ERR ')) process.stderr.write(`tend server: ${line.slice(4)}\n`);
    return;
  }
  tell(readyFd, line, true);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'ready-fd': { type: 'string' }, foreground: { type: 'boolean' } },
    strict: true,
  });
  const readyFd = values['ready-fd'] !== undefined ? Number(values['ready-fd']) : null;
  const paths = resolvePaths();
  const log = createFileLogger(values.foreground ? null : paths.serverLog);
  let release: () => void;
  let takeOver: TakeOver | null = null;
  try {
    ensureRuntimeDirs(paths);
    // `tend upgrade` (take-over.ts): the locks the moment the old server exits, the store when the upgrade says.
    takeOver = await awaitOldServer(process.env, readyFd);
    release = takeServerLocks(paths, { version: TEND_VERSION, build: TEND_BUILD }, (warning) => log.warn(warning));
  } catch (err) {
    report(readyFd, `ERR ${err instanceof AlreadyRunningError ? err.message : startFailureMessage(err, paths)}`);
    process.exit(err instanceof AlreadyRunningError ? 3 : 1);
  }
  let upgradeTrial: Promise<void> | undefined;
  try {
    upgradeTrial = (await takeOver?.locked())?.kept;
  } catch (err) {
    report(readyFd, `ERR ${(err as Error).message}`);
    release();
    process.exit(1);
  }
  const env = process.env;
  let loopbackPort: number;
  let windowSize: WindowSizePolicy;
  try {
    loopbackPort = loopbackPortFromEnv(env.TEND_PORT);
    windowSize = parseWindowSizePolicy(env.TEND_WINDOW_SIZE);
  } catch (err) {
    report(readyFd, `ERR ${(err as Error).message}`);
    release();
    process.exit(2);
  }
  let lastProgressAt = 0;
  // TEND_AGENT_SLEEP_MINUTES, else config.json's agentSleepMinutes; a bad value is logged and the default used.
  const agentSleep = agentSleepAfterMs(env, paths.home);
  for (const warning of agentSleep.warnings) log.warn(warning);
  const num = (v: string | undefined) => (v && /^\d+$/.test(v) ? Number(v) : undefined);
  // Tuning knobs, mostly for tests and the bench: scrollback and history, holder ring, checkpoint timing.
  const server = new TendServer({
    paths,
    log,
    scrollbackRows: num(env.TEND_SCROLLBACK_ROWS),
    liveScrollbackRows: num(env.TEND_LIVE_ROWS),
    historyBytes: num(env.TEND_HISTORY_BYTES),
    historyBudgetBytes: num(env.TEND_HISTORY_BUDGET_BYTES),
    ringBytes: num(env.TEND_RING_BYTES),
    checkpointQuietMs: num(env.TEND_CHECKPOINT_QUIET_MS),
    checkpointMaxIntervalMs: num(env.TEND_CHECKPOINT_MAX_MS),
    loopbackPort,
    windowSize,
    agentSleepAfterMs: agentSleep.ms,
    holderPath: process.env.TEND_HOLDER || undefined,
    upgradeTrial,
    onStopRequested: () => void stop('asked to stop'),
    onRecoveryProgress: (done, total) => {
      const now = performance.now();
      if (done > 0 && done < total && now - lastProgressAt < PROGRESS_EVERY_MS) return;
      lastProgressAt = now;
      if (readyFd !== null) tell(readyFd, recoveringLine(done, total), false);
    },
    onFatal: () => {
      // Crashing is safe (holders keep every terminal and the next server recovers them); limping on is not.
      release();
      process.exit(70);
    },
  });
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`stopping (${why})`);
    try {
      await server.stop();
    } catch (err) {
      log.error('stop failed', err);
    }
    release();
    log.info('stopped; holders keep running');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => {}); // detached: a hangup of the starter's terminal is not ours
  process.on('uncaughtException', (err) => {
    // Crashing is safe (holders keep every terminal); limping on is not.
    log.error('uncaught exception; exiting', err);
    release();
    process.exit(70);
  });
  process.on('unhandledRejection', (err) => log.error('unhandled rejection', err));
  try {
    await server.start();
  } catch (err) {
    log.error('could not start', err);
    report(readyFd, `ERR ${startFailureMessage(err, paths)}`);
    release();
    process.exit(1);
  }
  log.info(`serving on ${paths.serverSocket} (pid ${process.pid}, boot ${server.boot})`);
  report(readyFd, `OK ${process.pid}`);
}

void main();
