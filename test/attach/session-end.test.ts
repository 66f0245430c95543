// A session whose program ends sends each viewer the output it still owes
// before EXIT and CLOSED: a viewer that had fallen behind (paused for its
// acks) when the program ended still shows the program's last words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { CloseReason } from '../../src/protocol/viewer-frames.js';
import { ATTACH_TEST_TIMEOUT_MS, RawViewer, newSession, serverFor } from './attach-harness.js';

test('a viewer paused for acks when the program ends is sent the rest of its output, then EXIT and CLOSED', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  // 600 KB of x's (more than a viewer may have unacknowledged), the last words, and code 3.
  const id = await newSession(server, { argv: ['sh', '-c', 'read go; head -c 600000 /dev/zero | tr "\\0" x; echo; echo LAST-WORDS; exit 3'] });
  // A second viewer keeps up: once it is told EXIT, the server has ended the session's viewers.
  const quick = await RawViewer.connect(scope, server);
  quick.autoAck = true;
  quick.subscribe(id);
  await quick.next('snapshot');
  const viewer = await RawViewer.connect(scope, server);
  viewer.subscribe(id);
  const snapshot = await viewer.next('snapshot');
  viewer.send({ type: 'input', channel: 1, data: new TextEncoder().encode('go\n') });
  // The viewer acks nothing: the server stops sending to it at its high-water mark while the program goes on and ends.
  await quick.next('closed');
  assert.match(Buffer.concat(quick.frames.flatMap((f) => (f.type === 'data' ? [Buffer.from(f.data)] : []))).toString('latin1'), /LAST-WORDS\r\n$/);
  const sentWhilePaused = viewer.streamBytes;
  assert.ok(sentWhilePaused < 600_000, `the viewer was paused (${sentWhilePaused} bytes sent)`);
  assert.equal(viewer.frames.some((f) => f.type === 'exit' || f.type === 'closed'), false,
    `no EXIT or CLOSED while output is owed; frames: ${viewer.frames.map((f) => f.type).join(' ')}`);

  // It catches up: acks what it has, and from now on every frame.
  viewer.autoAck = true;
  viewer.send({ type: 'ack', channel: 1, seq: viewer.seq! });
  const closed = await viewer.next('closed');
  assert.equal(closed.reason, CloseReason.SESSION_ENDED);
  const kinds = viewer.frames.map((f) => f.type);
  const exitAt = kinds.indexOf('exit');
  assert.ok(exitAt >= 0 && exitAt === kinds.indexOf('closed') - 1, `EXIT just before CLOSED; frames: ${kinds.join(' ')}`);
  const exit = viewer.frames[exitAt]!;
  assert.ok(exit.type === 'exit' && exit.code === 3);
  // Everything after the snapshot reached it, the last words last.
  const stream = viewer.frames.flatMap((f) => (f.type === 'data' ? [Buffer.from(f.data)] : []));
  const text = Buffer.concat(stream).toString('latin1');
  assert.equal(viewer.seq! - snapshot.seq, text.length, 'the DATA runs on from the snapshot without a gap');
  assert.equal(kinds.lastIndexOf('snapshot'), kinds.indexOf('snapshot'), 'no second snapshot stood in for the output');
  assert.match(text, /LAST-WORDS\r\n$/);
  assert.equal((text.match(/x/g) ?? []).length, 600_000, 'every byte of the flood');
});
