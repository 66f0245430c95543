// SessionViewers telling typists where their keys go (INPUT_ROUTE): straight
// to the holder only for the session's one writable viewer, shown the stream,
// while the session allows it; through the server as soon as any of that stops.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrameFromServer, encodeFrameToViewer, type ClientKind, type FrameFromServer } from '../../protocol/viewer-frames.js';
import { SessionViewers } from './session-viewers.js';
import type { TerminalSize, WindowSizePolicy } from './size-policy.js';
import { DEFAULT_MODES as modes, SteppedTimers } from '../../../test/support/viewer-test-fixture.js';

const HOLDER = '/run/tend/h/s1.sock';

function rig(windowSize: WindowSizePolicy = 'latest') {
  let pty: TerminalSize = { cols: 80, rows: 24 };
  let route: string | null = HOLDER;
  // eslint-disable-next-line prefer-const
  let session: SessionViewers;
  session = new SessionViewers({
    boot: 'boot-R',
    baseSeq: 1_000,
    timers: new SteppedTimers(),
    windowSize,
    takeSnapshot: (request) => ({ seq: session.log.endSeq, cols: (request.view ?? pty).cols, rows: (request.view ?? pty).rows, modes, data: '' }),
    writeInput: () => undefined,
    writeInputAt: (_w, at, data) => Promise.resolve(at + data.length),
    resizePty: (size) => {
      pty = { ...size };
      session.ptyResized();
    },
    ptySize: () => pty,
    holderRoute: () => route,
  });
  const viewer = (channel: number, opts: { kind?: ClientKind; typist?: boolean; readOnly?: boolean; size?: TerminalSize } = {}) => {
    const frames: FrameFromServer[] = [];
    const size = opts.size ?? pty;
    const ch = session.attach({
      channel,
      clientKind: opts.kind ?? 'cli',
      readOnly: opts.readOnly === true,
      cols: size.cols,
      rows: size.rows,
      typesToHolder: opts.typist ?? true,
      send: (f) => frames.push(decodeFrameFromServer(encodeFrameToViewer(f))),
    });
    /** Every INPUT_ROUTE this viewer was sent, in order ('' is the server). */
    const routes = () => frames.flatMap((f) => (f.type === 'input-route' ? [f.holderSocket] : []));
    return { ch, routes };
  };
  return { session, viewer, setRoute: (r: string | null) => (route = r) };
}

describe('SessionViewers: where a typist\'s keys go', () => {
  test('a lone terminal that can type to the holder is routed there once, and back through the server when a second writable viewer comes and goes', () => {
    const { session, viewer } = rig();
    const a = viewer(1);
    assert.deepEqual(a.routes(), [HOLDER]);
    const b = viewer(2, { kind: 'web' });
    assert.deepEqual(a.routes(), [HOLDER, ''], 'typing now decides the size (latest): the server must see it');
    assert.deepEqual(b.routes(), [], 'a viewer that did not ask is never told');
    session.detach(b.ch);
    assert.deepEqual(a.routes(), [HOLDER, '', HOLDER]);
  });

  test('a read-only viewer beside it changes nothing; a read-only typist is never routed', () => {
    const { viewer } = rig();
    const a = viewer(1);
    const watcher = viewer(2, { readOnly: true });
    assert.deepEqual(a.routes(), [HOLDER]);
    assert.deepEqual(watcher.routes(), []);
  });

  test('a viewer that did not say TYPES_TO_HOLDER is never routed, but still counts as a writable viewer', () => {
    const { session, viewer } = rig();
    const plain = viewer(1, { typist: false });
    const typist = viewer(2);
    assert.deepEqual(plain.routes(), []);
    assert.deepEqual(typist.routes(), [], 'two writable viewers: keys pass the server');
    session.detach(plain.ch);
    assert.deepEqual(typist.routes(), [HOLDER]);
  });

  test('the session withdrawing the route (a hand-over, an agent) is heard at the next update; frozen viewers type through the server', () => {
    const { session, viewer, setRoute } = rig();
    const a = viewer(1);
    setRoute(null);
    session.updateInputRoutes();
    assert.deepEqual(a.routes(), [HOLDER, '']);
    setRoute(HOLDER);
    session.updateInputRoutes();
    session.updateInputRoutes();
    assert.deepEqual(a.routes(), [HOLDER, '', HOLDER], 'no news, no frame');
    session.freeze();
    session.thaw();
    assert.deepEqual(a.routes(), [HOLDER, '', HOLDER, '', HOLDER]);
  });

  test('a terminal shown a view (its size is not the PTY\'s) types through the server', () => {
    const { viewer } = rig('manual');
    const a = viewer(1, { size: { cols: 100, rows: 30 } });
    assert.deepEqual(a.routes(), [], 'manual: the PTY keeps 80x24, so the viewer is shown a view');
  });
});
