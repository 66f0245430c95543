// `tend attach` (both viewers: the native one and the TypeScript one) and a
// server of another build. The same protocol is no error: the attach works
// and says the server's build once, under its exit line, never over the
// screen — also when the server became another build while it was attached
// (an upgrade under it). A protocol the server cannot speak is: an ERROR
// frame that names both sides' versions and what to do, said in one line,
// and the attach exits non-zero instead of retrying or hanging. The other
// builds are real runnable copies of this tree (test/support/other-build.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { makeOtherBuild } from '../support/other-build.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { cliOf, startTestServer, repoRoot, type TestServer } from '../server/harness.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, PROMPT, newSession, waitForSessionText } from './attach-harness.js';
import { TEND_BUILD, TEND_VERSION } from '../../src/common/version.js';
import { ViewerErrorCode, decodeFrameFromServer, encodeFrameToServer, type FrameFromServer } from '../../src/protocol/viewer-frames.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };
const OTHER_VERSION = '9.0.0';
const OTHER_BUILD = 'test-900';
/** Both viewers, chosen as the launcher chooses (TEND_VIEWER=node: the TypeScript one). */
const VIEWERS = [
  { name: 'native', env: { TEND_VIEWER: '' } },
  { name: 'TypeScript', env: { TEND_VIEWER: 'node' } },
] as const;

