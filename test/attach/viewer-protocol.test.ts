// The protocol's rules as a real client sees them through a real server:
// a stalled viewer, replay vs snapshot on resume, and bad acks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CloseReason, FrameType, ViewerErrorCode, encodeFrameToServer } from '../../src/protocol/viewer-frames.js';
import { HIGH_WATER_BYTES, REPLAY_MAX_BYTES } from '../../src/server/viewers/flow-limits.js';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, PROMPT, RawViewer, newSession, serverFor, waitForSessionText } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

describe('viewer protocol through a real server', () => {
  test('a viewer that never acks slows neither the program nor another viewer', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const stalled = await RawViewer.connect(scope, server);
    stalled.subscribe(id);
    await stalled.next('snapshot');
    const viewer = await AttachedTerminal.start(scope, server, [id]);
    await viewer.waitForServerScreen(server, id);
    // About 1.3 MB of output, five times what the stalled viewer may be owed.
    viewer.type('seq 1 200000; echo big-output-done\r');
    await waitForSessionText(server, id, /^big-output-done$/m, 60_000);
    await viewer.waitForServerScreen(server, id, 60_000);
    assert.match(viewer.screen, /^200000$/m);
    // The stalled one was sent no more than the high-water mark allows.
    assert.ok(stalled.streamBytes <= HIGH_WATER_BYTES, `stalled viewer got ${stalled.streamBytes} bytes`);
    assert.equal(stalled.closed, null);
  });

  test('resume: a small debt is replayed; a large one, a seq ahead, or another stream gets a snapshot', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const first = await RawViewer.connect(scope, server);
    first.autoAck = true;
    first.subscribe(id);
    const snap = await first.next('snapshot');
    // A seq belongs to the session's stream (its holder's generation), which the SNAPSHOT names.
    const boot = snap.boot;
    assert.notEqual(boot, first.boot, 'the stream is the holder\'s, not the server boot');
    first.close();

    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo small-debt\r' });
    await waitForSessionText(server, id, /^small-debt$/m);
    const replayed = await RawViewer.connect(scope, server);
    replayed.autoAck = true;
    replayed.subscribe(id, { resume: { boot, seq: snap.seq } });
    const data = await replayed.next('data');
    assert.equal(replayed.frames.some((f) => f.type === 'snapshot'), false, 'a small debt is replayed, not repainted');
    assert.equal(data.seq - data.data.length, snap.seq, 'the replay starts exactly at the resume seq');
    await waitFor(() => Buffer.concat(replayed.frames.flatMap((f) => (f.type === 'data' ? [f.data] : []))).includes('small-debt'));
    const resumeAt = replayed.seq!;
    replayed.close();

    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'seq 1 30000; echo large-debt\r' });
    await waitForSessionText(server, id, /^large-debt$/m);
    const owed = await RawViewer.connect(scope, server);
    owed.subscribe(id, { resume: { boot, seq: resumeAt } });
    assert.ok((await owed.next('snapshot')).seq - resumeAt > REPLAY_MAX_BYTES);

    const ahead = await RawViewer.connect(scope, server);
    ahead.subscribe(id, { resume: { boot, seq: resumeAt + 1e12 } });
    await ahead.next('snapshot');
    const otherBoot = await RawViewer.connect(scope, server);
    otherBoot.subscribe(id, { resume: { boot: 'another-boot', seq: resumeAt } });
    await otherBoot.next('snapshot');
  });

  test('an ack from the future or going back closes that viewer only and trims nothing', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const good = await RawViewer.connect(scope, server);
    good.autoAck = true;
    good.subscribe(id);
    await good.next('snapshot');

    const future = await RawViewer.connect(scope, server);
    future.subscribe(id);
    const snap = await future.next('snapshot');
    future.send({ type: 'ack', channel: 1, seq: snap.seq });
    future.send({ type: 'ack', channel: 1, seq: snap.seq + 1_000_000 });
    const err = await future.next('error');
    assert.equal(err.code, ViewerErrorCode.BAD_ACK);
    assert.equal((await future.next('closed')).reason, CloseReason.PROTOCOL_VIOLATION);
    // Only the channel ended: the socket may subscribe again.
    const before = future.frames.length;
    future.subscribe(id, { channel: 2 });
    await future.next('snapshot', before);
    assert.equal(future.closed, null);

    const back = await RawViewer.connect(scope, server);
    back.subscribe(id);
    const backSnap = await back.next('snapshot');
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo more-output\r' });
    await waitFor(() => back.seq !== null && back.seq > backSnap.seq);
    back.send({ type: 'ack', channel: 1, seq: back.seq! });
    back.send({ type: 'ack', channel: 1, seq: backSnap.seq });
    assert.equal((await back.next('error')).code, ViewerErrorCode.BAD_ACK);
    assert.equal((await back.next('closed')).reason, CloseReason.PROTOCOL_VIOLATION);

    // The future ack trimmed nothing: a resume from before it is still replayed.
    const resumed = await RawViewer.connect(scope, server);
    resumed.subscribe(id, { resume: { boot: snap.boot, seq: snap.seq } });
    const replay = await resumed.next('data');
    assert.equal(replay.seq - replay.data.length, snap.seq);
    // And the well-behaved viewer saw all of it and is still subscribed.
    await waitFor(() => Buffer.concat(good.frames.flatMap((f) => (f.type === 'data' ? [f.data] : []))).includes('more-output'));
    assert.equal(good.frames.some((f) => f.type === 'closed'), false);
  });

  test('an ack past 2^53 (a negative number on the wire) closes that socket only; fractions cannot be sent', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const good = await RawViewer.connect(scope, server);
    good.autoAck = true;
    good.subscribe(id);
    await good.next('snapshot');
    const bad = await RawViewer.connect(scope, server);
    bad.subscribe(id);
    await bad.next('snapshot');
    // ACK on channel 1 with seq 0xffff_ffff_ffff_ffff: -1 as a two's-complement u64.
    const frame = new Uint8Array(13);
    frame[0] = FrameType.ACK;
    new DataView(frame.buffer).setUint32(1, 1, true);
    frame.fill(0xff, 5);
    bad.sendRaw(frame);
    assert.equal((await bad.next('error')).code, ViewerErrorCode.BAD_PAYLOAD);
    await waitFor(() => bad.closed, { what: 'the bad socket to be closed' });
    assert.throws(() => encodeFrameToServer({ type: 'ack', channel: 1, seq: 1.5 }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
    assert.throws(() => encodeFrameToServer({ type: 'ack', channel: 1, seq: -1 }), { code: 'TEND_ERR_FRAME_BAD_FIELD' });
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo others-go-on\r' });
    await waitFor(() => Buffer.concat(good.frames.flatMap((f) => (f.type === 'data' ? [f.data] : []))).includes('others-go-on'));
    assert.equal(good.closed, null);
  });
});
