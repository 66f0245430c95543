// A lone `tend attach` types straight to the session's holder (INPUT_ROUTE):
// its keys reach the program with the server stopped, and once each. When a
// second writable viewer comes, typing decides the size again, so the keys
// pass the server; what was on its way either way still arrives once, a
// server SIGKILL and a holder hand-over included. These are the native
// viewer's: the Node viewer always types through the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { recordedText as recorded, recorderProgram as recorder } from '../support/recorder.js';
import { buildOtherHolder } from '../support/other-holder.js';
import type { UpgradeHoldersReply } from '../../src/protocol/api/index.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import {
  ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, RawViewer, bytesWritten, newSession, serverFor, serverScreen, socketCount, testsTypeScriptViewer, waitForSessionText,
} from './attach-harness.js';

/** A screen's rows that hold anything. */
const lines = (text: string): string[] => text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');

/**
 * Stops the server (it reads nothing until SIGCONT). A test that ends while
 * it is stopped lets it go on, so the server's own clean-up ends its holders.
 */
function stopServer(scope: ReturnType<typeof useTestScope>, pid: number): void {
  process.kill(pid, 'SIGSTOP');
  scope.defer(() => { try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ } });
}

const T = { timeout: ATTACH_TEST_TIMEOUT_MS, skip: testsTypeScriptViewer ? 'the Node viewer types through the server' : false };

/**
 * A session running the recorder and one `tend attach` of it, typing to the
 * holder (it has its server's socket and the holder's open).
 */
async function loneTypist(t: Parameters<typeof useTestScope>[0]) {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const file = join(server.home, 'typed.txt');
  const id = await newSession(server, { argv: recorder(file) });
  await waitForSessionText(server, id, /ready/);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);
  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to open the holder\'s socket (its server\'s and the holder\'s)' });
  return { scope, server, file, id, viewer };
}

test('a lone attach types straight to the holder, past a stopped server; a second writable viewer sends its keys through the server again, and a SIGKILL loses none', T, async (t) => {
  const { scope, server, file, id, viewer } = await loneTypist(t);

  // The server reads nothing: the keys reach the program all the same.
  const pid = server.serverPid()!;
  stopServer(scope, pid);
  viewer.type('straight ');
  await waitFor(() => recorded(file) === 'straight ', { what: 'the keys to reach the program past the stopped server', describe: () => JSON.stringify(recorded(file)) });
  process.kill(pid, 'SIGCONT');

  // A second writable viewer: typing decides the size, so the server must see the keys again.
  const other = await RawViewer.connect(scope, server);
  other.subscribe(id);
  await other.next('snapshot');
  await waitFor(() => socketCount(viewer.pid) === 1, { what: 'the attach to leave the holder\'s socket' });

  // Through the server now: keys written into it while it is stopped, and then killed, arrive once from the next one.
  process.kill(pid, 'SIGSTOP');
  const written = bytesWritten(viewer.pid);
  viewer.type('through ');
  await waitFor(() => bytesWritten(viewer.pid) >= written + 'through '.length + 5, { what: 'the attach to write the keys to the stopped server' });
  assert.equal(recorded(file), 'straight ', 'the keys wait in the stopped server\'s socket');
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  await waitFor(() => { const now = server.serverPid(); return now !== null && now !== pid; }, { what: 'the attach to start a new server', timeoutMs: 60_000 });

  await waitFor(() => recorded(file) === 'straight through ', { what: 'the keys sent through the dead server', timeoutMs: 30_000, describe: () => JSON.stringify(recorded(file)) });
  // Alone again on the new server: straight to the holder, and nothing comes twice.
  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to type to the holder again', timeoutMs: 30_000 });
  viewer.type('#');
  await waitFor(() => recorded(file).endsWith('#'), { what: 'the last key' });
  assert.equal(recorded(file), 'straight through #', 'every key once, in order');
  assert.equal(viewer.exit, null);
});

test('a read-only attach never opens the holder\'s socket', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: ['cat'] });
  const viewer = await AttachedTerminal.start(scope, server, ['--read-only', id]);
  await viewer.waitForServerScreen(server, id);
  const writer = await AttachedTerminal.start(scope, server, [id], { cols: 80, rows: 24 });
  await writer.waitForServerScreen(server, id);
  await waitFor(() => socketCount(writer.pid) === 2, { what: 'the writable attach to type to the holder' });
  assert.equal(socketCount(viewer.pid), 1, 'the read-only one has its server\'s socket alone');
});

