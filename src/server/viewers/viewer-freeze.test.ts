// Viewers of a session whose agent sleeps: frozen, they are sent no output and
// every snapshot is of the kept screen (the session renders it); a viewer that
// subscribes meanwhile is never replayed the live bytes; thawed, each is
// repainted from the live screen and the stream goes on from there.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrameFromServer, encodeFrameToViewer, type FrameFromServer } from '../../protocol/viewer-frames.js';
import { SessionViewers } from './session-viewers.js';
import type { Snapshot } from './viewer-channel.js';
import { DEFAULT_MODES as modes, SteppedTimers, settle } from '../../../test/support/viewer-test-fixture.js';

class Inbox {
  readonly frames: FrameFromServer[] = [];
  readonly send = (frame: FrameFromServer) => this.frames.push(decodeFrameFromServer(encodeFrameToViewer(frame)));
  of<T extends FrameFromServer['type']>(type: T): Array<Extract<FrameFromServer, { type: T }>> {
    return this.frames.filter((f): f is Extract<FrameFromServer, { type: T }> => f.type === type);
  }
}

/** A session's viewers whose takeSnapshot renders "kept" while frozen, else the live screen at the log's end. */
function rig() {
  const timers = new SteppedTimers();
  let frozen = false;
  const viewers: SessionViewers = new SessionViewers({
    boot: 'boot-F',
    baseSeq: 1000,
    takeSnapshot: (): Snapshot => ({ seq: viewers.log.endSeq, cols: 80, rows: 24, modes, data: frozen ? 'kept' : `live@${viewers.log.endSeq}` }),
    writeInput: () => undefined,
    writeInputAt: () => Promise.resolve(0),
    resizePty: () => undefined,
    ptySize: () => ({ cols: 80, rows: 24 }),
    timers,
  });
  const freeze = () => {
    frozen = true;
    viewers.freeze();
  };
  const thaw = () => {
    frozen = false;
    viewers.thaw();
  };
  const attach = (resume?: { boot: string; seq: number }) => {
    const inbox = new Inbox();
    const channel = viewers.attach({ channel: 1, send: inbox.send, readOnly: false, cols: 80, rows: 24, ...(resume ? { resume } : {}) });
    return { inbox, channel };
  };
  return { viewers, timers, freeze, thaw, attach };
}

const bytes = (s: string) => new TextEncoder().encode(s);

describe('SessionViewers freeze and thaw', () => {
  test('a watching viewer is sent no output while frozen, then the live screen and the stream again', async () => {
    const r = rig();
    const { inbox } = r.attach();
    await settle();
    r.viewers.append(bytes('before'));
    await settle();
    assert.equal(inbox.of('data').length, 1);
    r.freeze();
    r.viewers.append(bytes('while asleep'));
    r.timers.advance(1000);
    await settle();
    assert.equal(inbox.of('data').length, 1, 'no DATA while frozen');
    assert.equal(inbox.of('snapshot').length, 1, 'nothing owed at the freeze: no repaint');

    r.thaw();
    await settle();
    const snaps = inbox.of('snapshot');
    assert.equal(snaps.length, 2);
    assert.equal(snaps[1]!.data, `live@${r.viewers.log.endSeq}`);
    r.viewers.append(bytes('awake'));
    await settle();
    const data = inbox.of('data');
    assert.equal(Buffer.from(data[data.length - 1]!.data).toString(), 'awake');
  });

  test('a viewer that subscribes while frozen gets the kept screen, never a replay of the live bytes', async () => {
    const r = rig();
    const first = r.attach();
    await settle();
    r.viewers.append(bytes('x'));
    await settle();
    const seq = first.inbox.of('data')[0]!.seq;
    r.freeze();
    r.viewers.append(bytes('live bytes'));
    // A reconnect from a position the log still holds would be replayed, were it not frozen.
    const again = r.attach({ boot: 'boot-F', seq });
    await settle();
    assert.deepEqual(again.channel.startDecision, { mode: 'snapshot', reason: 'frozen' });
    assert.deepEqual(again.inbox.of('snapshot').map((s) => s.data), ['kept']);
    assert.equal(again.inbox.of('data').length, 0);
  });

  test('output still coalescing at the freeze is sent then (it is in the kept screen); a viewer held back by its acks is repainted with the kept screen', async () => {
    const r = rig();
    const { inbox } = r.attach();
    await settle();
    // More than goes out at once: the rest waits for the coalescing timer.
    r.viewers.append(new Uint8Array(20 * 1024).fill(0x61));
    r.viewers.append(new Uint8Array(20 * 1024).fill(0x62));
    r.freeze();
    r.timers.advance(1000);
    await settle();
    assert.equal(inbox.of('data').reduce((n, f) => n + f.data.length, 0), 40 * 1024, 'every byte before the cut, none after');
    assert.equal(inbox.of('snapshot').length, 1);

    // A viewer that acks nothing stops at its high-water mark: what it lacks of the kept screen comes as a snapshot of it.
    const slow = rig();
    const lagging = slow.attach();
    await settle();
    for (let i = 0; i < 64; i++) slow.viewers.append(new Uint8Array(16 * 1024).fill(0x63));
    slow.timers.advance(1000);
    await settle();
    assert.ok(lagging.channel.paused, 'held back by its acks');
    slow.freeze();
    await settle();
    const last = lagging.inbox.frames.filter((f) => f.type === 'snapshot' || f.type === 'data').pop()!;
    assert.equal(last.type, 'snapshot');
    assert.equal((last as Extract<FrameFromServer, { type: 'snapshot' }>).data, 'kept');
  });
});
