// POST /v1/holders/upgrade through a real server: running holders hand over
// to another build of the holder binary (this tree's sources with one comment
// more, so another build id) while a program writes without pause and a
// viewer watches: the sessions keep their holders' pids and their screens,
// no byte is lost or doubled in the viewer's stream, input sent during the
// upgrade arrives once, and a second upgrade to the same build skips them.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { cliWith, repoRoot, startTestServer, waitFor, isAlive, type TestServer } from '../server/harness.js';
import { TerminalViewerPeer } from '../support/terminal-viewer-peer.js';
import { buildOtherHolder } from '../support/other-holder.js';
import { VIEWER_PROTOCOL_VERSION } from '../../src/protocol/viewer-frames.js';
import type { SessionInfo, UpgradeHoldersReply } from '../../src/protocol/api/index.js';
import { runHolderUpgrade } from '../../src/cli/upgrade/holders.js';
import { Writable } from 'node:stream';

/** A Writable that keeps what is written, as text. */
function textSink(): Writable & { text: string } {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      sink.text += chunk.toString();
      done();
    },
  }) as Writable & { text: string };
  sink.text = '';
  return sink;
}

const TEST_TIMEOUT_MS = 180_000;

/** A script viewer on the server's socket, recording every DATA byte after its snapshot. */
class RecordingViewer {
  readonly peer: TerminalViewerPeer;
  private readonly ws: WebSocket;
  private constructor(ws: WebSocket) {
    this.ws = ws;
    this.peer = new TerminalViewerPeer({ channel: 1, cols: 80, rows: 24, scrollback: 100, sendToServer: (b) => ws.send(b) });
    ws.on('message', (data: Buffer) => this.peer.receive(new Uint8Array(data)));
    ws.on('error', () => undefined);
  }

