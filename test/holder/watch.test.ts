import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ErrorCode, WATCH_PIECE_MAX_BYTES, encodeInputFrom, encodeWatch, type OutputMessage } from '../../src/protocol/holder-frames.js';
import { HOLDER_TEST_TIMEOUT_MS, RawHolderSocket, RecordingController, startHolder } from './holder-fixture.js';
import { RAW_READY, TakenLog, newWriter, rawEcho } from './taken-log.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A controller streaming a raw echo program, and a watcher beside it (HELLO, WATCH). */
async function watchedSession(t: Parameters<typeof useTestScope>[0]) {
  const scope = useTestScope(t);
  const h = await startHolder(scope, { argv: rawEcho });
  const ctl = await RecordingController.start(scope, h.socketPath);
  await ctl.waitForText(RAW_READY);
  const watcher = await RawHolderSocket.connect(scope, h.socketPath);
  await watcher.hello();
  watcher.send(encodeWatch());
  const pieces = (): OutputMessage[] => watcher.frames.filter((f): f is OutputMessage => f.type === 'output');
  /** Every piece is the controller's stream at the same offset, byte for byte. */
  const assertPiecesMatchStream = (): void => {
    const stream = ctl.bytes();
    for (const p of pieces()) {
      const at = p.offset - ctl.startOffset;
      assert.ok(at >= 0 && at + p.bytes.byteLength <= stream.byteLength, `a piece at ${p.offset} (+${p.bytes.byteLength}) the stream has not reached`);
      assert.deepEqual(Buffer.from(p.bytes), stream.subarray(at, at + p.bytes.byteLength), `the piece at ${p.offset}`);
    }
  };
  return { scope, h, ctl, watcher, pieces, assertPiecesMatchStream };
}

describe('WATCH: a connection without the lease is copied the output small pieces', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test("a typist that watches is copied its key's echo, at the controller's offset, the same bytes", async (t) => {
    const { ctl, watcher, pieces, assertPiecesMatchStream } = await watchedSession(t);
    const writer = newWriter();
    watcher.send(encodeInputFrom(writer, 0, encode('k')));
    const echo = await waitFor(() => pieces().find((p) => Buffer.from(p.bytes).toString() === 'k'), {
      what: "the key's echo, copied to the watcher",
      describe: () => `frames: ${JSON.stringify(watcher.frames.map((f) => f.type))}`,
    });
    await ctl.waitForText(`${RAW_READY}k`);
    assert.equal(echo.offset, ctl.startOffset + ctl.bytes().indexOf('k', ctl.bytes().indexOf(RAW_READY)));
    assert.ok(watcher.frames.some((f) => f.type === 'input-taken'), 'the key is answered on the watcher too');
    assertPiecesMatchStream();
    assert.equal(ctl.closed, false);
  });

  test(`a read longer than ${WATCH_PIECE_MAX_BYTES} bytes is not copied, and the small ones after it are`, async (t) => {
    const { ctl, pieces, assertPiecesMatchStream } = await watchedSession(t);
    const taken = new TakenLog(ctl.conn);
    const writer = newWriter();
    // One INPUT_FROM of 60 KiB: cat echoes it in reads far above the limit.
    const big = encode('x'.repeat(60 * 1024));
    ctl.conn.inputFrom(writer, 0, big);
    await taken.waitForTotal(writer, big.byteLength);
    await ctl.waitForBytes(ctl.bytes().indexOf(RAW_READY) + RAW_READY.length + big.byteLength);
    ctl.conn.inputFrom(writer, big.byteLength, encode('END'));
    await waitFor(() => pieces().some((p) => Buffer.from(p.bytes).toString().endsWith('END')), { what: 'the small echo after the flood' });
    for (const p of pieces()) assert.ok(p.bytes.byteLength <= WATCH_PIECE_MAX_BYTES, `a piece of ${p.bytes.byteLength} bytes`);
    const copied = pieces().reduce((n, p) => n + p.bytes.byteLength, 0);
    assert.ok(copied < big.byteLength, `only small reads are copied: ${copied} bytes of ${big.byteLength}`);
    assertPiecesMatchStream();
  });

  test('a watcher that reads nothing holds back neither the program nor the controller, and is not closed for it', async (t) => {
    const { ctl, watcher, pieces, assertPiecesMatchStream } = await watchedSession(t);
    const taken = new TakenLog(ctl.conn);
    const writer = newWriter();
    watcher.socket.pause();
    // A thousand echoes of 1000 bytes, one at a time: each is a small read, copied while there is room.
    const line = encode('y'.repeat(999) + '\n');
    const base = ctl.bytes().indexOf(RAW_READY) + RAW_READY.length;
    for (let i = 0; i < 1000; i++) {
      ctl.conn.inputFrom(writer, i * line.byteLength, line);
      await ctl.waitForBytes(base + (i + 1) * line.byteLength);
    }
    await taken.waitForTotal(writer, 1000 * line.byteLength);
    watcher.socket.resume();
    // Its control buffer drains as it reads again: then keys are copied again (one more key per look until one is).
    const last = ctl.endOffset;
    let sent = 1000 * line.byteLength;
    await waitFor(
      () => {
        if (pieces().some((p) => p.offset >= last)) return true;
        ctl.conn.inputFrom(writer, sent++, encode('Z'));
        return false;
      },
      { what: 'a piece copied once the watcher reads again', intervalMs: 50 },
    );
    await ctl.waitForBytes(base + sent);
    assert.equal(watcher.closed, false, 'the watcher is skipped, not closed');
    assert.ok(!watcher.frames.some((f) => f.type === 'error'), JSON.stringify(watcher.frames.filter((f) => f.type === 'error')));
    const copied = pieces().reduce((n, p) => n + p.bytes.byteLength, 0);
    assert.ok(copied < 1000 * line.byteLength, `pieces were skipped while it read nothing (${copied} bytes copied)`);
    assertPiecesMatchStream();
  });

  test('the controller is refused WATCH: it has the whole stream', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: rawEcho });
    const raw = await RawHolderSocket.connect(scope, h.socketPath);
    await raw.hello();
    raw.send(new Uint8Array([0x10, 0, 0, 0, 0])); // ACQUIRE
    await raw.waitForFrame('acquired');
    raw.send(encodeWatch());
    const error = await raw.waitForFrame('error');
    assert.equal(error.code, ErrorCode.BAD_PAYLOAD);
    assert.match(error.message, /WATCH/);
    await raw.waitForEnd();
  });
});
