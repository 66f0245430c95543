// `tend attach` follows the server of its TEND_HOME to wherever it comes
// back: a server killed and started again with another runtime directory
// (another TEND_RUNTIME_DIR or XDG_RUNTIME_DIR: a login shell, a service, an
// agent) listens on another socket, which TEND_HOME/server.lock names. The
// attach reads the lock again before each retry, so it comes back to the
// session, and typing reaches it. The server the attach starts itself
// carries nothing of the launcher's (TEND_CLI_JS) in its environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { cliWith, type TestServer } from '../server/harness.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, PROMPT, newSession, serverFor, waitForSessionText } from './attach-harness.js';

/** Both viewers: the native one reads the lock in lock.c, the TypeScript one through the client (currentServerSocket). */
const T = { timeout: ATTACH_TEST_TIMEOUT_MS };
/** Shorter than the attach's 60 s give-up: an attach that never follows the lock fails here, not by giving up. */
const BACK_WITHIN_MS = 40_000;

interface HomeLock {
  pid: number;
  socket: string;
}

/** The live server TEND_HOME's lock names, or null. */
function homeLock(server: TestServer): HomeLock | null {
  try {
    const lock = JSON.parse(readFileSync(join(server.home, 'server.lock'), 'utf8')) as HomeLock;
    return isProcessAlive(lock.pid) ? lock : null;
  } catch {
    return null;
  }
}

async function killServer(server: TestServer): Promise<number> {
  const pid = homeLock(server)?.pid;
  assert.ok(pid, 'a server holds the home\'s lock');
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  return pid;
}

/** Typing in the attach reaches the session on the server that now holds the lock. */
async function typingReaches(server: TestServer, viewer: AttachedTerminal, id: string, word: string): Promise<void> {
  await waitFor(async () => (await server.api<{ viewers: number }>('GET', `/v1/sessions/${id}`)).body.viewers === 1, {
    what: 'the attach back on the new server',
    timeoutMs: BACK_WITHIN_MS,
  });
  viewer.type(`echo ${word}\r`);
  await waitForSessionText(server, id, new RegExp(`^${word}$`, 'm'));
  await viewer.waitForServerScreen(server, id);
  assert.equal(viewer.exit, null, 'the attach goes on');
}

test('an attach whose runtime directory is not the server\'s starts the SIGKILLed server in its own and follows it there; the server has no TEND_CLI_JS', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  // The attach finds the server through the home's lock, whatever its own runtime directory says.
  const attachRuntime = scope.tempDir('tend-rt-attach-');
  const viewer = await AttachedTerminal.start(scope, server, [id], { env: { TEND_RUNTIME_DIR: attachRuntime } });
  await viewer.waitForServerScreen(server, id);
  assert.notEqual(homeLock(server)!.socket, join(attachRuntime, 'server.sock'));

  const old = await killServer(server);
  // Nobody but the attach starts a server here: it does so with its own environment.
  const lock = await waitFor(() => { const l = homeLock(server); return l !== null && l.pid !== old ? l : null; }, { what: 'the attach to start a server', timeoutMs: 60_000 });
  scope.trackPid(lock.pid);
  assert.equal(lock.socket, join(attachRuntime, 'server.sock'), 'the new server listens in the attach\'s runtime directory');
  await typingReaches(server, viewer, id, 'back-in-the-attach-runtime');
  const environ = readFileSync(`/proc/${lock.pid}/environ`, 'utf8').split('\0');
  assert.ok(environ.some((v) => v.startsWith('TEND_HOME=')), 'the server\'s environment is readable');
  assert.equal(environ.find((v) => v.startsWith('TEND_CLI_JS=')), undefined, 'the launcher\'s TEND_CLI_JS stays with the viewer');
});

test('a server SIGKILLed and started again by someone else with another runtime directory is found through the home\'s lock', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);

  // The attach is stopped while the server changes place, so the other server is up before the attach
  // notices (else it would start one itself, in its own runtime directory, and the race decides).
  process.kill(viewer.pid, 'SIGSTOP');
  scope.defer(() => { try { process.kill(viewer.pid, 'SIGCONT'); } catch { /* gone */ } });
  const old = await killServer(server);
  const otherRuntime = scope.tempDir('tend-rt-other-');
  const started = await cliWith({ ...server.env, TEND_RUNTIME_DIR: otherRuntime }, ['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  const lock = homeLock(server);
  assert.ok(lock !== null && lock.pid !== old);
  scope.trackPid(lock.pid);
  assert.equal(lock.socket, join(otherRuntime, 'server.sock'));
  process.kill(viewer.pid, 'SIGCONT');

  await typingReaches(server, viewer, id, 'back-in-the-other-runtime');
});