  static async attach(server: TestServer, sessionId: string): Promise<RecordingViewer> {
    const ws = new WebSocket(`ws+unix://${server.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const viewer = new RecordingViewer(ws);
    viewer.peer.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: false });
    viewer.peer.send({ type: 'subscribe', channel: 1, sessionId, cols: 80, rows: 24 });
    return viewer;
  }

  /** Every DATA frame's bytes, in order, as text. */
  dataText(): string {
    return this.peer.received.flatMap((f) => (f.type === 'data' ? [Buffer.from(f.data).toString('latin1')] : [])).join('');
  }

  closedFrames(): unknown[] {
    return this.peer.received.filter((f) => f.type === 'closed');
  }

  close(): void {
    this.ws.terminate();
    this.peer.dispose();
  }
}

/** The counter's numbers in the order they came; the first may be cut by where the stream began. */
function counted(text: string): number[] {
  return [...text.matchAll(/N(\d+)\r\n/g)].map((m) => Number(m[1]));
}

function assertConsecutive(numbers: number[]): void {
  assert.ok(numbers.length > 200, `only ${numbers.length} numbered lines`);
  // The first whole line after the snapshot may follow a cut one: from the second on, each is one more.
  for (let i = 2; i < numbers.length; i++) {
    if (numbers[i] !== numbers[i - 1]! + 1) assert.fail(`N${numbers[i - 1]} is followed by N${numbers[i]}: lines lost or doubled`);
  }
}

const COUNTER = [
  process.execPath,
  '-e',
  "let n = 0; const tick = () => { let s = ''; for (let i = 0; i < 10; i++) s += 'N' + (n++) + '\\n'; process.stdout.write(s, () => setTimeout(tick, 2)); }; tick();",
];

describe('POST /v1/holders/upgrade', { timeout: TEST_TIMEOUT_MS }, () => {
  let dir = '';
  let otherHolder = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tend-other-holder-'));
    otherHolder = buildOtherHolder(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('running holders hand over to another build: same pids, screens kept, the viewer stream whole, input once; again to the same build skips them', async () => {
    const server = startTestServer();
    let viewer: RecordingViewer | null = null;
    try {
      assert.equal((await server.cli(['server', 'start'])).code, 0);
      const counter = (await server.api<SessionInfo>('POST', '/v1/sessions', { argv: COUNTER, name: 'counter' })).body;
      const shell = (await server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['bash', '--norc', '--noprofile'], name: 'shell', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ' } })).body;
      assert.equal((await server.api('POST', '/v1/sessions/:shell/input', { text: 'echo before-$((6*7))\n' })).status, 200);
      await waitFor('the shell to answer', async () => (await server.api<{ text: string }>('GET', '/v1/sessions/:shell/screen')).body.text.includes('before-42'));
      viewer = await RecordingViewer.attach(server, counter.id);
      await waitFor('the viewer to see the counter', () => counted(viewer!.dataText()).length > 100);

      // Input typed while the holders hand over: it waits, and arrives once.
      const during = server.api('POST', '/v1/sessions/:shell/input', { text: 'echo during-$((6*7))\n' });
      const upgrade = await server.api<UpgradeHoldersReply>('POST', '/v1/holders/upgrade', { holderPath: otherHolder });
      assert.equal(upgrade.status, 200, JSON.stringify(upgrade.body));
      assert.equal((await during).status, 200);
      const reply = upgrade.body;
      assert.equal(reply.holderPath, otherHolder);
      assert.equal(reply.upgraded, 2, JSON.stringify(reply.sessions));
      assert.equal(reply.failed, 0);
      for (const s of reply.sessions) {
        assert.equal(s.result, 'upgraded');
        if (s.result !== 'upgraded') continue;
        assert.notEqual(s.fromBuild, s.toBuild);
        assert.equal(s.toBuild, reply.build);
        assert.ok(s.stallMs >= 0 && s.stallMs < 10_000, `stall ${s.stallMs} ms`);
      }

      // Same holders, same programs, still running.
      const after = (await server.api<SessionInfo[]>('GET', '/v1/sessions')).body;
      for (const before of [counter, shell]) {
        const now = after.find((s) => s.id === before.id)!;
        assert.equal(now.status, 'running');
        assert.equal(now.holderPid, before.holderPid);
        assert.equal(now.pid, before.pid);
        assert.equal(now.generation, before.generation);
        assert.equal(now.degraded, false);
        assert.ok(isAlive(before.holderPid!) && isAlive(before.pid!));
      }

      // The viewer's stream goes on, with no line lost or doubled across the hand-over.
      const seen = counted(viewer.dataText()).length;
      await waitFor('the counter to go on after the hand-over', () => counted(viewer!.dataText()).length > seen + 200);
      assertConsecutive(counted(viewer.dataText()));
      assert.deepEqual(viewer.closedFrames(), []);
      assert.deepEqual(viewer.peer.problems, []);

      // The shell's screen kept what came before, took the input sent during the hand-over once, and answers after it.
      assert.equal((await server.api('POST', '/v1/sessions/:shell/input', { text: 'echo after-$((6*7))\n' })).status, 200);
      const screen = await waitFor('the shell to answer after the hand-over', async () => {
        const text = (await server.api<{ text: string }>('GET', '/v1/sessions/:shell/screen')).body.text;
        return text.includes('after-42') ? text : null;
      });
      assert.match(screen, /before-42/);
      assert.equal(screen.split('during-42').length - 1, 1, screen);

      // Again, to the build they now run: nothing to do.
      const again = await server.api<UpgradeHoldersReply>('POST', '/v1/holders/upgrade', { holderPath: otherHolder, sessions: [':counter'] });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.sessions.map((s) => s.result === 'skipped' && s.reason), ['same-build']);

      // A path that is no holder: refused before any holder is touched.
      const bad = await server.api<{ error: { code: string; message: string } }>('POST', '/v1/holders/upgrade', { holderPath: '/bin/sh' });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /is not a tend-holder that can take over/);
    } finally {
      viewer?.close();
      await server.dispose();
    }
  });

  test('runHolderUpgrade (tend upgrade --holders) says its progress n/N and a summary, or prints the reply with --json', async () => {
    const server = startTestServer();
    try {
      assert.equal((await server.cli(['server', 'start'])).code, 0);
      for (const name of ['one', 'two']) {
        assert.equal((await server.api('POST', '/v1/sessions', { argv: ['sh', '-c', 'exec cat'], name })).status, 201);
      }
      const out = textSink();
      assert.equal(await runHolderUpgrade({ client: server.client, stdout: out, json: false, holderPath: otherHolder }), 0);
      assert.match(out.text, /^holders done 0\/2\nholders done 1\/2\nholders done 2\/2\nholders checked against build \S+: 2 upgraded, 0 left as they were, 0 failed\n/);
      const json = textSink();
      assert.equal(await runHolderUpgrade({ client: server.client, stdout: json, json: true, holderPath: otherHolder }), 0);
      const reply = JSON.parse(json.text) as UpgradeHoldersReply;
      assert.equal(reply.skipped, 2);
      assert.deepEqual(reply.sessions.map((s) => s.result === 'skipped' && s.reason), ['same-build', 'same-build']);
    } finally {
      await server.dispose();
    }
  });

  test('a binary that answers --version as a holder but cannot resume: the holder is gone, the session cold, its viewer told, the reply says so', async () => {
    const server = startTestServer();
    let viewer: RecordingViewer | null = null;
    try {
      const impostor = join(dir, 'impostor-holder');
      writeFileSync(impostor, '#!/bin/sh\nif [ "$1" = --version ]; then echo "tend-holder impostor protocol 3 resume 2-2"; exit 0; fi\nexit 1\n', { mode: 0o755 });
      assert.equal((await server.cli(['server', 'start'])).code, 0);
      const session = (await server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh', '-c', 'echo up; exec cat'] })).body;
      await waitFor('the program', async () => (await server.api<{ text: string }>('GET', `/v1/sessions/${session.id}/screen`)).body.text.includes('up'));
      viewer = await RecordingViewer.attach(server, session.id);
      await waitFor('the viewer\'s snapshot', () => viewer!.peer.received.some((f) => f.type === 'snapshot'));

      const res = await server.api<UpgradeHoldersReply>('POST', '/v1/holders/upgrade', { holderPath: impostor, sessions: [session.id] });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.failed, 1);
      const outcome = res.body.sessions[0]!;
      assert.equal(outcome.result, 'failed');
      assert.match(outcome.result === 'failed' ? outcome.message : '', /the new holder binary did not take over .*; the session is cold$/);
      assert.equal((await server.api<SessionInfo>('GET', `/v1/sessions/${session.id}`)).body.status, 'cold');
      await waitFor('the viewer to be told the session ended', () => viewer!.closedFrames().length === 1);
      assert.match(readFileSync(server.client.paths.serverLog, 'utf8'), new RegExp(`session ${session.id}: the new holder binary did not take over .*; the session is cold`));
    } finally {
      viewer?.close();
      await server.dispose();
    }
  });

  test('a server started with TEND_UPGRADE_HOLDERS=1 hands every running holder over after recovery', async () => {
    const server = startTestServer();
    try {
      assert.equal((await server.cli(['server', 'start'])).code, 0);
      const session = (await server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['sh', '-c', 'echo up; exec cat'] })).body;
      await waitFor('the program', async () => (await server.api<{ text: string }>('GET', `/v1/sessions/${session.id}/screen`)).body.text.includes('up'));
      assert.equal((await server.cli(['server', 'stop'])).code, 0);
      // The next server starts holders with the other build, and is asked to upgrade those running.
      const env = { ...server.env, TEND_HOLDER: otherHolder, TEND_UPGRADE_HOLDERS: '1' };
      assert.equal((await cliWith(env, ['server', 'start'])).code, 0);
      const build = execFileSync(otherHolder, ['--version'], { encoding: 'utf8' }).split(' ')[1];
      const log = await waitFor('the server to log the upgrade', () => {
        const text = readFileSync(server.client.paths.serverLog, 'utf8');
        return text.includes('TEND_UPGRADE_HOLDERS: holders upgraded') ? text : null;
      }, 30_000, 100);
      assert.match(log, new RegExp(`TEND_UPGRADE_HOLDERS: holders upgraded to build ${build}: 1 upgraded, 0 skipped, 0 failed`));
      // Asked again for this server's own holder binary: skipped, as the holder already runs it.
      const res = await server.api<UpgradeHoldersReply>('POST', '/v1/holders/upgrade', { sessions: [session.id] });
      assert.equal(res.body.build, build);
      assert.deepEqual(res.body.sessions.map((s) => s.result === 'skipped' && s.reason), ['same-build']);
      const now = (await server.api<SessionInfo>('GET', `/v1/sessions/${session.id}`)).body;
      assert.equal(now.status, 'running');
      assert.equal(now.holderPid, session.holderPid);
      assert.equal((await server.api('POST', `/v1/sessions/${session.id}/input`, { text: 'typed-after\n' })).status, 200);
      await waitFor('the echo', async () => (await server.api<{ text: string }>('GET', `/v1/sessions/${session.id}/screen`)).body.text.includes('typed-after'));
    } finally {
      await server.dispose();
    }
  });
});

