// The native viewer sends its WebSocket handshake, HELLO and SUBSCRIBE in one
// write, so a server can answer the 101, WELCOME and a whole small snapshot
// in one write too, and the viewer's handshake read takes them all: nothing
// more is left on the socket to wake its poll. Found on a loaded machine (a
// second attach that never painted); here a stand-in server answers exactly
// that way every time. It is a program at .../server/main.js (the viewer
// checks the lock's pid runs one) that writes TEND_HOME's lock with this
// tree's build, so the viewer names the session in its upgrade.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEND_BUILD, TEND_VERSION } from '../../src/common/version.js';
import { VIEWER_PROTOCOL_VERSION, encodeFrameToViewer } from '../../src/protocol/viewer-frames.js';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import type { TestServer } from '../server/harness.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, testsTypeScriptViewer } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS, skip: testsTypeScriptViewer ? 'the native viewer\'s loop (the TypeScript one looks the session up first)' : false };

const SESSION_ID = 'fa11ed01';
const PAINTED = 'EARLY-FRAMES-PAINTED';

/** One unmasked binary frame, as a server sends it. */
function serverFrame(payload: Uint8Array): Buffer {
  const head = payload.length < 126 ? Buffer.from([0x82, payload.length]) : Buffer.from([0x82, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([head, payload]);
}

/** The stand-in server's program: answers each upgrade with everything in one write, then stays quiet. */
function standInServer(lockPath: string, socketPath: string, answerFrames: Buffer): string {
  return `
const net = require('node:net');
const crypto = require('node:crypto');
const fs = require('node:fs');
const frames = Buffer.from(${JSON.stringify(answerFrames.toString('base64'))}, 'base64');
const server = net.createServer((socket) => {
  let got = Buffer.alloc(0);
  let answered = false;
  socket.on('data', (d) => {
    got = Buffer.concat([got, d]);
    const end = got.indexOf('\\r\\n\\r\\n');
    // The request and the two frames behind it (HELLO, SUBSCRIBE) came in one write.
    if (answered || end < 0 || got.length <= end + 4) return;
    answered = true;
    const key = /sec-websocket-key: *(\\S+)/i.exec(got.subarray(0, end).toString('latin1'))[1];
    const accept = crypto.createHash('sha1').update(key + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11').digest('base64');
    socket.write(Buffer.concat([Buffer.from('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
      'Sec-WebSocket-Accept: ' + accept + '\\r\\nTend-Session-Id: ${SESSION_ID}\\r\\nTend-Session-Name: early\\r\\n\\r\\n', 'latin1'), frames]));
  });
  socket.on('error', () => {});
});
server.listen(${JSON.stringify(socketPath)}, () => {
  fs.writeFileSync(${JSON.stringify(lockPath)}, JSON.stringify({ pid: process.pid, socket: ${JSON.stringify(socketPath)}, version: ${JSON.stringify(TEND_VERSION)}, build: ${JSON.stringify(TEND_BUILD)} }));
  process.stdout.write('listening\\n');
});
`;
}

test('a 101 that brings WELCOME and the whole snapshot in the same read is painted, with nothing more on the socket', T, async (t) => {
  const scope = useTestScope(t);
  const dir = scope.tempDir('tend-early-');
  const home = join(dir, 'home');
  mkdirSync(home);
  mkdirSync(join(dir, 'server'));
  const script = join(dir, 'server', 'main.js');
  const modes = {
    cursorX: PAINTED.length, cursorY: 0, cursorHidden: false, altScreen: false, applicationCursorKeys: false, applicationKeypad: false,
    bracketedPaste: false, sendFocus: false, originMode: false, insertMode: false, wraparound: true, mouseTracking: 'none', mouseEncoding: 'default',
  } as const;
  const frames = Buffer.concat([
    serverFrame(encodeFrameToViewer({ type: 'welcome', protocolVersion: VIEWER_PROTOCOL_VERSION, serverBoot: 'stand-in', serverVersion: TEND_VERSION, serverBuild: TEND_BUILD })),
    serverFrame(encodeFrameToViewer({ type: 'snapshot', channel: 1, boot: 'stand-in', seq: 0, cols: 80, rows: 24, modes, data: PAINTED })),
  ]);
  writeFileSync(script, standInServer(join(home, 'server.lock'), join(dir, 's.sock'), frames));
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  scope.trackPid(child.pid!);
  scope.defer(() => {
    child.kill('SIGKILL');
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('listening'), { what: 'the stand-in server to listen' });

  const env: NodeJS.ProcessEnv = { ...process.env, TEND_HOME: home, HOME: dir };
  delete env.TEND_SESSION;
  const viewer = await AttachedTerminal.start(scope, { env, home } as unknown as TestServer, [':early']);
  await waitFor(() => viewer.screen.includes(PAINTED), { what: 'the snapshot that came with the 101 painted', describe: () => JSON.stringify(viewer.screen.slice(0, 200)) });
  assert.equal(viewer.exit, null, 'the attach runs on');
});
