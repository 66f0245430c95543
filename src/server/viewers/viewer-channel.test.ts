import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CloseReason,
  ViewerErrorCode,
  decodeFrameFromServer,
  encodeFrameToViewer,
  type ClientKind,
  type FrameFromServer,
} from '../../protocol/viewer-frames.js';
import { DEFAULT_FLOW_LIMITS, REPLAY_MAX_BYTES } from './flow-limits.js';
import { OutputLog } from './output-log.js';
import { SessionViewers } from './session-viewers.js';
import { ViewerChannel, type Snapshot, type SnapshotRequest } from './viewer-channel.js';
import { DEFAULT_MODES as modes, SteppedTimers, settle } from '../../../test/support/viewer-test-fixture.js';

const KiB = 1024;
const BOOT = 'boot-A';

/** What one viewer received, through the real codec. */
class Inbox {
  readonly frames: FrameFromServer[] = [];
  readonly send = (frame: FrameFromServer) => this.frames.push(decodeFrameFromServer(encodeFrameToViewer(frame)));
  of<T extends FrameFromServer['type']>(type: T): Array<Extract<FrameFromServer, { type: T }>> {
    return this.frames.filter((f): f is Extract<FrameFromServer, { type: T }> => f.type === type);
  }
  dataBytes(): number {
    return this.of('data').reduce((n, f) => n + f.data.length, 0);
  }
  lastSeq(): number | undefined {
    const seqs = this.frames.flatMap((f) => (f.type === 'data' || f.type === 'snapshot' ? [f.seq] : []));
    return seqs[seqs.length - 1];
  }
}

function filler(n: number, byte = 0x61): Uint8Array {
  return new Uint8Array(n).fill(byte);
}

function channelRig(options: { baseSeq?: number; capBytes?: number; degraded?: boolean } = {}) {
  const log = new OutputLog({ baseSeq: options.baseSeq ?? 10_000, capBytes: options.capBytes });
  const timers = new SteppedTimers();
  const inbox = new Inbox();
  const snapshotRequests: number[] = [];
  const screenOnlyRequests: boolean[] = [];
  const takeSnapshot = ({ atLeastSeq, screenOnly }: SnapshotRequest): Snapshot => {
    snapshotRequests.push(atLeastSeq);
    screenOnlyRequests.push(screenOnly === true);
    return { seq: log.endSeq, cols: 80, rows: 24, modes, data: `screen@${log.endSeq}`, title: 'sh', ...(options.degraded ? { degraded: true } : {}) };
  };
  const closed: string[] = [];
  const channel = new ViewerChannel({
    channel: 5,
    stream: BOOT,
    log,
    send: inbox.send,
    takeSnapshot,
    timers,
    onClosed: (_reason, message) => closed.push(message),
  });
  return { log, timers, inbox, channel, snapshotRequests, screenOnlyRequests, closed };
}

