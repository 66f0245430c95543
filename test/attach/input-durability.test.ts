// What is typed into `tend attach` reaches the program once, even when the
// server dies with it in hand: keys written into the socket of a server that
// was about to be SIGKILLed (before the attach could notice), and a paste cut
// in the middle by a SIGKILL while the program reads it slowly. The attach
// keeps every byte until the session's holder has taken it and sends it
// again to the next server; the holder drops what it has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { recordedBytes as recorded, recorderProgram as recorder } from '../support/recorder.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive, killQuietly } from '../support/processes.js';
import type { TestServer } from '../server/harness.js';
import {
  ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, RawViewer, bytesWritten, newSession, serverFor, socketCount, testsTypeScriptViewer, waitForSessionText,
} from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

async function waitForNewServer(server: TestServer, old: number): Promise<void> {
  await waitFor(() => { const now = server.serverPid(); return now !== null && now !== old; }, { what: 'the attach to start a new server', timeoutMs: 60_000 });
}

/**
 * Stops the server reading (SIGSTOP), types `keys` so that they reach its socket and stay there, then kills it
 * (SIGKILL) before the attach can tell, and waits for the attach to start the next server.
 */
async function typeIntoServerAboutToDie(scope: TestScope, server: TestServer, viewer: AttachedTerminal, keys: string, whose: string): Promise<void> {
  const pid = server.serverPid()!;
  process.kill(pid, 'SIGSTOP');
  scope.defer(() => killQuietly(pid));
  const written = bytesWritten(viewer.pid);
  viewer.type(keys);
  await waitFor(() => bytesWritten(viewer.pid) >= written + keys.length + 5, { what: `${whose} to write the keys to the stopped server` });
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  await waitForNewServer(server, pid);
}

/**
 * A second writable viewer, so the attach's keys pass the server (a lone
 * native attach types straight to the holder: typist.test.ts): these tests
 * are about what the server holds when it dies.
 */
async function keysThroughTheServer(scope: TestScope, server: TestServer, id: string, viewer: AttachedTerminal): Promise<void> {
  const other = await RawViewer.connect(scope, server);
  other.subscribe(id);
  await other.next('snapshot');
  if (!testsTypeScriptViewer) await waitFor(() => socketCount(viewer.pid) === 1, { what: 'the attach to type through the server' });
}

/** Types a last key and waits for it: everything before it has arrived by then, so the file is complete. */
async function markEnd(viewer: AttachedTerminal, file: string, before: Buffer): Promise<Buffer> {
  viewer.type('#');
  await waitFor(() => recorded(file).length > before.length && recorded(file).at(-1) === 0x23, {
    what: 'the end mark',
    timeoutMs: 30_000,
    describe: () => `the program has ${recorded(file).length} bytes`,
  });
  return recorded(file);
}

test('keys the attach wrote into a server that was then SIGKILLed, before it could notice, arrive once', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const file = join(server.home, 'typed.bin');
  const id = await newSession(server, { argv: recorder(file, 0) });
  await waitForSessionText(server, id, /ready/);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);
  await keysThroughTheServer(scope, server, id, viewer);
  viewer.type('before ');
  await waitFor(() => recorded(file).toString() === 'before ', { what: 'the keys typed before' });

  // The server stops reading (SIGSTOP): the attach's keys reach its socket and stay there, and the
  // server dies with them (SIGKILL) before the attach can tell.
  const keys = 'keys-into-a-dead-socket\r';
  await typeIntoServerAboutToDie(scope, server, viewer, keys, 'the attach');

  const got = await markEnd(viewer, file, Buffer.from('before ' + keys));
  assert.equal(got.toString(), 'before ' + keys + '#', 'every key once, in order');
  assert.equal(viewer.exit, null);
});

test('a second attach of another size (shown a view) types into a server that is then SIGKILLed: its keys arrive once', T, async (t) => {
  // Found using tend inside tmux: the viewer shown a view sent its keys uncounted, and a crash lost them.
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const file = join(server.home, 'typed.bin');
  const id = await newSession(server, { argv: recorder(file, 0), cols: 80, rows: 24 });
  await waitForSessionText(server, id, /ready/);
  const small = await AttachedTerminal.start(scope, server, [id], { cols: 80, rows: 24 });
  await small.waitForServerScreen(server, id);
  small.type('a ');
  await waitFor(() => recorded(file).toString() === 'a ', { what: 'the smaller attach\'s keys' });
  // The larger one only looks: it is shown a view of the 80x24 session.
  const big = await AttachedTerminal.start(scope, server, [id], { cols: 100, rows: 30 });
  await waitFor(() => /\.{5}/.test(big.screen), { what: 'the larger attach to be shown a view (dots past the session)' });

  const keys = 'from-the-view ';
  await typeIntoServerAboutToDie(scope, server, big, keys, 'the view\'s attach');

  await waitFor(() => recorded(file).toString().includes(keys), { what: 'the view\'s keys after the restart', timeoutMs: 30_000, describe: () => JSON.stringify(recorded(file).toString()) });
  const got = await markEnd(small, file, Buffer.from('a ' + keys));
  assert.equal(got.toString(), 'a ' + keys + '#', 'the view\'s keys once');
});

test('a 256 KiB paste cut by a server SIGKILL while the program reads it slowly arrives byte for byte, once', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const file = join(server.home, 'pasted.bin');
  // 40 ms per read of at most a few KiB (the tty hands over 4 KiB at a time): the paste takes seconds, and most of it is
  // in flight when the server dies, with time to spare on a loaded machine.
  const id = await newSession(server, { argv: recorder(file, 40) });
  await waitForSessionText(server, id, /ready/);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);
  await keysThroughTheServer(scope, server, id, viewer);

  // Printable bytes (the tty of the attach would act on control bytes), numbered so a loss or a double shows where.
  const units: Buffer[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const unit = Buffer.from(`${String(i).padStart(6, '0')} 한글🙂 abcdefghijklmnopqrstuvwxyz `, 'utf8');
    if (size + unit.length > 256 * 1024) break;
    units.push(unit);
    size += unit.length;
  }
  // Exactly 256 KiB, ending on a whole character.
  const paste = Buffer.concat([...units, Buffer.alloc(256 * 1024 - size, 'x')]);
  viewer.type(paste);
  await waitFor(() => recorded(file).length >= 32 * 1024, { what: 'the program to have read 32 KiB of the paste', timeoutMs: 30_000 });
  const pid = server.serverPid()!;
  process.kill(pid, 'SIGKILL');
  const atKill = recorded(file).length;
  assert.ok(atKill < paste.length, `the paste was cut (${atKill} of ${paste.length} bytes had arrived)`);
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  await waitForNewServer(server, pid);

  await waitFor(() => recorded(file).length >= paste.length, {
    what: 'the whole paste',
    timeoutMs: 60_000,
    describe: () => `the program has ${recorded(file).length} of ${paste.length} bytes`,
  });
  const got = await markEnd(viewer, file, paste);
  const body = got.subarray(0, got.length - 1);
  assert.equal(body.length, paste.length, 'nothing lost, nothing doubled');
  assert.equal(createHash('sha256').update(body).digest('hex'), createHash('sha256').update(paste).digest('hex'), 'byte for byte');
  assert.equal(viewer.exit, null);
});
