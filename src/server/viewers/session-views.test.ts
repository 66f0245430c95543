// SessionViewers with viewers of different sizes: which size the PTY takes,
// and what a terminal viewer of another size is sent (views, never the
// stream), with a fake screen that says what it was asked to render.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CloseReason, decodeFrameFromServer, encodeFrameToViewer, type ClientKind, type FrameFromServer } from '../../protocol/viewer-frames.js';
import { VIEWS_UNACKED_MAX, VIEW_REPAINT_MS } from './flow-limits.js';
import { SessionViewers } from './session-viewers.js';
import type { SnapshotRequest } from './viewer-channel.js';
import type { TerminalSize } from './size-policy.js';
import { DEFAULT_MODES as modes, SteppedTimers, settle } from '../../../test/support/viewer-test-fixture.js';

const BOOT = 'boot-V';

function rig(initial: TerminalSize = { cols: 100, rows: 30 }) {
  const timers = new SteppedTimers();
  let pty = { ...initial };
  let seq = 0;
  const requests: SnapshotRequest[] = [];
  const resizes: string[] = [];
  const inputs: string[] = [];
  // eslint-disable-next-line prefer-const
  let session: SessionViewers;
  session = new SessionViewers({
    boot: BOOT,
    baseSeq: 1_000,
    timers,
    takeSnapshot: (request) => {
      requests.push(request);
      const size = request.view ?? pty;
      const window = { originX: 20, originY: 6, cols: pty.cols, rows: pty.rows };
      return { seq, cols: size.cols, rows: size.rows, modes, data: `${request.view ? 'view' : 'screen'}@${seq}`, ...(request.view ? { view: true, viewWindow: window } : {}) };
    },
    writeInput: (data) => inputs.push(String.fromCharCode(...data)),
    writeInputAt: () => Promise.reject(new Error('these viewers type with INPUT')),
    resizePty: (size) => {
      resizes.push(`${size.cols}x${size.rows}`);
      pty = { ...size };
      session.ptyResized();
    },
    ptySize: () => pty,
  });
  seq = session.log.endSeq;
  const output = (text: string) => {
    seq = session.append(new TextEncoder().encode(text));
  };
  const viewer = (channel: number, kind: ClientKind, size: TerminalSize, reconnecting = false) => {
    const frames: FrameFromServer[] = [];
    const ch = session.attach({
      channel,
      clientKind: kind,
      readOnly: false,
      cols: size.cols,
      rows: size.rows,
      ...(reconnecting ? { keepsHistory: true } : {}),
      send: (f) => frames.push(decodeFrameFromServer(encodeFrameToViewer(f))),
    });
    const stream = () => frames.filter((f) => f.type === 'snapshot' || f.type === 'data');
    const ackAll = () => {
      const last = stream().at(-1);
      if (last !== undefined && (last.type === 'snapshot' || last.type === 'data')) session.ack(ch, last.seq);
    };
    return { ch, frames, stream, ackAll };
  };
  return { session, timers, requests, resizes, inputs, output, viewer, pty: () => pty };
}