describe('ViewerChannel: replay or snapshot on subscribe', () => {
  test('replays only the bytes after the viewer seq when it owes 64 KiB or less', () => {
    const { log, inbox, channel } = channelRig();
    log.append(filler(1000, 0x41));
    const seq = log.endSeq;
    log.append(filler(64 * KiB - 10, 0x42));
    channel.start({ boot: BOOT, seq });
    assert.deepEqual(channel.startDecision, { mode: 'replay', fromSeq: seq });
    assert.equal(inbox.of('snapshot').length, 0);
    const data = inbox.of('data');
    assert.equal(inbox.dataBytes(), 64 * KiB - 10);
    assert.ok(data.every((f) => f.data.every((b) => b === 0x42)), 'only bytes after the seq');
    assert.equal(data[0]!.seq - data[0]!.data.length, seq, 'the first frame starts at the viewer seq');
    assert.equal(inbox.lastSeq(), log.endSeq);
  });

  test('a viewer owing more than 64 KiB gets one snapshot carrying the seq it was rendered at', async () => {
    const { log, inbox, channel } = channelRig();
    const seq = log.endSeq;
    log.append(filler(64 * KiB + 1));
    channel.start({ boot: BOOT, seq });
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'snapshot', reason: 'owes-too-much' });
    const snaps = inbox.of('snapshot');
    assert.equal(snaps.length, 1);
    assert.equal(snaps[0]!.seq, log.endSeq);
    assert.equal(snaps[0]!.data, `screen@${log.endSeq}`);
    assert.equal(snaps[0]!.boot, BOOT);
    assert.equal(inbox.dataBytes(), 0);
    assert.deepEqual(inbox.of('title').map((f) => f.title), ['sh'], 'the title follows the snapshot');
  });

  test('a seq from another stream gets a snapshot', async () => {
    const { log, inbox, channel } = channelRig();
    log.append(filler(10));
    channel.start({ boot: 'boot-OLD', seq: log.startSeq });
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'snapshot', reason: 'other-stream' });
    assert.equal(inbox.of('snapshot').length, 1);
    assert.equal(inbox.dataBytes(), 0);
  });

  test('a seq ahead of the server gets a snapshot', async () => {
    const { log, inbox, channel } = channelRig();
    log.append(filler(10));
    channel.start({ boot: BOOT, seq: log.endSeq + 1 });
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'snapshot', reason: 'ahead' });
    assert.equal(inbox.of('snapshot')[0]!.seq, log.endSeq);
  });

  test('a seq trimmed away gets a snapshot', async () => {
    const { log, inbox, channel } = channelRig({ capBytes: 100 });
    const seq = log.endSeq;
    log.append(filler(150));
    channel.start({ boot: BOOT, seq });
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'snapshot', reason: 'too-old' });
    assert.equal(inbox.of('snapshot').length, 1);
  });

  test('a first subscribe without a resume point gets a snapshot, then live output from its seq', async () => {
    const { log, inbox, channel } = channelRig();
    log.append(filler(300));
    channel.start();
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'snapshot', reason: 'no-resume' });
    log.append(filler(5, 0x7a));
    channel.outputAppended();
    const data = inbox.of('data');
    assert.equal(data.length, 1);
    assert.equal(data[0]!.seq, inbox.of('snapshot')[0]!.seq + 5);
  });

  test('a resume owing nothing is confirmed with an empty DATA at the viewer seq', () => {
    const { log, inbox, channel } = channelRig();
    log.append(filler(100));
    channel.start({ boot: BOOT, seq: log.endSeq });
    assert.equal(inbox.frames.length, 1);
    assert.deepEqual(inbox.frames[0], { type: 'data', channel: 5, seq: log.endSeq, data: new Uint8Array(0) });
  });
});

