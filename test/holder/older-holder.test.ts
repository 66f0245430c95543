// A holder runs for weeks, so a new tend meets holders an older tend started.
// These build the last holders that spoke protocol versions 1 and 2 from the
// project's own history and drive them with today's client.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ErrorCode, HolderConnection, HolderErrorReply } from '../../src/holder-client/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/holder-frames.js';
import { HOLDER_TEST_TIMEOUT_MS, startHolder } from './holder-fixture.js';
import { RAW_READY, TakenLog, newWriter, rawEcho } from './taken-log.js';
import { LAST_VERSION_1_COMMIT, LAST_VERSION_2_COMMIT, buildHolderAt } from '../support/historic-holder.js';

describe('a holder started by an older tend', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a version-1 holder refuses HELLO 2; the client greets it again with 1, types with INPUT, and says it has no INPUT_FROM', async (t) => {
    const scope = useTestScope(t);
    const built = buildHolderAt(LAST_VERSION_1_COMMIT, scope.tempDir('tend-h1-'));
    if ('missing' in built) {
      t.skip(built.missing);
      return;
    }
    const h = await startHolder(scope, { argv: rawEcho, holderPath: built.path });
    // Asked for version 2 only, it refuses: what the fallback is for.
    await assert.rejects(HolderConnection.connect(h.socketPath, { version: PROTOCOL_VERSION }), (err: unknown) => {
      assert.ok(err instanceof HolderErrorReply && err.holderCode === ErrorCode.VERSION, String(err));
      return true;
    });
    const conn = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(conn.lastState.version, 1);
    assert.equal(conn.version, 1);
    assert.equal(conn.speaksInputAcks, false);
    assert.throws(() => conn.inputFrom(newWriter(), 0, new Uint8Array(1)), /protocol version 1, which has no INPUT_FROM/);
    assert.equal(await conn.acquire(), 'acquired');
    let output = '';
    conn.onReplay((e) => (output += Buffer.from(e.bytes).toString()));
    conn.onOutput((e) => (output += Buffer.from(e.bytes).toString()));
    await conn.dumpSince(0);
    conn.input('typed-into-an-old-holder');
    await waitFor(() => output.includes(`${RAW_READY}typed-into-an-old-holder`), { what: 'the echo', describe: () => JSON.stringify(output) });
  });

  test('a version-2 holder refuses HELLO 3; the client steps down to 2, not 1, so input is still acknowledged, and it cannot hand over', async (t) => {
    const scope = useTestScope(t);
    const built = buildHolderAt(LAST_VERSION_2_COMMIT, scope.tempDir('tend-h2-'));
    if ('missing' in built) {
      t.skip(built.missing);
      return;
    }
    const h = await startHolder(scope, { argv: rawEcho, holderPath: built.path });
    await assert.rejects(HolderConnection.connect(h.socketPath, { version: PROTOCOL_VERSION }), (err: unknown) => {
      assert.ok(err instanceof HolderErrorReply && err.holderCode === ErrorCode.VERSION, String(err));
      return true;
    });
    const conn = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(conn.lastState.version, 2);
    assert.equal(conn.version, 2);
    assert.equal(conn.lastState.build, null, 'a version-2 STATE has no build id');
    assert.equal(conn.speaksInputAcks, true);
    assert.equal(conn.speaksExec, false);
    assert.throws(() => conn.exec('/bin/true'), /protocol version 2, which cannot hand over/);
    assert.equal(await conn.acquire(), 'acquired');
    let output = '';
    conn.onReplay((e) => (output += Buffer.from(e.bytes).toString()));
    conn.onOutput((e) => (output += Buffer.from(e.bytes).toString()));
    await conn.dumpSince(0);
    const writer = newWriter();
    const taken = new TakenLog(conn);
    conn.inputFrom(writer, 0, Buffer.from('acknowledged-by-a-v2-holder'));
    await taken.waitForTotal(writer, 'acknowledged-by-a-v2-holder'.length);
    await waitFor(() => output.includes(`${RAW_READY}acknowledged-by-a-v2-holder`), { what: 'the echo', describe: () => JSON.stringify(output) });
  });
});
