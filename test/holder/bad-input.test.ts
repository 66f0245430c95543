import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { TestScope } from '../support/test-scope.js';
import { HolderConnection } from '../../src/holder-client/index.js';
import {
  ErrorCode,
  FrameType,
  INPUT_FROM_PREFIX_BYTES,
  MAX_INBOUND_PAYLOAD_BYTES,
  PROTOCOL_VERSION,
  WRITER_ID_BYTES,
  encodeFrame,
  encodeHello,
  encodeResize,
  errorCodeName,
} from '../../src/protocol/holder-frames.js';
import { waitFor } from '../support/wait-for.js';
import { HOLDER_TEST_TIMEOUT_MS, RawHolderSocket, assertHolderServes, startHolder, type StartedHolder } from './holder-fixture.js';

function header(type: number, length: number): Uint8Array {
  const h = new Uint8Array(5);
  h[0] = type;
  new DataView(h.buffer).setUint32(1, length, true);
  return h;
}

/** INPUT_FROM with a u64 position our encoder would refuse (past 2^53). */
function inputFromAt(at: bigint, text: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const payload = new Uint8Array(INPUT_FROM_PREFIX_BYTES + bytes.byteLength);
  new DataView(payload.buffer).setBigUint64(WRITER_ID_BYTES, at, true);
  payload.set(bytes, INPUT_FROM_PREFIX_BYTES);
  return encodeFrame(FrameType.INPUT_FROM, payload);
}

interface BadInput {
  behaviour: string;
  /** Take the lease first, so the frame is refused for its content, not for lacking the lease. */
  asController?: boolean;
  /** Skip HELLO: the bytes are the first on the connection. */
  noHello?: boolean;
  bytes: Uint8Array;
  /** End our side after sending: the frame stays incomplete. */
  endAfter?: boolean;
  code: number;
}

const cases: BadInput[] = [
  { behaviour: 'a frame type the protocol does not have', bytes: encodeFrame(0x7e), code: ErrorCode.UNKNOWN_FRAME },
  { behaviour: 'a holder-to-controller type (OUTPUT) sent to the holder', bytes: encodeFrame(FrameType.OUTPUT, new Uint8Array(9)), code: ErrorCode.UNKNOWN_FRAME },
  { behaviour: 'an INPUT length one over the inbound limit, refused at the header', asController: true, bytes: header(FrameType.INPUT, MAX_INBOUND_PAYLOAD_BYTES + 1), code: ErrorCode.TOO_LARGE },
  { behaviour: 'a 4 GiB length on PING, refused at the header', bytes: header(FrameType.PING, 0xffff_ffff), code: ErrorCode.TOO_LARGE },
  { behaviour: 'a frame cut off inside its payload', asController: true, bytes: Uint8Array.from([...header(FrameType.INPUT, 10), 1, 2, 3]), endAfter: true, code: ErrorCode.TRUNCATED },
  { behaviour: 'a frame cut off inside its header', asController: true, bytes: Uint8Array.from([FrameType.INPUT, 10]), endAfter: true, code: ErrorCode.TRUNCATED },
  { behaviour: 'a RESIZE with a 3-byte payload', asController: true, bytes: encodeFrame(FrameType.RESIZE, new Uint8Array(3)), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'a DUMP_SINCE with a 4-byte offset', asController: true, bytes: encodeFrame(FrameType.DUMP_SINCE, new Uint8Array(4)), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'an ACQUIRE carrying a payload', bytes: encodeFrame(FrameType.ACQUIRE, new Uint8Array(1)), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'a SIGNAL with a 2-byte payload', asController: true, bytes: encodeFrame(FrameType.SIGNAL, new Uint8Array(2)), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'a HELLO with a 3-byte version', noHello: true, bytes: encodeFrame(FrameType.HELLO, new Uint8Array(3)), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'an INPUT_FROM shorter than its writer and position', asController: true, bytes: encodeFrame(FrameType.INPUT_FROM, new Uint8Array(INPUT_FROM_PREFIX_BYTES - 1)), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'an INPUT_FROM whose position plus bytes passes 2^64', asController: true, bytes: inputFromAt(0xffff_ffff_ffff_fffen, 'ab'), code: ErrorCode.BAD_PAYLOAD },
  { behaviour: 'a RESIZE to 0 columns', asController: true, bytes: encodeResize(0, 24), code: ErrorCode.BAD_SIZE },
  { behaviour: 'a RESIZE to 0 rows', asController: true, bytes: encodeResize(80, 0), code: ErrorCode.BAD_SIZE },
  { behaviour: 'a RESIZE to 1001 columns', asController: true, bytes: encodeResize(1001, 24), code: ErrorCode.BAD_SIZE },
  { behaviour: 'a RESIZE to 65535x65535', asController: true, bytes: encodeResize(65535, 65535), code: ErrorCode.BAD_SIZE },
  { behaviour: 'a STATE_REQ before HELLO', noHello: true, bytes: encodeFrame(FrameType.STATE_REQ), code: ErrorCode.NO_HELLO },
  { behaviour: 'an ACQUIRE before HELLO', noHello: true, bytes: encodeFrame(FrameType.ACQUIRE), code: ErrorCode.NO_HELLO },
  { behaviour: 'a HELLO with a version newer than the holder', noHello: true, bytes: encodeHello(PROTOCOL_VERSION + 1), code: ErrorCode.VERSION },
  { behaviour: 'a HELLO with version 0', noHello: true, bytes: encodeHello(0), code: ErrorCode.VERSION },
];