describe('ViewerChannel: batching', () => {
  test('chunks of 512 B or less go at once', () => {
    const { log, inbox, channel } = channelRig();
    channel.start({ boot: BOOT, seq: log.endSeq });
    inbox.frames.length = 0;
    log.append(filler(1));
    channel.outputAppended();
    log.append(filler(512));
    channel.outputAppended();
    assert.deepEqual(inbox.of('data').map((f) => f.data.length), [1, 512]);
  });

  test('a larger chunk waits a few ms and goes with what follows, in one frame', () => {
    const { log, inbox, channel, timers } = channelRig();
    channel.start({ boot: BOOT, seq: log.endSeq });
    inbox.frames.length = 0;
    log.append(filler(600));
    channel.outputAppended();
    log.append(filler(3)); // a small chunk joins the waiting batch
    channel.outputAppended();
    assert.equal(inbox.of('data').length, 0);
    timers.advance(3);
    assert.equal(inbox.of('data').length, 0, 'not before the coalescing delay');
    timers.advance(1);
    assert.deepEqual(inbox.of('data').map((f) => f.data.length), [603]);
  });

  test('a flood goes out in frames of at most 64 KiB, the whole frames at once', () => {
    const { log, inbox, channel, timers } = channelRig();
    channel.start({ boot: BOOT, seq: log.endSeq });
    inbox.frames.length = 0;
    log.append(filler(200 * KiB));
    channel.outputAppended();
    assert.deepEqual(inbox.of('data').map((f) => f.data.length), [64 * KiB, 64 * KiB, 64 * KiB]);
    timers.advance(4);
    assert.deepEqual(inbox.of('data').map((f) => f.data.length), [64 * KiB, 64 * KiB, 64 * KiB, 8 * KiB]);
    assert.equal(inbox.lastSeq(), log.endSeq);
  });

  test('a viewer that keeps its own history and resumes too late gets the screen alone', async () => {
    const { log, inbox, channel, screenOnlyRequests } = channelRig();
    const seq = log.endSeq;
    log.append(filler(64 * KiB + 1));
    channel.start({ boot: BOOT, seq }, { keepsHistory: true });
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'snapshot', reason: 'owes-too-much' });
    assert.deepEqual(screenOnlyRequests, [true]);
    assert.equal(inbox.of('snapshot').length, 1);
  });

  test('a first subscribe gets its scrollback; a viewer that holds the history gets the screen alone, even with no position', async () => {
    const first = channelRig();
    first.channel.start();
    const holding = channelRig();
    holding.channel.start(undefined, { keepsHistory: true });
    await settle();
    assert.deepEqual(first.screenOnlyRequests, [false]);
    assert.deepEqual(holding.screenOnlyRequests, [true]);
  });

  test('a repaint resume replays what was missed, then sends a screen-only snapshot at the end of it', async () => {
    const { log, inbox, channel, screenOnlyRequests } = channelRig();
    const seq = log.endSeq;
    log.append(filler(3000, 0x43));
    channel.start({ boot: BOOT, seq }, { keepsHistory: true, repaint: true });
    await settle();
    assert.deepEqual(channel.startDecision, { mode: 'replay', fromSeq: seq });
    const types = inbox.frames.filter((f) => f.type === 'data' || f.type === 'snapshot').map((f) => f.type);
    assert.deepEqual(types, ['data', 'snapshot'], 'the replay first, then the repaint');
    assert.equal(inbox.dataBytes(), 3000);
    assert.equal(inbox.of('snapshot')[0]!.seq, log.endSeq);
    assert.deepEqual(screenOnlyRequests, [true]);
    assert.equal(channel.lastSnapshotReason, 'repaint');
  });

  test('a snapshot of a screen missing bytes is followed by STATE degraded', async () => {
    const { inbox, channel } = channelRig({ degraded: true });
    channel.start();
    await settle();
    assert.deepEqual(inbox.of('state').map((f) => f.state), [{ degraded: true }]);
  });

  test('coalesced output arrives on the real clock too', async () => {
    const log = new OutputLog({ baseSeq: 0 });
    const inbox = new Inbox();
    const channel = new ViewerChannel({
      channel: 1,
      stream: BOOT,
      log,
      send: inbox.send,
      takeSnapshot: () => ({ seq: log.endSeq, cols: 80, rows: 24, modes, data: '' }),
    });
    channel.start({ boot: BOOT, seq: 0 });
    inbox.frames.length = 0;
    log.append(filler(5000));
    channel.outputAppended();
    while (inbox.dataBytes() < 5000) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.deepEqual(inbox.of('data').map((f) => f.data.length), [5000]);
    channel.dispose();
  });

  test('dispose cancels a waiting batch', () => {
    const { log, inbox, channel, timers } = channelRig();
    channel.start({ boot: BOOT, seq: log.endSeq });
    log.append(filler(600));
    channel.outputAppended();
    assert.equal(timers.waiting, 1);
    channel.dispose();
    assert.equal(timers.waiting, 0);
    timers.advance(10);
    assert.equal(inbox.dataBytes(), 0);
  });
});

describe('ViewerChannel: acks', () => {
  function streaming() {
    const rig = channelRig();
    rig.channel.start({ boot: BOOT, seq: rig.log.endSeq });
    rig.log.append(filler(100));
    rig.channel.outputAppended();
    return { ...rig, sent: rig.log.endSeq };
  }

  test('a valid ack is accepted, and repeating it is fine', () => {
    const { channel, sent } = streaming();
    assert.equal(channel.ack(sent - 50), true);
    assert.equal(channel.ack(sent - 50), true);
    assert.equal(channel.ack(sent), true);
    assert.equal(channel.unackedBytes, 0);
  });

  for (const [name, bad] of [
    ['an ack from the future', (sent: number) => sent + 1],
    ['a negative ack', () => -1],
    ['a non-integer ack', (sent: number) => sent - 0.5],
    ['an unsafe ack', () => 2 ** 53],
  ] as const) {
    test(`${name} closes that viewer with an ERROR`, () => {
      const { channel, sent, inbox, closed } = streaming();
      assert.equal(channel.ack(bad(sent)), false);
      assert.equal(channel.isClosed, true);
      const err = inbox.of('error')[0]!;
      assert.equal(err.code, ViewerErrorCode.BAD_ACK);
      assert.equal(inbox.of('closed')[0]!.reason, CloseReason.PROTOCOL_VIOLATION);
      assert.equal(closed.length, 1);
    });
  }

  test('a decreasing ack closes that viewer', () => {
    const { channel, sent, inbox } = streaming();
    channel.ack(sent);
    assert.equal(channel.ack(sent - 1), false);
    assert.match(inbox.of('error')[0]!.message, /goes back/);
  });

  test('an ack before anything was sent closes that viewer', async () => {
    const rig = channelRig();
    const slow = new ViewerChannel({
      channel: 2,
      stream: BOOT,
      log: rig.log,
      send: rig.inbox.send,
      takeSnapshot: () => new Promise<Snapshot>(() => {}), // never renders
      timers: rig.timers,
    });
    slow.start();
    assert.equal(slow.ack(rig.log.endSeq), false);
    assert.match(rig.inbox.of('error')[0]!.message, /before anything was sent/);
  });
});

