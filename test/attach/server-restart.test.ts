import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { CloseReason } from '../../src/protocol/viewer-frames.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, PROMPT, RawViewer, newSession, serverFor, waitForSessionText } from './attach-harness.js';

test('a server SIGKILLed under an attached viewer: it shows reconnecting, then the same screen from the restarted server', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { name: 'survivor', argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const viewer = await AttachedTerminal.start(scope, server, [':survivor']);
  viewer.type('echo before-the-crash\r');
  await waitForSessionText(server, id, /^before-the-crash$/m);
  await viewer.waitForServerScreen(server, id);

  const pid = server.serverPid();
  assert.ok(pid);
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  await viewer.waitForOutput('the reconnecting status', /reconnecting…/);
  assert.equal(viewer.exit, null, 'tend attach must keep waiting for the server');

  const started = await server.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  await viewer.waitForServerScreen(server, id);
  assert.doesNotMatch(viewer.screen, /reconnecting/);
  // And it is live again: typing goes through the new server.
  viewer.type('echo after-the-restart\r');
  await waitForSessionText(server, id, /^after-the-restart$/m);
  await viewer.waitForServerScreen(server, id);
  assert.match(viewer.screen, /before-the-crash[\s\S]*after-the-restart/);
});

test('a server stopped politely sends the viewer reconnecting too, and a restart resumes it', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);
  assert.equal((await server.cli(['server', 'stop'])).code, 0);
  await viewer.waitForOutput('the reconnecting status', /reconnecting…/);
  assert.equal((await server.cli(['server', 'start'])).code, 0);
  await viewer.waitForServerScreen(server, id);
  viewer.type('echo still-here\r');
  await waitForSessionText(server, id, /^still-here$/m);
  await viewer.waitForServerScreen(server, id);
});

test('a server that stops tells each subscribed viewer so (CLOSED, server shutdown) before its socket goes', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  // A viewer told so waits for the restart that usually follows (`tend upgrade`, `tend server restart`)
  // instead of starting a server of its own, which would take the home from the one starting.
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  await server.holderPids(); // the harness ends the holder at the end, with no server to ask then
  const viewer = await RawViewer.connect(scope, server);
  viewer.subscribe(id);
  await viewer.next('snapshot');
  assert.equal((await server.cli(['server', 'stop'])).code, 0);
  await waitFor(() => viewer.closed, { what: 'the socket to close' });
  const closed = viewer.frames.find((f) => f.type === 'closed');
  assert.ok(closed && closed.type === 'closed', `a CLOSED frame before the socket went; frames: ${viewer.frames.map((f) => f.type).join(' ')}`);
  assert.equal(closed.reason, CloseReason.SERVER_SHUTDOWN);
});
