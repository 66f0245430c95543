// A server started to take over from a running one (`tend upgrade`,
// src/cli/upgrade/). The upgrade starts it before it stops the running server,
// so that it takes TEND_HOME's locks the moment that one exits: an attached
// viewer that finds the server gone starts one itself, and a new server still
// booting Node when the old one exits would lose that race to it. Having the
// locks, it waits for the upgrade's word before it opens the store, which the
// upgrade backs up in between.
//
// The gate stays open while the upgrade checks the new server: it is on
// trial. A program that ends then is recorded, but its holder is not let go
// (holder-release.ts): should the check fail, the server the upgrade goes back
// to finds that holder with the exit status and the last output, which the
// store it restores does not have. The gate's end (the upgrade kept this
// server, or its CLI is gone) ends the trial.
//
// The variables and the lines it says are in src/protocol/take-over.ts. A
// build without this ignores the variables, finds the old server's lock and
// says so; the upgrade then stops the old server first and starts this one after.
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { isAlive } from '../common/home-lock.js';
import { TAKEN_LINE, TAKE_OVER_GATE_FD_ENV, TAKE_OVER_PID_ENV, WAITING_LINE } from '../protocol/take-over.js';

/** Longest wait for the old server to end (it saves every screen first). */
const OLD_SERVER_WAIT_MS = 120_000;
/** How often its pid is looked at: the gap a racing starter could use. */
const OLD_SERVER_POLL_MS = 5;

export interface TakeOver {
  /**
   * Says TAKEN, then resolves on the upgrade's line with the trial's end (the
   * gate's); rejects when the gate closes without a line.
   */
  locked(): Promise<{ kept: Promise<void> }>;
}

function say(readyFd: number | null, line: string): void {
  if (readyFd === null) return;
  try {
    writeSync(readyFd, `${line}\n`);
  } catch {
    /* the starter went away: the gate will say so */
  }
}

/**
 * With TEND_TAKE_OVER_PID set: waits until that process has ended, and
 * returns what to do once the locks are held. Null when this start takes
 * over from nobody. The variables are taken out of the environment, so no
 * program this server starts inherits them.
 */
export async function awaitOldServer(env: NodeJS.ProcessEnv, readyFd: number | null): Promise<TakeOver | null> {
  const pid = Number(env[TAKE_OVER_PID_ENV]);
  const gateFd = Number(env[TAKE_OVER_GATE_FD_ENV]);
  delete env[TAKE_OVER_PID_ENV];
  delete env[TAKE_OVER_GATE_FD_ENV];
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(gateFd) || gateFd < 0) return null;
  say(readyFd, `${WAITING_LINE} ${pid}`);
  const deadline = performance.now() + OLD_SERVER_WAIT_MS;
  while (isAlive(pid)) {
    if (performance.now() > deadline) throw new Error(`the server this one takes over from (pid ${pid}) did not exit within ${OLD_SERVER_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, OLD_SERVER_POLL_MS));
  }
  return {
    locked: () => {
      say(readyFd, TAKEN_LINE);
      return gateOpened(gateFd);
    },
  };
}

/**
 * Resolves on the first line from the upgrade, with a promise of the gate's
 * end (the trial's). The descriptor is a socket (Node's 'pipe' stdio): read
 * through net.Socket, whose close is libuv's own, so no read is still pending
 * on the number when the store's file takes it.
 */
function gateOpened(fd: number): Promise<{ kept: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const gate = new Socket({ fd, readable: true, writable: false });
    // The store may open once the first line came; the trial lasts until the gate's end.
    let opened = false;
    let endTrial = () => {};
    const kept = new Promise<void>((resolveKept) => {
      endTrial = resolveKept;
    });
    const ended = (error: Error | null) => {
      gate.destroy();
      endTrial();
      if (!opened) reject(error ?? new Error('the upgrade that started this server gave up before it opened the store'));
    };
    gate.on('data', (chunk: Buffer) => {
      if (opened || !chunk.includes(0x0a)) return;
      opened = true;
      resolve({ kept });
    });
    gate.on('end', () => ended(null));
    gate.on('close', () => ended(null));
    gate.on('error', (err) => ended(err));
  });
}
