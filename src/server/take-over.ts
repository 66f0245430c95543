// A server started to take over from a running one (`tend upgrade`,
// src/cli/upgrade/). The upgrade starts it before it stops the running server,
// so that it takes TEND_HOME's locks the moment that one exits: an attached
// viewer that finds the server gone starts one itself, and a new server still
// booting Node when the old one exits would lose that race to it. Having the
// locks, it waits for the upgrade's word before it opens the store, which the
// upgrade backs up in between.
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
  /** Says TAKEN, then resolves on the upgrade's line; rejects when the gate closes without one. */
  locked(): Promise<void>;
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
 * Resolves on the first line from the upgrade. The descriptor is a socket
 * (Node's 'pipe' stdio): read through net.Socket, whose close is libuv's own,
 * so no read is still pending on the number when the store's file takes it.
 */
function gateOpened(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const gate = new Socket({ fd, readable: true, writable: false });
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      gate.destroy();
      if (error) reject(error);
      else resolve();
    };
    gate.on('data', (chunk: Buffer) => {
      if (chunk.includes(0x0a)) settle(null);
    });
    gate.on('end', () => settle(new Error('the upgrade that started this server gave up before it opened the store')));
    gate.on('error', (err) => settle(err));
  });
}