describe('SessionViewers: viewers of different sizes', () => {
  test('a terminal reconnecting first (after a server restart) does not resize the session under the others; typing still does', async () => {
    const { session, resizes, viewer } = rig({ cols: 80, rows: 24 });
    const big = viewer(1, 'cli', { cols: 100, rows: 30 }, true);
    await settle();
    assert.deepEqual(resizes, [], 'a lone terminal coming back leaves the PTY as it was');
    const first = big.stream()[0]!;
    assert.deepEqual(first.type === 'snapshot' && [first.view, first.cols, first.rows], [true, 100, 30], 'shown a view of the session as it is');
    const small = viewer(2, 'cli', { cols: 80, rows: 24 }, true);
    await settle();
    assert.deepEqual(resizes, []);
    session.input(big.ch, new Uint8Array([0x6a]));
    assert.deepEqual(resizes, ['100x30'], 'typing takes the size as ever');
  });

  test('a second terminal of another size is sent views for its size, never the stream, and the size stays', async () => {
    const { timers, resizes, output, viewer } = rig();
    const big = viewer(1, 'cli', { cols: 100, rows: 30 });
    const small = viewer(2, 'cli', { cols: 80, rows: 24 });
    await settle();
    assert.deepEqual(resizes, [], 'the first fits already; the second does not take the size by opening');
    const first = small.stream()[0]!;
    assert.equal(first.type, 'snapshot');
    assert.deepEqual(first.type === 'snapshot' && [first.view, first.cols, first.rows], [true, 80, 24]);
    assert.equal(big.stream()[0]!.type === 'snapshot' && big.stream()[0]!.type, 'snapshot');

    timers.advance(VIEW_REPAINT_MS); // a quiet spell
    output('quiet, then a key echo');
    await settle();
    assert.equal(small.stream().length, 2, 'after a quiet spell the repaint goes at once');
    for (let i = 0; i < 10; i++) output(`flood ${i}\r\n`);
    await settle();
    assert.equal(small.stream().length, 2, 'while output flows, repaints wait out the pause');
    timers.advance(VIEW_REPAINT_MS);
    await settle();
    assert.equal(small.stream().length, 3, 'one repaint for the whole burst');
    assert.ok(small.frames.every((f) => f.type !== 'data'), 'never the session-sized stream');
    assert.ok(big.frames.some((f) => f.type === 'data'), 'the viewer of the session size gets the stream');
  });

  test('views wait for acks: no more than VIEWS_UNACKED_MAX in flight', async () => {
    const { timers, output, viewer } = rig();
    viewer(1, 'cli', { cols: 100, rows: 30 });
    const small = viewer(2, 'cli', { cols: 60, rows: 20 });
    await settle();
    for (let i = 0; i < 10; i++) {
      output(`line ${i}\r\n`);
      await settle();
      timers.advance(VIEW_REPAINT_MS);
      await settle();
    }
    assert.equal(small.stream().length, VIEWS_UNACKED_MAX);
    small.ackAll();
    await settle();
    assert.equal(small.stream().length, VIEWS_UNACKED_MAX + 1, 'an ack lets the owed repaint go');
  });

  test('views repainted at a seq the viewer acked already (the screen lagging the log) do not wait for acks that never come', async () => {
    const { session, timers, output, viewer } = rig();
    viewer(1, 'cli', { cols: 100, rows: 30 });
    const small = viewer(2, 'cli', { cols: 60, rows: 20 });
    await settle();
    // Acks as `tend attach` does: a seq once (an ack never repeats the last one).
    let acked = -1;
    const ackAsAttach = () => {
      const last = small.stream().at(-1);
      if (last !== undefined && last.type === 'snapshot' && last.seq > acked) session.ack(small.ch, (acked = last.seq));
    };
    ackAsAttach();
    // Output reaches the log while the screen has not parsed it: each repaint is rendered at the same seq.
    for (let i = 0; i <= VIEWS_UNACKED_MAX; i++) {
      session.append(new TextEncoder().encode(`unparsed ${i}\r\n`));
      timers.advance(VIEW_REPAINT_MS);
      await settle();
      ackAsAttach();
    }
    const before = small.stream().length;
    output('the screen catches up');
    timers.advance(VIEW_REPAINT_MS);
    await settle();
    const last = small.stream().at(-1)!;
    assert.ok(small.stream().length > before && last.type === 'snapshot' && last.seq === session.log.endSeq,
      'the screen that caught up is shown: the views at the acked seq did not use up the unacked allowance');
  });

  test('a resize that brings no output (a full-screen program ignoring it) still repaints the views', async () => {
    const { session, timers, resizes, viewer } = rig();
    const big = viewer(1, 'cli', { cols: 100, rows: 30 });
    const small = viewer(2, 'cli', { cols: 60, rows: 20 });
    await settle();
    small.ackAll();
    timers.advance(VIEW_REPAINT_MS);
    await settle();
    const before = small.stream().length;
    session.resize(big.ch, { cols: 90, rows: 28 });
    await settle();
    timers.advance(VIEW_REPAINT_MS);
    await settle();
    assert.deepEqual(resizes, ['90x28']);
    const last = small.stream().at(-1)!;
    assert.ok(small.stream().length > before && last.type === 'snapshot' && last.view === true,
      'the view of the resized screen is sent, with no output after the resize');
  });

  test('when the PTY takes its size, the viewer gets the screen alone and then the stream', async () => {
    const { session, resizes, requests, output, viewer } = rig();
    const big = viewer(1, 'cli', { cols: 100, rows: 30 });
    const small = viewer(2, 'cli', { cols: 80, rows: 24 });
    await settle();
    small.ackAll();
    session.input(small.ch, new Uint8Array([0x61])); // it typed: the latest viewer's size applies
    await settle();
    assert.deepEqual(resizes, ['80x24']);
    const back = small.stream().at(-1)!;
    assert.ok(back.type === 'snapshot' && back.view === undefined && back.cols === 80, 'a snapshot of the session itself');
    assert.equal(requests.at(-1)!.screenOnly, true, 'its own scrollback already has the history');
    output('now streamed');
    await settle();
    assert.equal(small.stream().at(-1)!.type, 'data');
    // And the other one, now of another size, is shown views.
    assert.ok(big.frames.some((f) => f.type === 'snapshot' && f.view === true && f.cols === 100));
    assert.ok(big.frames.some((f) => f.type === 'resize' && f.cols === 80), 'every viewer hears the RESIZE');
  });

  test('a browser opening never resizes the session, and is sent the stream at the session size', async () => {
    const { resizes, output, viewer } = rig({ cols: 120, rows: 35 });
    const term = viewer(1, 'cli', { cols: 120, rows: 35 });
    const page = viewer(2, 'web', { cols: 157, rows: 42 });
    await settle();
    assert.deepEqual(resizes, []);
    output('x');
    await settle();
    assert.ok(page.frames.some((f) => f.type === 'data'), 'the page renders the session at its size');
    assert.ok(term.frames.some((f) => f.type === 'data'));
  });

  test("a click in a viewer's window reaches the program at the session's cell", async () => {
    const { session, inputs, viewer } = rig({ cols: 100, rows: 30 });
    const big = viewer(1, 'cli', { cols: 100, rows: 30 });
    const small = viewer(2, 'cli', { cols: 80, rows: 24 });
    await settle();
    session.input(small.ch, new TextEncoder().encode('\x1b[<0;5;3M'));
    session.input(big.ch, new TextEncoder().encode('\x1b[<0;5;3M'));
    assert.deepEqual(inputs, ['\x1b[<0;25;9M', '\x1b[<0;5;3M'], 'the window starts at column 21, row 7; the other viewer sees the session as it is');
  });

  test('the server stopping closes every viewer and leaves the size as it is', async () => {
    const { session, resizes, viewer } = rig({ cols: 100, rows: 30 });
    viewer(1, 'cli', { cols: 100, rows: 30 });
    viewer(2, 'cli', { cols: 80, rows: 24 });
    await settle();
    session.closeAll(CloseReason.SERVER_SHUTDOWN, 'stopping');
    assert.deepEqual(resizes, [], 'the first leaving must not hand the size to the second on the way out');
  });

  test('a lone terminal still fits the session to itself', async () => {
    const { resizes, viewer } = rig({ cols: 100, rows: 30 });
    const only = viewer(1, 'cli', { cols: 90, rows: 28 });
    await settle();
    assert.deepEqual(resizes, ['90x28']);
    const first = only.stream()[0]!;
    assert.ok(first.type === 'snapshot' && first.view === undefined);
  });
});
