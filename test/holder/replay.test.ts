import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { HolderConnection } from '../../src/holder-client/index.js';
import { HOLDER_TEST_TIMEOUT_MS, RecordingController, nodeProgram, startHolder } from './holder-fixture.js';
import { waitFor } from '../support/wait-for.js';

/** A deterministic stream with multi-byte characters and escape sequences, then the program idles. */
const STREAM_LINES = 4000;
const deterministicProgram = nodeProgram(`
  let s = '';
  for (let i = 0; i < ${STREAM_LINES}; i++) {
    s += '\\x1b[38;5;' + (i % 256) + 'm' + String(i).padStart(6, '0') + ' 한글 €uro ' + 'x'.repeat(i % 37) + '\\x1b[0m\\n';
  }
  process.stdout.write(s + 'STREAM-END\\n');
  setInterval(() => {}, 1 << 30);
`);

function expectedPtyBytes(): Buffer {
  let s = '';
  for (let i = 0; i < STREAM_LINES; i++) {
    s += `\x1b[38;5;${i % 256}m${String(i).padStart(6, '0')} 한글 €uro ${'x'.repeat(i % 37)}\x1b[0m\n`;
  }
  // The PTY's line discipline turns each \n into \r\n (onlcr).
  return Buffer.from((s + 'STREAM-END\n').replaceAll('\n', '\r\n'));
}

interface Replayed {
  bytes: Buffer;
  from: number;
  gap: boolean;
}

/** DUMP_SINCE(offset) on conn, collecting the replay until END. */
async function replayFrom(conn: HolderConnection, offset: number): Promise<Replayed> {
  const parts: Buffer[] = [];
  const sub = conn.onReplay((e) => parts.push(Buffer.from(e.bytes)));
  try {
    const range = await conn.dumpSince(offset);
    const bytes = Buffer.concat(parts);
    assert.equal(range.to - range.from, bytes.byteLength);
    return { bytes, from: range.from, gap: range.gap };
  } finally {
    sub.dispose();
  }
}

describe('DUMP_SINCE replays the ring byte-exact', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('after a reconnect, DUMP_SINCE at 0, in the middle and at the current offset each return exactly the reference bytes from there', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: deterministicProgram, ringBytes: 4 * 1024 * 1024 });
    const expected = expectedPtyBytes();

    const first = await RecordingController.start(scope, h.socketPath);
    const reference = await first.waitForBytes(expected.byteLength);
    assert.ok(reference.equals(expected), 'the live stream is the program output with \\r\\n line ends');
    first.conn.dispose();

    // The lease frees when the first controller's socket closes.
    const conn = scope.own(await HolderConnection.connect(h.socketPath));
    await waitFor(async () => (await conn.acquire()) === 'acquired', { what: 'the lease to free' });
    const current = (await conn.state()).offset;
    assert.equal(current, reference.byteLength);

    const middle = Math.floor(current / 2) + 1; // likely inside a character: replay is by byte
    for (const offset of [0, middle, 1, current - 1, current]) {
      const r = await replayFrom(conn, offset);
      assert.equal(r.gap, false, `no gap at ${offset}`);
      assert.equal(r.from, offset);
      assert.ok(r.bytes.equals(reference.subarray(offset)), `replay from ${offset} is byte-exact (${r.bytes.byteLength} bytes)`);
    }
  });

  test('after the replay END, new output continues exactly where the replay stopped', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const ctl = await RecordingController.start(scope, h.socketPath);
    ctl.conn.input('first\r');
    await ctl.waitForText('first\r\nfirst\r\n');
    ctl.conn.dispose();

    const again = await RecordingController.start(scope, h.socketPath, 3);
    await waitFor(() => again.replayEnded, { what: 'the replay END' });
    assert.equal(again.text(), 'st\r\nfirst\r\n');
    again.conn.input('second\r');
    await again.waitForText('st\r\nfirst\r\nsecond\r\nsecond\r\n');
    assert.equal(again.endOffset, (await again.conn.state()).offset);
  });

  test('DUMP_SINCE past the holder offset is answered with ERROR BAD_OFFSET', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: ['cat'] });
    const conn = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(await conn.acquire(), 'acquired');
    const errors: number[] = [];
    conn.onHolderError((e) => errors.push(e.code));
    const offset = conn.lastState.offset;
    await assert.rejects(conn.dumpSince(offset + 1000), { name: 'HolderErrorReply', holderCode: 7 });
    assert.deepEqual(errors, [7]);
  });
});