/** The line an attach says about a server of another build than its own. */
function otherBuildLine(version: string, build: string): string {
  return `tend: the server is tend ${version} (build ${build}), this is tend ${TEND_VERSION} (build ${TEND_BUILD}): ` +
    '`tend upgrade` moves the server to this build without closing a terminal (`tend server restart` also works)';
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

let scratch: string;
/** A copy of this tree saying version 9.0.0, build test-900. */
let other: string;
/** A copy that speaks viewer protocol 8 and 9 only (none this tree's viewers speak). */
let future: string;

before(() => {
  scratch = makeTempDir('tend-vbuilds-');
  other = makeOtherBuild({ dir: join(scratch, 'other'), version: OTHER_VERSION, build: OTHER_BUILD });
  future = makeOtherBuild({
    dir: join(scratch, 'future'),
    version: '20.0.0',
    build: 'test-future',
    patch: (root) => {
      const file = join(root, 'dist', 'src', 'protocol', 'viewer-frames.js');
      const text = readFileSync(file, 'utf8');
      const patched = text
        .replace(/VIEWER_PROTOCOL_VERSION = \d+;/, 'VIEWER_PROTOCOL_VERSION = 9;')
        .replace(/MIN_VIEWER_PROTOCOL_VERSION = \d+;/, 'MIN_VIEWER_PROTOCOL_VERSION = 8;');
      assert.notEqual(patched, text, 'the copy\'s viewer protocol was patched');
      writeFileSync(file, patched);
    },
  });
});

after(() => removeTempDir(scratch));

/** `tend server start` of the tree at root, for the test server's home. */
async function startServerOf(root: string, server: TestServer): Promise<void> {
  const started = await cliOf(root, server.env, ['server', 'start']);
  assert.equal(started.code, 0, `tend server start (${root}): ${started.stderr}`);
}

/** A test server of another tree's build, started by that tree's CLI, disposed with the scope. */
async function serverOf(scope: TestScope, root: string): Promise<TestServer> {
  const server = startTestServer();
  scope.defer(() => server.dispose());
  await startServerOf(root, server);
  return server;
}

function homeLockPid(server: TestServer): number {
  return (JSON.parse(readFileSync(join(server.home, 'server.lock'), 'utf8')) as { pid: number }).pid;
}

describe('tend attach and a server of another build', () => {
  for (const viewer of VIEWERS) {
    test(`the ${viewer.name} viewer attaches to another build's server, types into it, and says the build once, under its exit line`, T, async (t) => {
      const scope = useTestScope(t);
      const server = await serverOf(scope, other);
      const id = await newSession(server, { argv: BASH });
      await waitForSessionText(server, id, PROMPT);
      const attached = await AttachedTerminal.start(scope, server, [id], { env: viewer.env });
      await attached.waitForServerScreen(server, id);
      attached.type('echo typed-across-builds\r');
      await waitForSessionText(server, id, /^typed-across-builds$/m);
      assert.equal(count(attached.output, 'tend: the server is'), 0, 'nothing is said over the screen');
      attached.type('\x1cd');
      assert.equal((await attached.waitForExit()).code, 0);
      const line = otherBuildLine(OTHER_VERSION, OTHER_BUILD);
      assert.equal(count(attached.output, line), 1, attached.output.slice(-600));
      assert.ok(attached.output.indexOf('[detached from') < attached.output.indexOf(line), 'the line comes after the exit line');
    });

    test(`the ${viewer.name} viewer rides through its server becoming another build and says the new build once when it ends`, T, async (t) => {
      const scope = useTestScope(t);
      const server = startTestServer();
      scope.defer(() => server.dispose());
      await startServerOf(repoRoot, server);
      const id = await newSession(server, { argv: BASH });
      await waitForSessionText(server, id, PROMPT);
      const attached = await AttachedTerminal.start(scope, server, [id], { env: viewer.env });
      await attached.waitForServerScreen(server, id);
      // The attach waits while the server changes build, so that the other build's server is up
      // before the attach notices (else it would start one of its own build).
      process.kill(attached.pid, 'SIGSTOP');
      scope.defer(() => { try { process.kill(attached.pid, 'SIGCONT'); } catch { /* gone */ } });
      const old = homeLockPid(server);
      process.kill(old, 'SIGKILL');
      await waitFor(() => !isProcessAlive(old), { what: 'the server to die' });
      await startServerOf(other, server);
      scope.trackPid(homeLockPid(server));
      process.kill(attached.pid, 'SIGCONT');
      await waitFor(async () => (await server.api<{ viewers: number }>('GET', `/v1/sessions/${id}`)).body.viewers === 1, {
        what: 'the attach back on the other build\'s server',
        timeoutMs: 40_000,
      });
      attached.type('echo back-on-the-other-build\r');
      await waitForSessionText(server, id, /^back-on-the-other-build$/m);
      attached.type('\x1cd');
      assert.equal((await attached.waitForExit()).code, 0);
      assert.equal(count(attached.output, otherBuildLine(OTHER_VERSION, OTHER_BUILD)), 1, attached.output.slice(-600));
      assert.equal(count(attached.output, 'tend: the server is'), 1, 'this build\'s server was not another build');
    });

    test(`the ${viewer.name} viewer meets a server that cannot speak its protocol: one line with both versions and what to do, exit non-zero`, T, async (t) => {
      const scope = useTestScope(t);
      const server = await serverOf(scope, future);
      const id = await newSession(server, { argv: BASH });
      const attached = await AttachedTerminal.start(scope, server, [id], { env: viewer.env, waitForPaint: false });
      const exit = await attached.waitForExit();
      assert.notEqual(exit.code, 0);
      const lines = attached.output.split(/\r?\n/).filter((l) => l.includes('protocol'));
      assert.equal(lines.length, 1, attached.output);
      assert.match(lines[0]!, /^tend: this viewer speaks protocol 2, the server \(tend 20\.0\.0, build test-future\) speaks 8 to 9: the viewer is older; attach with tend 20\.0\.0, the tend that runs this server$/);
      assert.equal(await server.api('GET', `/v1/sessions/${id}`).then((r) => r.status), 200, 'the session is untouched');
    });
  }

  test('a HELLO of a protocol from the future gets ERROR VERSION naming both sides and `tend upgrade`, and the socket is closed', T, async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    scope.defer(() => server.dispose());
    await startServerOf(repoRoot, server);
    const ws = new WebSocket(`ws+unix://${server.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
    scope.own({ dispose: () => ws.terminate() });
    const frames: FrameFromServer[] = [];
    let closed = false;
    ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
    ws.on('close', () => (closed = true));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: 99, clientKind: 'cli', readOnly: false }));
    await waitFor(() => closed, { what: 'the server to close the socket' });
    assert.equal(frames.length, 1);
    const error = frames[0]!;
    assert.ok(error.type === 'error' && error.code === ViewerErrorCode.VERSION);
    assert.equal(
      error.message,
      `this viewer speaks protocol 99, the server (tend ${TEND_VERSION}, build ${TEND_BUILD}) speaks 1 to 2: the viewer is newer; ` +
        `\`tend upgrade\` from the viewer's tend moves the server to it without closing a terminal, or attach with tend ${TEND_VERSION}`,
    );
  });

  test('WELCOME carries the build only to a HELLO that asks: a viewer from before the flag gets the WELCOME it knows', T, async (t) => {
    const scope = useTestScope(t);
    const server = startTestServer();
    scope.defer(() => server.dispose());
    await startServerOf(repoRoot, server);
    const welcomeFor = async (asksBuild: boolean): Promise<Uint8Array> => {
      const ws = new WebSocket(`ws+unix://${server.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
      scope.own({ dispose: () => ws.terminate() });
      const first = new Promise<Uint8Array>((resolve) => ws.once('message', (data: Buffer) => resolve(new Uint8Array(data))));
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: 2, clientKind: 'script', readOnly: true, ...(asksBuild ? { asksBuild } : {}) }));
      return first;
    };
    const asked = decodeFrameFromServer(await welcomeFor(true));
    assert.ok(asked.type === 'welcome');
    assert.equal(asked.serverBuild, TEND_BUILD);
    assert.equal(asked.serverVersion, TEND_VERSION);
    const plain = await welcomeFor(false);
    const decoded = decodeFrameFromServer(plain);
    assert.ok(decoded.type === 'welcome' && decoded.serverBuild === undefined);
    // Exactly the old layout: u16 version, boot, version, and not a byte more (older viewers refuse more).
    const enc = new TextEncoder();
    assert.equal(plain.length, 5 + 2 + 2 + enc.encode(decoded.serverBoot).length + 2 + enc.encode(TEND_VERSION).length);
  });
});