describe('bad input is refused with ERROR and a closed connection; the holder and its child live on', { timeout: HOLDER_TEST_TIMEOUT_MS * 3 }, () => {
  const scope = new TestScope();
  let h: StartedHolder;
  before(async () => {
    h = await startHolder(scope, { argv: ['cat'] });
  });
  after(() => scope.dispose());

  for (const c of cases) {
    test(`${c.behaviour} is ERROR ${errorCodeName(c.code)}`, async () => {
      const raw = await RawHolderSocket.connect(scope, h.socketPath);
      if (!c.noHello) await raw.hello();
      if (c.asController) {
        raw.send(encodeFrame(FrameType.ACQUIRE));
        // The previous test's controller may still be closing on the holder side.
        await raw.waitForFrame('acquired').catch(() => {
          throw new Error(`lease not granted: ${JSON.stringify(raw.frames)}`);
        });
      }
      raw.send(c.bytes);
      if (c.endAfter) raw.socket.end();
      const err = await raw.waitForFrame('error');
      assert.equal(errorCodeName(err.code), errorCodeName(c.code), `message: ${err.message}`);
      assert.ok(err.message.length > 0, 'the ERROR says why');
      await raw.waitForEnd();
      raw.socket.destroy();
      await assertHolderServes(h);
      if (c.asController) {
        // The refused controller's lease is free again.
        const next = await HolderConnection.connect(h.socketPath);
        try {
          await waitFor(async () => (await next.acquire()) === 'acquired', { what: 'the lease to free' });
        } finally {
          next.dispose();
        }
      }
    });
  }

  test('HolderConnection.connect with a version the holder cannot speak rejects with the holder\'s VERSION error', async () => {
    await assert.rejects(HolderConnection.connect(h.socketPath, { version: 99 }), (err: unknown) => {
      assert.equal((err as { name: string }).name, 'HolderErrorReply');
      assert.equal((err as { holderCode: number }).holderCode, ErrorCode.VERSION);
      assert.match((err as Error).message, /^holder refused: VERSION: /);
      return true;
    });
    await assertHolderServes(h);
  });

  test('the child is the same process after all the bad input', async () => {
    const conn = await HolderConnection.connect(h.socketPath);
    try {
      assert.equal(conn.lastState.childPid, h.childPid);
      assert.equal(conn.lastState.exited, false);
    } finally {
      conn.dispose();
    }
  });
});
