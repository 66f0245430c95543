import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { HolderConnection } from '../../src/holder-client/index.js';
import { ErrorCode, encodeFrame, FrameType, encodeDumpSince, encodeInput, encodeResize, encodeSignal } from '../../src/protocol/holder-frames.js';
import { waitFor } from '../support/wait-for.js';
import { HOLDER_TEST_TIMEOUT_MS, RawHolderSocket, RecordingController, assertHolderServes, startHolder } from './holder-fixture.js';

describe('one controller at a time', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a second controller is DENIED with a reason while the first holds the lease, and granted after the first disconnects', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const first = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(await first.acquire(), 'acquired');
    const second = scope.own(await HolderConnection.connect(h.socketPath));
    const denied = await second.acquire();
    assert.ok(denied !== 'acquired' && denied.denied.length > 0, `denied with a reason: ${JSON.stringify(denied)}`);
    // Denial leaves the connection open: it may still ask STATE.
    const seen = await second.state();
    assert.ok(seen.leased && !seen.youLease);
    assert.ok((await first.state()).youLease);

    first.dispose();
    await waitFor(async () => (await second.acquire()) === 'acquired', { what: 'the lease to pass to the second controller' });
    assert.ok((await second.state()).youLease);
  });

  test('RELEASE frees the lease for another connection without closing the first', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const first = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(await first.acquire(), 'acquired');
    first.release();
    await waitFor(async () => !(await first.state()).leased, { what: 'STATE to show no lease' });
    const second = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(await second.acquire(), 'acquired');
    assert.equal(first.isClosed, false);
    assert.ok(!(await first.state()).youLease);
  });

  test('a non-controller may send STATE_REQ and PING, and is answered', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    const watcher = scope.own(await HolderConnection.connect(h.socketPath));
    const state = await watcher.state();
    assert.equal(state.childPid, h.childPid);
    assert.ok(state.leased && !state.youLease);
    assert.ok((await watcher.ping()) >= 0);
    assert.equal(ctl.closed, false);
  });

  const controllerOnly: Array<[string, Uint8Array]> = [
    ['RELEASE', encodeFrame(FrameType.RELEASE)],
    ['DUMP_SINCE', encodeDumpSince(0)],
    ['INPUT', encodeInput(new TextEncoder().encode('rm -rf nothing\r'))],
    ['RESIZE', encodeResize(100, 30)],
    ['SIGNAL', encodeSignal(15)],
    ['REDRAW', encodeFrame(FrameType.REDRAW)],
    ['KILL', encodeFrame(FrameType.KILL)],
  ];
  for (const [name, frame] of controllerOnly) {
    test(`${name} without the lease is ERROR NOT_CONTROLLER, the connection closes, and the holder and child live on`, async (t) => {
      const scope = useTestScope(t);
      const h = await startHolder(scope, { argv: ['cat'] });
      const raw = await RawHolderSocket.connect(scope, h.socketPath);
      await raw.hello();
      raw.send(frame);
      const err = await raw.waitForFrame('error');
      assert.equal(err.code, ErrorCode.NOT_CONTROLLER);
      await raw.waitForEnd();
      await assertHolderServes(h);
      const state = await (scope.own(await HolderConnection.connect(h.socketPath))).state();
      assert.deepEqual([state.cols, state.rows], [80, 24], 'nothing the non-controller sent took effect');
    });
  }
});
