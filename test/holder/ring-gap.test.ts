import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { HOLDER_TEST_TIMEOUT_MS, RecordingController, nodeProgram, startHolder } from './holder-fixture.js';

const RING_BYTES = 64 * 1024;

/**
 * Positions in `bytes` where a replay must not begin: UTF-8 continuation bytes
 * and every byte after the ESC of a CSI sequence up to its final byte.
 */
function unsafeStarts(bytes: Buffer): Set<number> {
  const unsafe = new Set<number>();
  for (let i = 0; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) unsafe.add(i);
  const text = bytes.toString('latin1'); // one char per byte, so indices are byte offsets
  for (const m of text.matchAll(/\x1b\[[0-9;?]*[ -/]*[@-~]/g)) {
    for (let i = m.index + 1; i < m.index + m[0].length; i++) unsafe.add(i);
  }
  return unsafe;
}

describe('a replay from an offset that has left the ring', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('is flagged GAP on every frame and starts at ring_start, a safe boundary, byte-exact from there', async (t) => {
    const scope = useTestScope(t);
    // ~1 MB of dense escape sequences and 3-byte characters through a 64 KiB ring.
    const program = nodeProgram(`
      let s = '';
      for (let i = 0; i < 12000; i++) s += '\\x1b[1;38;5;' + (i % 256) + 'm가나다' + (i % 10) + '\\x1b[0m€\\x1b[K';
      process.stdout.write(s + '\\nGAP-DONE\\n');
      setInterval(() => {}, 1 << 30);
    `);
    const h = await startHolder(scope, { argv: program, ringBytes: RING_BYTES });
    const reference = await RecordingController.start(scope, h.socketPath);
    await reference.waitForText('GAP-DONE\r\n');
    const full = reference.bytes();
    assert.ok(full.byteLength > RING_BYTES * 4, `wrote ${full.byteLength} bytes`);
    reference.conn.dispose();

    const later = await RecordingController.start(scope, h.socketPath, 0);
    await later.waitForText('GAP-DONE\r\n');
    const state = await later.conn.state();
    assert.ok(later.gap, 'the replay reports a gap');
    assert.equal(later.startOffset, state.ringStart, 'it starts at ring_start');
    assert.ok(state.ringStart > 0 && state.ringStart >= state.offset - RING_BYTES);
    assert.equal(state.ringCapacity, RING_BYTES);
    assert.ok(!unsafeStarts(full).has(state.ringStart), `ring_start ${state.ringStart} is inside a sequence: ${JSON.stringify(full.subarray(state.ringStart - 8, state.ringStart + 8).toString('latin1'))}`);
    assert.ok(later.bytes().equals(full.subarray(state.ringStart)), 'the replay is the reference from ring_start on');
    const replays = later.frames.filter((f) => f.kind === 'replay');
    assert.ok(replays.length > 0 && replays.every((f) => f.gap), 'every REPLAY frame is flagged GAP');
    assert.ok(replays.at(-1)!.end && replays.slice(0, -1).every((f) => !f.end), 'only the last REPLAY is END');
  });
});