test('a lone attach types on across a holder hand-over: the route ends with the old binary, comes back for the new one, and every key arrives once', T, async (t) => {
  const { scope, server, file, viewer } = await loneTypist(t);
  const otherHolder = buildOtherHolder(scope.tempDir('tend-holder-'));
  viewer.type('before ');
  await waitFor(() => recorded(file) === 'before ', { what: 'the keys typed before' });

  // Keys typed while the holder hands over: straight to the old binary, through the server while it
  // waits for the new one, or straight to the new one: each once, in order.
  const upgrade = server.api<UpgradeHoldersReply>('POST', '/v1/holders/upgrade', { holderPath: otherHolder });
  let typed = 'before ';
  for (let i = 0; i < 20; i++) {
    const key = String.fromCharCode(97 + i);
    viewer.type(key);
    typed += key;
    await new Promise((r) => setImmediate(r));
  }
  const reply = await upgrade;
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.upgraded, 1, JSON.stringify(reply.body));
  await waitFor(() => recorded(file) === typed, { what: 'the keys typed during the hand-over', describe: () => JSON.stringify(recorded(file)) });

  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to type to the new holder', timeoutMs: 30_000 });
  viewer.type(' after#');
  await waitFor(() => recorded(file).endsWith('#'), { what: 'the last key' });
  assert.equal(recorded(file), `${typed} after#`, 'every key once, in order');
});

/** A `cat` session and one `tend attach` of it, typing to the holder. */
async function catTypist(t: Parameters<typeof useTestScope>[0]) {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: ['cat'] });
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);
  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to open the holder\'s socket' });
  return { scope, server, id, viewer };
}

/**
 * With the server stopped, types `key` and waits for the outer terminal to
 * show `line` (the tty's echo can then only have come from the holder);
 * lets the server go on, ends the line, and waits for the outer screen to
 * be the server's once `cat` has printed the line back.
 */
async function echoPastStoppedServer(typist: Awaited<ReturnType<typeof catTypist>>, key: string, line: string) {
  const { scope, server, id, viewer } = typist;
  const pid = server.serverPid()!;
  stopServer(scope, pid);
  viewer.type(key);
  await viewer.waitForScreen('the echo from the holder, past the stopped server', (s) => s.includes(line));
  process.kill(pid, 'SIGCONT');
  viewer.type('\r');
  await waitForSessionText(server, id, new RegExp(`${line}\\s+${line}`));
  return viewer.waitForServerScreen(server, id);
}

test("a lone attach shows its echo straight from the holder, past a stopped server, and each byte once: when the server's copy comes, and when a new server replays it", T, async (t) => {
  const typist = await catTypist(t);
  const { server, id, viewer } = typist;
  // The holder's STATE (which makes the attach WATCH) comes before the answer to these keys, so before their echo.
  viewer.type('first ');
  await viewer.waitForServerScreen(server, id);

  // The server's DATA carries the echo again; the outer screen is the server's, the echo once.
  const screen = await echoPastStoppedServer(typist, 'echo', 'first echo');
  assert.deepEqual(lines(screen.text), ['first echo', 'first echo'], screen.text);

  // Again, and this time the server dies: the next one replays what the attach lacks, not what the holder showed it.
  const pid = server.serverPid()!;
  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to type to the holder' });
  stopServer(typist.scope, pid);
  viewer.type('second');
  await viewer.waitForScreen('the second echo from the holder', (s) => s.includes('second'));
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  await waitFor(() => { const now = server.serverPid(); return now !== null && now !== pid; }, { what: 'the attach to start a new server', timeoutMs: 60_000 });
  viewer.type('\r');
  await waitForSessionText(server, id, /second\s+second/, 60_000);
  const after = await viewer.waitForServerScreen(server, id, 60_000);
  assert.deepEqual(lines(after.text), ['first echo', 'first echo', 'second', 'second'], after.text);
  assert.equal(viewer.exit, null);
});

test('once a second viewer has come and gone, the lone attach watches the holder again: its echo past a stopped server, each byte once', T, async (t) => {
  const typist = await catTypist(t);
  const { scope, server, id, viewer } = typist;

  // A second writable viewer (another size): the route ends, keys and echo pass the server.
  const other = await RawViewer.connect(scope, server);
  other.subscribe(id, { cols: 60, rows: 20 });
  await other.next('snapshot');
  await waitFor(() => socketCount(viewer.pid) === 1, { what: 'the attach to leave the holder\'s socket' });
  viewer.type('a-');
  await waitForSessionText(server, id, /^a-$/m);

  // It leaves: a new route, a new WATCH (sent on the STATE that comes before these keys' answer).
  other.close();
  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to type to the holder again' });
  viewer.type('b-');
  await waitForSessionText(server, id, /^a-b-$/m);
  await viewer.waitForServerScreen(server, id);

  const screen = await echoPastStoppedServer(typist, 'c', 'a-b-c');
  assert.deepEqual(lines(screen.text), ['a-b-c', 'a-b-c'], screen.text);
});

test("after the outer terminal is resized, the lone attach's echo still comes from the holder past a stopped server, each byte once", T, async (t) => {
  const typist = await catTypist(t);
  const { server, id, viewer } = typist;
  viewer.type('a-');
  await waitForSessionText(server, id, /^a-$/m);

  // The session takes the new size (the server repaints the attach at it); the route to the holder stays.
  viewer.resize(100, 30);
  await waitFor(async () => (await serverScreen(server, id)).cols === 100, { what: 'the session to take the new size' });
  await viewer.waitForServerScreen(server, id);
  await waitFor(() => socketCount(viewer.pid) === 2, { what: 'the attach to type to the holder' });

  const screen = await echoPastStoppedServer(typist, 'b', 'a-b');
  assert.deepEqual(lines(screen.text), ['a-b', 'a-b'], screen.text);
});