/** A session with viewers that ack as soon as a frame arrives (or not at all). */
function sessionRig(options: { logCapBytes?: number } = {}) {
  const timers = new SteppedTimers();
  let screenSeq = 0;
  const inputs: Uint8Array[] = [];
  const sizes: string[] = [];
  const session = new SessionViewers({
    boot: BOOT,
    baseSeq: 5_000,
    logCapBytes: options.logCapBytes,
    timers,
    takeSnapshot: () => ({ seq: screenSeq, cols: 80, rows: 24, modes, data: `screen@${screenSeq}` }),
    writeInput: (data) => inputs.push(data),
    writeInputAt: () => Promise.reject(new Error('these viewers type with INPUT')),
    resizePty: (s) => sizes.push(`${s.cols}x${s.rows}`),
  });
  screenSeq = session.log.endSeq;
  const append = (bytes: Uint8Array) => {
    screenSeq = session.append(bytes);
  };
  const viewer = (channel: number, opts: { acking: boolean; readOnly?: boolean; cols?: number; kind?: ClientKind }) => {
    const inbox = new Inbox();
    let acking = opts.acking;
    let ch: ViewerChannel | undefined;
    const pending: number[] = [];
    const send = (frame: FrameFromServer) => {
      inbox.send(frame);
      const last = inbox.frames[inbox.frames.length - 1]!;
      if (last.type === 'data' || last.type === 'snapshot') {
        // Acks arrive later, as from a socket: never inside the send call.
        pending.push(last.seq);
        queueMicrotask(() => flush());
      }
    };
    const flush = () => {
      if (!acking || !ch || ch.isClosed) return;
      const seq = pending[pending.length - 1];
      pending.length = 0;
      if (seq !== undefined) session.ack(ch, seq);
    };
    ch = session.attach({ channel, send, readOnly: opts.readOnly ?? false, clientKind: opts.kind, cols: opts.cols ?? 80, rows: 24, resume: { boot: BOOT, seq: session.log.endSeq } });
    return {
      inbox,
      channel: ch,
      stall: () => (acking = false),
      resume: () => {
        acking = true;
        flush();
      },
    };
  };
  return { session, timers, append, viewer, inputs, sizes };
}

