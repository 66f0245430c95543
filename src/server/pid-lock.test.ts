// The locks themselves, raced by real processes: starters that try at the
// same instant, with a stale lock in the way or none, leave exactly one
// winner, and the file names it whole.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { acquireHomeLock, acquirePidLock } from './pid-lock.js';

const RACERS = 5;
const ROUNDS = 8;
/** Long enough for every racer's node to have started before the common start. */
const START_DELAY_MS = 1000;
const RACE_TIMEOUT_MS = 30_000;

/**
 * A starter: its script's path ends in server/main.js, so that a live one is
 * taken for a tend server (isTendServer reads the command line), as a real
 * server is. It waits for the common instant, tries the lock, says WON or
 * REFUSED, and holds what it won until its stdin closes.
 */
const RACER_SOURCE = `
import { acquireHomeLock, AlreadyRunningError } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'pid-lock.js')).href)};
const [file, startAt] = process.argv.slice(2);
const nap = new Int32Array(new SharedArrayBuffer(4));
while (Date.now() < Number(startAt) - 5) Atomics.wait(nap, 0, 0, 2);
while (Date.now() < Number(startAt)) {}
let said;
try {
  acquireHomeLock(file, { socket: '/racer/' + process.pid + '.sock', version: 'race', build: 'b-race' });
  said = 'WON';
} catch (err) {
  said = err instanceof AlreadyRunningError ? 'REFUSED ' + err.pid : 'FAILED ' + err.message;
}
process.stdout.write(said + '\\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

interface Racer {
  pid: number;
  said: Promise<string>;
  end(): Promise<void>;
}

function startRacer(script: string, file: string, startAt: number): Racer {
  const child = spawn(process.execPath, [script, file, String(startAt)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  const said = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`racer ${child.pid} said nothing`)), RACE_TIMEOUT_MS);
    child.stdout.on('data', (c: string) => {
      out += c;
      if (out.endsWith('\n')) {
        clearTimeout(timer);
        resolve(out.trim());
      }
    });
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    pid: child.pid!,
    said,
    end: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('server locks', () => {
  test('starters racing for TEND_HOME\'s lock, over a stale lock or none, leave exactly one winner that the file names', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-lock-race-'));
    try {
      mkdirSync(join(dir, 'server'));
      const script = join(dir, 'server', 'main.js');
      writeFileSync(script, RACER_SOURCE);
      for (let round = 0; round < ROUNDS; round++) {
        const file = join(dir, `server-${round}.lock`);
        // Round 0 has no lock; the others start from one left by a server that died.
        if (round > 0) writeFileSync(file, `${JSON.stringify({ pid: await deadPid(), socket: '/gone.sock', version: 'old' })}\n`);
        const startAt = Date.now() + START_DELAY_MS;
        const racers = Array.from({ length: RACERS }, () => startRacer(script, file, startAt));
        try {
          const said = await Promise.all(racers.map((r) => r.said));
          const winners = racers.filter((_, i) => said[i] === 'WON');
          assert.equal(winners.length, 1, `round ${round}: ${said.join(', ')}`);
          const winner = winners[0]!.pid;
          for (const s of said) if (s !== 'WON') assert.equal(s, `REFUSED ${winner}`, `round ${round}`);
          assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { pid: winner, socket: `/racer/${winner}.sock`, version: 'race', build: 'b-race' });
        } finally {
          await Promise.all(racers.map((r) => r.end()));
        }
      }
      // Nothing is left beside the locks: no half-written or moved-aside files.
      assert.deepEqual(readdirSync(dir).filter((n) => n !== 'server' && !/^server-\d\.lock$/.test(n)), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('release removes the lock only while it is still this process\'s; the runtime pid file holds the pid alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-lock-'));
    try {
      const pidFile = join(dir, 'server.pid');
      const releasePid = acquirePidLock(pidFile, join(dir, 'server.sock'));
      assert.equal(readFileSync(pidFile, 'utf8'), `${process.pid}\n`);
      releasePid();
      assert.deepEqual(readdirSync(dir), []);

      const homeFile = join(dir, 'server.lock');
      const releaseHome = acquireHomeLock(homeFile, { socket: '/s.sock', version: '1.2.3', build: '0e099afa7fc7de7d' });
      assert.deepEqual(JSON.parse(readFileSync(homeFile, 'utf8')), { pid: process.pid, socket: '/s.sock', version: '1.2.3', build: '0e099afa7fc7de7d' });
      // Taken over by hand (a server that found ours stale): not ours to remove any more.
      const theirs = `${JSON.stringify({ pid: 1, socket: '/other.sock', version: 'x' })}\n`;
      writeFileSync(homeFile, theirs);
      releaseHome();
      assert.equal(readFileSync(homeFile, 'utf8'), theirs);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
