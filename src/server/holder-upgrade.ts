// POST /v1/holders/upgrade: every running holder (or the sessions named)
// replaces its binary in place, one at a time, keeping its terminal
// (Session.handOverHolder). The new binary is asked `--version` first: its
// build id tells which holders already run it. A server started with
// TEND_UPGRADE_HOLDERS=1 does the same for every holder once it has
// recovered them (what `tend upgrade` asks of a new build).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { defaultHolderPath } from '../holder-client/index.js';
import { type HolderUpgradeOutcome, type UpgradeHoldersReply } from '../protocol/api/index.js';
import type { Logger } from './log.js';
import type { Session } from './session.js';
import type { SessionRegistry } from './session-registry.js';

/** A holderPath that is no tend-holder able to take over a running one (the API answers it bad_request). */
export class NotAHolderError extends Error {}

/** How long `tend-holder --version` may take. */
const PROBE_TIMEOUT_MS = 5000;
/** The environment variable that asks a starting server to upgrade every holder. */
const UPGRADE_HOLDERS_ENV = 'TEND_UPGRADE_HOLDERS';

export interface HolderUpgradeDeps {
  registry: SessionRegistry;
  log: Logger;
  /** The binary this server starts holders with (default: defaultHolderPath()). */
  holderPath?: string;
}

/** The build id `tend-holder --version` says, or why the path is not a holder that can take over. */
function probeHolder(path: string): Promise<{ build: string } | { error: string }> {
  return new Promise((done) => {
    execFile(path, ['--version'], { timeout: PROBE_TIMEOUT_MS, maxBuffer: 4096 }, (err, stdout) => {
      const m = /^tend-holder (\S+) protocol (\d+) resume (\d+)-(\d+)$/m.exec(String(stdout));
      if (m) return done({ build: m[1]! });
      const why = err ? err.message.split('\n')[0]! : `it said ${JSON.stringify(String(stdout).slice(0, 80))}`;
      done({ error: `${path} is not a tend-holder that can take over a running one (${why})` });
    });
  });
}

function outcomeOf(session: Session, result: Awaited<ReturnType<Session['handOverHolder']>>): HolderUpgradeOutcome {
  return { session: session.id, name: session.name, ...result };
}

/** Hands every target over to the binary at holderPath, one at a time. */
export async function upgradeHolders(deps: HolderUpgradeDeps, holderPath: string, targets: Session[]): Promise<UpgradeHoldersReply> {
  const probe = await probeHolder(holderPath);
  if ('error' in probe) throw new NotAHolderError(probe.error);
  const sessions: HolderUpgradeOutcome[] = [];
  for (const session of targets) {
    try {
      sessions.push(outcomeOf(session, await session.handOverHolder(holderPath, probe.build)));
    } catch (err) {
      deps.log.error(`session ${session.id}: holder hand-over`, err);
      sessions.push({ session: session.id, name: session.name, result: 'failed', message: (err as Error).message });
    }
  }
  const count = (r: HolderUpgradeOutcome['result']) => sessions.filter((s) => s.result === r).length;
  return { holderPath, build: probe.build, upgraded: count('upgraded'), skipped: count('skipped'), failed: count('failed'), sessions };
}

export function thisServersHolder(deps: HolderUpgradeDeps): string {
  return resolve(deps.holderPath ?? defaultHolderPath());
}

/** TEND_UPGRADE_HOLDERS=1: after recovery, every running holder to this server's binary; logged, never fatal. */
export async function upgradeHoldersIfAsked(deps: HolderUpgradeDeps, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (env[UPGRADE_HOLDERS_ENV] !== '1') return;
  const holderPath = thisServersHolder(deps);
  try {
    const reply = await upgradeHolders(deps, holderPath, deps.registry.list().filter((s) => s.status === 'running'));
    deps.log.info(`${UPGRADE_HOLDERS_ENV}: holders upgraded to build ${reply.build}: ${reply.upgraded} upgraded, ${reply.skipped} skipped, ${reply.failed} failed`);
    for (const s of reply.sessions) if (s.result === 'failed') deps.log.warn(`session ${s.session}: holder not upgraded: ${s.message}`);
  } catch (err) {
    deps.log.warn(`${UPGRADE_HOLDERS_ENV}: holders not upgraded: ${(err as Error).message}`);
  }
}