describe('SessionViewers: one slow viewer degrades alone', () => {
  test('a stalled viewer stops receiving at 256 KiB while another keeps up', async () => {
    const { session, append, viewer, timers } = sessionRig({ logCapBytes: 4 * 1024 * KiB });
    const quick = viewer(1, { acking: true });
    const stalled = viewer(2, { acking: false });
    for (let i = 0; i < 256; i++) {
      append(filler(4 * KiB));
      timers.advance(4);
      await settle();
    }
    assert.equal(quick.inbox.dataBytes(), 1024 * KiB, 'the quick viewer has everything');
    assert.equal(stalled.inbox.dataBytes(), 256 * KiB, 'the stalled one stopped at the high-water mark');
    assert.equal(stalled.channel.paused, true);
    assert.equal(quick.channel.paused, false);
    assert.equal(session.log.startSeq, stalled.channel.ackedSeq, 'the log keeps what the stalled viewer lacks');
  });

  test('a paused viewer resumes below 16 KiB unacknowledged, not before', async () => {
    const { append, viewer, timers } = sessionRig();
    const v = viewer(1, { acking: false });
    append(filler(300 * KiB));
    timers.advance(4);
    assert.equal(v.inbox.dataBytes(), 256 * KiB);
    const first = v.channel.sentSeq!;
    // Ack all but 16 KiB: still paused.
    v.channel.ack(first - 16 * KiB);
    assert.equal(v.channel.paused, true);
    assert.equal(v.inbox.dataBytes(), 256 * KiB);
    v.channel.ack(first - 16 * KiB + 1);
    assert.equal(v.channel.paused, false);
    assert.equal(v.inbox.dataBytes(), 300 * KiB, 'the rest is replayed from the log');
    assert.equal(v.inbox.of('snapshot').length, 0);
  });

  test('a viewer that fell too far behind while paused gets a fresh snapshot, not an endless replay', async () => {
    const { append, viewer, timers, session } = sessionRig();
    const v = viewer(1, { acking: false });
    for (let i = 0; i < 200; i++) append(filler(4 * KiB));
    timers.advance(4);
    assert.equal(v.inbox.dataBytes(), 256 * KiB);
    v.resume();
    await settle();
    await settle();
    assert.equal(v.channel.lastSnapshotReason, 'lagging');
    const snap = v.inbox.of('snapshot');
    assert.equal(snap.length, 1);
    assert.equal(snap[0]!.seq, session.log.endSeq);
    assert.equal(v.inbox.dataBytes(), 256 * KiB, 'nothing of the backlog was replayed');
    // ...and it streams live again from the snapshot's seq.
    append(filler(10));
    await settle();
    assert.equal(v.inbox.lastSeq(), session.log.endSeq);
  });

  test('the log is trimmed to the lowest ack across attached viewers', async () => {
    const { session, append, viewer } = sessionRig();
    const a = viewer(1, { acking: true });
    const b = viewer(2, { acking: false });
    const start = session.log.endSeq;
    append(filler(100));
    await settle();
    assert.equal(session.log.startSeq, start, 'b has acked nothing');
    session.ack(b.channel, start + 40);
    assert.equal(session.log.startSeq, start + 40);
    session.detach(b.channel);
    assert.equal(session.log.startSeq, a.channel.ackedSeq, 'with b gone, a alone decides');
  });

  test('an ack from the future closes that viewer and trims nothing', async () => {
    const { session, append, viewer } = sessionRig();
    const good = viewer(1, { acking: false });
    const bad = viewer(2, { acking: false });
    const start = session.log.endSeq;
    append(filler(100));
    session.ack(bad.channel, start + 1_000_000);
    assert.equal(bad.channel.isClosed, true);
    assert.equal(session.viewerCount, 1);
    assert.equal(session.log.startSeq, start, 'the log still holds what the good viewer lacks');
    assert.equal(good.channel.isClosed, false);
    append(filler(10));
    assert.equal(good.inbox.dataBytes(), 110, 'the other viewer carries on');
    assert.equal(bad.inbox.of('error')[0]!.code, ViewerErrorCode.BAD_ACK);
  });

  test('a read-only viewer cannot type and never sets the size', () => {
    const { session, viewer, inputs, sizes } = sessionRig();
    const w = viewer(1, { acking: true, cols: 80 });
    const r = viewer(2, { acking: true, readOnly: true, cols: 132 });
    session.input(r.channel, new Uint8Array([0x61]));
    session.resize(r.channel, { cols: 50, rows: 10 });
    session.input(w.channel, new Uint8Array([0x62]));
    assert.deepEqual(inputs, [new Uint8Array([0x62])]);
    assert.deepEqual(sizes, ['80x24']);
    assert.equal(r.inbox.of('error')[0]!.code, ViewerErrorCode.READ_ONLY);
  });

  test('a size change reaches every viewer as RESIZE', () => {
    const { session, viewer, sizes } = sessionRig();
    const a = viewer(1, { acking: true, cols: 80, kind: 'cli' });
    const b = viewer(2, { acking: true, cols: 100, kind: 'cli' });
    session.resize(a.channel, { cols: 90, rows: 30 });
    // b opened beside a: it does not take the size (size-policy.ts), a's resize does.
    assert.deepEqual(sizes, ['80x24', '90x30']);
    assert.deepEqual(b.inbox.of('resize').at(-1), { type: 'resize', channel: 2, cols: 90, rows: 30 });
    assert.deepEqual(a.inbox.of('resize').at(-1), { type: 'resize', channel: 1, cols: 90, rows: 30 });
  });

  test('closing the session sends CLOSED to every viewer and releases them', () => {
    const { session, viewer } = sessionRig();
    const a = viewer(1, { acking: true });
    const b = viewer(2, { acking: true });
    session.closeAll(CloseReason.SESSION_ENDED, 'exited');
    assert.equal(session.viewerCount, 0);
    for (const v of [a, b]) {
      assert.equal(v.inbox.of('closed')[0]!.reason, CloseReason.SESSION_ENDED);
      assert.equal(v.channel.isClosed, true);
    }
  });
});

