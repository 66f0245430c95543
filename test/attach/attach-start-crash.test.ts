// A server that dies while a starting `tend attach` waits for its first
// answer: the attach starts another server and comes up as if nothing
// happened. Here the request waits in the stopped server's backlog; the
// fault suite's mid-attach kills also catch a server killed after it took
// the request (which once ended the attach with "cannot talk to the tend
// server: read ECONNRESET"), a moment no test can pick without a stand-in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive, killQuietly } from '../support/processes.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, bytesWritten, newSession, serverFor, waitForSessionText } from './attach-harness.js';

test('a server SIGKILLed while a starting attach waits for its answer: the attach starts another and paints', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: ['sh', '-c', 'echo still-here; exec cat'] });
  await waitForSessionText(server, id, /still-here/);

  // The server stops (SIGSTOP): the attach's first request reaches its socket and waits there.
  const pid = server.serverPid()!;
  process.kill(pid, 'SIGSTOP');
  scope.defer(() => killQuietly(pid));
  const viewer = await AttachedTerminal.start(scope, server, [id], { waitForPaint: false });
  // The GET of the session is the attach's first write (its request line alone is over 20 bytes).
  await waitFor(() => bytesWritten(viewer.pid) > 20, { what: 'the attach to ask the stopped server for the session' });
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });

  await waitFor(() => { const now = server.serverPid(); return now !== null && now !== pid; }, { what: 'the attach to start a new server', timeoutMs: 60_000 });
  await viewer.waitForServerScreen(server, id);
  assert.match(viewer.screen, /still-here/);
  assert.equal(viewer.exit, null, `the attach is still running (it printed: ${JSON.stringify(viewer.output.slice(-200))})`);
});
