import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { HolderConnection } from '../../src/holder-client/index.js';
import { waitFor } from '../support/wait-for.js';
import { HOLDER_TEST_TIMEOUT_MS, RecordingController, nodeProgram, startHolder } from './holder-fixture.js';

const MIB = 1024 * 1024;
/** The holder's high-water mark for a 4 MiB ring (protocol.md: 1 MiB, or half the ring). */
const HIGH_WATER_BYTES = 1 * MIB;
/** What may sit between the holder's queue and our reader: socket buffers on both sides, a PTY read. */
const IN_FLIGHT_SLACK_BYTES = 2 * MIB;

/** Prints 0000000001\n, 0000000002\n, ... as fast as the PTY takes them, forever. */
const countingProducer = nodeProgram(`
  let i = 0;
  for (;;) {
    let s = '';
    for (let k = 0; k < 2000; k++) s += String(++i).padStart(10, '0') + '\\n';
    require('fs').writeSync(1, s);
  }
`);

/** Checks the text is 1, 2, 3, ... one per \r\n line (the last line may be cut), returns the count. */
function checkCountedStream(text: string): number {
  const lines = text.split('\r\n');
  lines.pop(); // a partial last line
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== String(i + 1).padStart(10, '0')) {
      throw new Error(`line ${i + 1} is ${JSON.stringify(lines[i])}: a byte was lost, doubled or reordered`);
    }
  }
  return lines.length;
}

/** Polls STATE until the offset has not moved for `polls` answers in a row. */
async function stableOffset(watcher: HolderConnection, polls: number): Promise<number> {
  const seen: number[] = [];
  return waitFor(
    async () => {
      seen.push((await watcher.state()).offset);
      const last = seen.slice(-polls);
      return last.length === polls && last.every((o) => o === last[0]) ? last[0]! : null;
    },
    { intervalMs: 100, timeoutMs: 60_000, what: 'the holder offset to stop advancing', describe: () => `offsets: ${seen.slice(-6).join(', ')}` },
  );
}

describe('flow control holds a fast program back', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a paused controller stops the holder near the high-water mark, and after resume every byte arrives in order', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: countingProducer, ringBytes: 4 * MIB });
    const ctl = await RecordingController.start(scope, h.socketPath);
    const pauser = ctl.conn.onOutput(() => ctl.conn.pause());
    await waitFor(() => ctl.conn.isPaused, { what: 'the first OUTPUT' });

    const watcher = scope.own(await HolderConnection.connect(h.socketPath));
    const stalled = await stableOffset(watcher, 5);
    const owed = stalled - ctl.endOffset;
    t.diagnostic(`holder stopped at offset ${stalled}, ${owed} bytes past what the paused controller took`);
    assert.ok(owed <= HIGH_WATER_BYTES + IN_FLIGHT_SLACK_BYTES, `the holder read ${owed} bytes past what we took`);
    assert.ok(stalled < 4 * MIB, `the holder stopped at ${stalled}, within its ring`);

    // Keep reading from now on: frames buffered behind the pause must not pause us again.
    pauser.dispose();
    ctl.conn.resume();
    await ctl.waitForBytes(stalled + 2 * MIB, 60_000);
    const lines = checkCountedStream(ctl.text());
    assert.ok(lines > (stalled + 2 * MIB) / 12 - 1);
    assert.equal(ctl.closed, false);
  });

  test('with no controller the holder keeps draining the program into the ring, far past its capacity', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: countingProducer, ringBytes: 64 * 1024 });
    const watcher = scope.own(await HolderConnection.connect(h.socketPath));
    const state = await waitFor(async () => {
      const s = await watcher.state();
      return s.offset > 4 * MIB ? s : null;
    }, { what: 'the offset to pass 4 MiB', timeoutMs: 60_000 });
    assert.ok(state.ringStart > 0 && state.offset - state.ringStart <= 64 * 1024);
  });
});