describe('SessionViewers: a session that ends sends each viewer its last output, then EXIT, then CLOSED', () => {
  const exitFrame = (channel: number): FrameFromServer => ({ type: 'exit', channel, code: 3, signal: 0 });
  const kinds = (inbox: Inbox) => inbox.frames.map((f) => f.type).filter((t) => t !== 'title');

  test('a viewer paused for acks is sent the rest as it acks, and only then EXIT and CLOSED', async () => {
    const { session, append, viewer, timers } = sessionRig();
    const v = viewer(1, { acking: false });
    append(filler(300 * KiB, 0x41));
    append(Uint8Array.from([0x62, 0x79, 0x65])); // the program's last word: "bye"
    timers.advance(4);
    assert.equal(v.channel.paused, true);
    session.endAll(exitFrame, CloseReason.SESSION_ENDED, 'the program exited');
    assert.equal(v.inbox.of('exit').length, 0, 'no EXIT while output is owed');
    assert.equal(v.channel.isClosed, false);
    v.resume();
    await settle();
    await settle();
    assert.equal(v.inbox.dataBytes(), 300 * KiB + 3, 'every byte reached the viewer');
    const last = v.inbox.of('data').at(-1)!;
    assert.deepEqual([...last.data.subarray(-3)], [0x62, 0x79, 0x65]);
    assert.deepEqual(kinds(v.inbox).slice(-2), ['exit', 'closed'], 'EXIT, then CLOSED, after the last DATA');
    assert.equal(v.inbox.of('closed')[0]!.reason, CloseReason.SESSION_ENDED);
    assert.equal(session.viewerCount, 0, 'the viewer is released');
  });

  test('output being coalesced goes at once, before EXIT', () => {
    const { session, append, viewer } = sessionRig();
    const v = viewer(1, { acking: true });
    append(filler(2 * KiB)); // more than an echo: it would wait a few ms for company
    assert.equal(v.inbox.dataBytes(), 0);
    session.endAll(exitFrame, CloseReason.SESSION_ENDED, 'the program exited');
    assert.equal(v.inbox.dataBytes(), 2 * KiB);
    // (the first DATA is empty: it confirmed the viewer's resume point)
    assert.deepEqual(kinds(v.inbox), ['data', 'data', 'exit', 'closed']);
  });

  test('a viewer whose snapshot is being rendered gets it, then EXIT', async () => {
    let release!: () => void;
    const rendered = new Promise<void>((resolve) => (release = resolve));
    const inbox = new Inbox();
    const session: SessionViewers = new SessionViewers({
      boot: BOOT,
      baseSeq: 5_000,
      timers: new SteppedTimers(),
      takeSnapshot: async (): Promise<Snapshot> => {
        await rendered;
        return { seq: session.log.endSeq, cols: 80, rows: 24, modes, data: 'the last screen' };
      },
      writeInput: () => undefined,
      writeInputAt: () => Promise.reject(new Error('no input here')),
      resizePty: () => undefined,
    });
    session.append(filler(10));
    session.attach({ channel: 1, send: inbox.send, readOnly: false, cols: 80, rows: 24 });
    session.endAll(exitFrame, CloseReason.SESSION_ENDED, 'the program exited');
    await settle();
    assert.equal(inbox.frames.length, 0, 'nothing before the snapshot');
    release();
    await settle();
    assert.deepEqual(kinds(inbox), ['snapshot', 'exit', 'closed']);
    assert.equal(inbox.of('snapshot')[0]!.data, 'the last screen');
  });

  /** A viewer that acks nothing, paused with output owed, when the session ends. */
  const endedWhilePaused = () => {
    const { session, append, viewer, timers } = sessionRig();
    const v = viewer(1, { acking: false });
    append(filler(300 * KiB));
    timers.advance(4);
    session.endAll(exitFrame, CloseReason.SESSION_ENDED, 'the program exited');
    return { session, v, timers };
  };

  test('a viewer that takes nothing more is closed after the drain limit, with EXIT', () => {
    const { session, v, timers } = endedWhilePaused();
    timers.advance(DEFAULT_FLOW_LIMITS.endDrainMaxMs - 1);
    assert.equal(v.channel.isClosed, false);
    timers.advance(1);
    assert.equal(v.channel.isClosed, true);
    assert.deepEqual(kinds(v.inbox).slice(-2), ['exit', 'closed']);
    assert.equal(session.viewerCount, 0);
  });

  test('a server that stops meanwhile closes an ending viewer at once', () => {
    const { session, v, timers } = endedWhilePaused();
    session.closeAll(CloseReason.SERVER_SHUTDOWN, 'the server is stopping');
    assert.equal(v.channel.isClosed, true);
    assert.equal(v.inbox.of('closed')[0]!.reason, CloseReason.SERVER_SHUTDOWN);
    assert.equal(timers.waiting, 0, 'no timer is left behind');
  });
});

describe('SessionViewers: the log keeps what the screen has not parsed', () => {
  function parseLagRig() {
    let parsed = 0;
    const timers = new SteppedTimers();
    const session = new SessionViewers({
      boot: BOOT,
      baseSeq: 10_000,
      timers,
      // The screen lags the log: it has parsed only up to `parsed`.
      takeSnapshot: () => ({ seq: parsed, cols: 80, rows: 24, modes, data: `screen@${parsed}` }),
      parsedSeq: () => parsed,
      writeInput: () => {},
      writeInputAt: () => Promise.reject(new Error('these viewers type with INPUT')),
      resizePty: () => {},
    });
    parsed = session.log.endSeq;
    return { session, timers, setParsed: (seq: number) => (parsed = seq), parsed: () => parsed };
  }

  test('with no viewer, a busy session keeps a replay\'s worth, but never trims past the parse point', () => {
    const { session, setParsed } = parseLagRig();
    const start = session.log.endSeq;
    for (let i = 0; i < 100; i++) session.append(new Uint8Array(8 * 1024));
    assert.equal(session.log.startSeq, start, 'nothing parsed yet: everything is kept');
    setParsed(start + 700 * 1024);
    session.append(new Uint8Array(8 * 1024));
    assert.equal(session.log.startSeq, start + 700 * 1024, 'kept from the parse point, though a replay needs less');
    setParsed(session.log.endSeq);
    session.append(new Uint8Array(8 * 1024));
    assert.equal(session.log.startSeq, session.log.endSeq - REPLAY_MAX_BYTES, 'all parsed: only a replay\'s worth is kept');
  });

  test('a viewer that acks bytes the screen has not parsed does not trim them, so a lagging viewer\'s snapshot still continues from the log', async () => {
    const { session, timers, setParsed, parsed } = parseLagRig();
    const fast = new Inbox();
    const ch = session.attach({ channel: 1, send: fast.send, readOnly: false, cols: 80, rows: 24, resume: { boot: BOOT, seq: session.log.endSeq } });
    const begin = parsed();
    for (let i = 0; i < 64; i++) session.append(new Uint8Array(1024));
    timers.advance(10); // the coalesced rest goes out
    const sent = fast.of('data').at(-1)!.seq;
    assert.equal(sent, session.log.endSeq, 'the viewer got everything');
    session.ack(ch, sent);
    assert.equal(session.log.startSeq, begin, 'the ack is ahead of the screen: the log keeps from the parse point');
    setParsed(begin + 32 * 1024);
    session.ack(ch, sent);
    assert.equal(session.log.startSeq, begin + 32 * 1024);
    // A second viewer starts from a snapshot at the parse point, and is sent the rest from the log.
    const late = new Inbox();
    session.attach({ channel: 2, send: late.send, readOnly: false, cols: 80, rows: 24 });
    await new Promise((r) => setImmediate(r));
    assert.equal(late.of('snapshot')[0]!.seq, begin + 32 * 1024);
    assert.equal(late.of('error').length, 0);
  });
});
