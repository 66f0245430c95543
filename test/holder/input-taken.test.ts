import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { HolderConnection } from '../../src/holder-client/index.js';
import { PROTOCOL_VERSION, WRITERS_REMEMBERED, encodeHello } from '../../src/protocol/holder-frames.js';
import { HOLDER_TEST_TIMEOUT_MS, RawHolderSocket, RecordingController, startHolder } from './holder-fixture.js';
import { RAW_READY, TakenLog, newWriter, rawEcho } from './taken-log.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A controller on a raw echo program: what follows RAW_READY in its output is what the PTY took. */
async function echoSession(t: Parameters<typeof useTestScope>[0]) {
  const scope = useTestScope(t);
  const h = await startHolder(scope, { argv: rawEcho });
  const ctl = await RecordingController.start(scope, h.socketPath);
  await ctl.waitForText(RAW_READY);
  const taken = new TakenLog(ctl.conn);
  const typed = (): string => ctl.text().slice(ctl.text().indexOf(RAW_READY) + RAW_READY.length);
  let markers = 0;
  /**
   * Sends a marker from a writer of its own and waits for its echo: input
   * sent before it has then all arrived. Returns what the PTY took before it.
   */
  const settle = async (): Promise<string> => {
    const marker = `|M${++markers}|`;
    ctl.conn.inputFrom(newWriter(), 0, encode(marker));
    await ctl.waitForText(marker);
    return typed().slice(0, typed().indexOf(marker));
  };
  return { scope, h, ctl, taken, typed, settle };
}

describe('INPUT_FROM: each byte of a writer reaches the program once', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('the holder answers the count it has taken, and a resend, whole or overlapping, reaches the PTY once', async (t) => {
    const { ctl, taken, settle } = await echoSession(t);
    const a = newWriter();
    assert.equal(ctl.conn.speaksInputAcks, true);
    ctl.conn.inputFrom(a, 0, encode('hello '));
    await taken.waitForTotal(a, 6);
    ctl.conn.inputFrom(a, 0, encode('hello ')); // the same bytes again
    ctl.conn.inputFrom(a, 3, encode('lo world')); // 3..5 it has, 6..10 are new
    await taken.waitForTotal(a, 11);
    ctl.conn.inputFrom(a, 0, encode('hello world')); // all of it again
    assert.equal(await settle(), 'hello world');
    assert.equal(taken.totalOf(a), 11);
  });

  test('a typist (a connection without the lease) types with INPUT_FROM: answered on its own connection, one count shared with the controller', async (t) => {
    const { scope, h, ctl, taken, settle } = await echoSession(t);
    const typist = scope.own(await HolderConnection.connect(h.socketPath));
    const typistTaken = new TakenLog(typist);
    const a = newWriter();
    typist.inputFrom(a, 0, encode('abc'));
    await typistTaken.waitForTotal(a, 3);
    // The same writer through the controller (a viewer whose route changed): only what is new is taken.
    ctl.conn.inputFrom(a, 0, encode('abcdef'));
    await taken.waitForTotal(a, 6);
    typist.inputFrom(a, 3, encode('def'));
    await typistTaken.waitForTotal(a, 6);
    assert.equal(await settle(), 'abcdef');
    assert.equal(ctl.closed, false, 'the controller keeps its lease');
  });

  test('bytes past the count (a hole) are not taken; the answer stays at the count', async (t) => {
    const { ctl, taken, settle } = await echoSession(t);
    const a = newWriter();
    ctl.conn.inputFrom(a, 0, encode('abc'));
    await taken.waitForTotal(a, 3);
    ctl.conn.inputFrom(a, 10, encode('XYZ'));
    assert.equal(await taken.ask(ctl.conn, a, 0), 3);
    ctl.conn.inputFrom(a, 3, encode('def'));
    await taken.waitForTotal(a, 6);
    assert.equal(await settle(), 'abcdef');
  });

  test('a question (no bytes) is answered and changes nothing; a writer the holder does not know starts where it says', async (t) => {
    const { ctl, taken, settle } = await echoSession(t);
    const a = newWriter();
    const b = newWriter();
    ctl.conn.inputFrom(a, 0, encode('12345'));
    await taken.waitForTotal(a, 5);
    assert.equal(await taken.ask(ctl.conn, a, 0), 5);
    assert.equal(await taken.ask(ctl.conn, a, 99), 5);
    // Unknown: the answer is where it would start; asking does not make it known.
    assert.equal(await taken.ask(ctl.conn, b, 40), 40);
    assert.equal(await taken.ask(ctl.conn, b, 0), 0);
    // Known from its first bytes, at 1000: a later resend of 1000.. is dropped.
    ctl.conn.inputFrom(b, 1000, encode('xy'));
    await taken.waitForTotal(b, 1002);
    ctl.conn.inputFrom(b, 1000, encode('xyz'));
    await taken.waitForTotal(b, 1003);
    assert.equal(await settle(), '12345xyz');
  });

  test(`a writer is forgotten after ${WRITERS_REMEMBERED} others were used since, and then starts over where it says`, async (t) => {
    const { ctl, taken, settle } = await echoSession(t);
    const writers = Array.from({ length: WRITERS_REMEMBERED + 1 }, () => newWriter());
    for (const [i, w] of writers.entries()) {
      ctl.conn.inputFrom(w, 0, encode(String.fromCharCode(0x41 + (i % 26))));
      await taken.waitForTotal(w, 1);
    }
    // The first is gone: a question answers where it would start.
    assert.equal(await taken.ask(ctl.conn, writers[0]!, 7), 7);
    // The other 64 are known: their resend is dropped and they answer 1.
    for (const w of writers.slice(1)) assert.equal(await taken.ask(ctl.conn, w, 7), 1);
    const expected = writers.map((_, i) => String.fromCharCode(0x41 + (i % 26))).join('');
    assert.equal(await settle(), expected);
    // The forgotten writer's resend is taken again (the holder cannot tell it
    // from new input); the most recent one's is dropped. (The marker's writer
    // and the first writer's return each pushed out the oldest: writers 1, 2.)
    ctl.conn.inputFrom(writers[0]!, 0, encode('A'));
    ctl.conn.inputFrom(writers.at(-1)!, 0, encode('M'));
    assert.equal(await settle(), `${expected}|M1|A`);
  });

  test('twenty thousand one-byte INPUT_FROM, read by a controller busy elsewhere, need one answer each: no BUSY, the last count is the sum', async (t) => {
    const { scope, ctl, taken, typed, settle } = await echoSession(t);
    const a = newWriter();
    const KEYS = 20_000;
    const watcher = scope.own(await HolderConnection.connect(ctl.conn.socketPath));
    const echoedBefore = (await watcher.state()).offset;
    // Stop reading the holder's frames while the keys go out: its answers wait in its control buffer.
    ctl.conn.pause();
    for (let i = 0; i < KEYS; i++) ctl.conn.inputFrom(a, i, encode(String.fromCharCode(0x61 + (i % 26))));
    // The program's echo shows the holder took every key while we were not reading.
    await waitFor(async () => (await watcher.state()).offset >= echoedBefore + KEYS, { what: `the echo of ${KEYS} keys`, timeoutMs: 60_000 });
    ctl.conn.resume();
    await taken.waitForTotal(a, KEYS, 60_000);
    assert.equal(ctl.closed, false, `closed: ${ctl.closeError?.message}`);
    t.diagnostic(`${KEYS} one-byte INPUT_FROM answered by ${taken.answers} INPUT_TAKEN frames`);
    assert.ok(taken.answers < KEYS, `${taken.answers} answers for ${KEYS} keys: unsent answers were not merged`);
    const text = await settle();
    assert.equal(text.length, KEYS, `typed ${typed().length}`);
  });
});

describe('HELLO version 1 still works', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a version-1 HELLO is answered with STATE of the holder\'s own version; such a connection types with INPUT and is told it has no INPUT_FROM', async (t) => {
    const scope = useTestScope(t);
    const h = await startHolder(scope, { argv: rawEcho });
    const raw = await RawHolderSocket.connect(scope, h.socketPath);
    raw.send(encodeHello(1));
    assert.equal((await raw.waitForFrame('state')).version, PROTOCOL_VERSION);

    const old = scope.own(await HolderConnection.connect(h.socketPath, { version: 1 }));
    assert.equal(old.lastState.version, PROTOCOL_VERSION);
    assert.equal(old.speaksInputAcks, false);
    assert.throws(() => old.inputFrom(newWriter(), 0, encode('x')), /protocol version 1, which has no INPUT_FROM/);
    assert.equal(await old.acquire(), 'acquired');
    let output = '';
    old.onReplay((e) => (output += Buffer.from(e.bytes).toString()));
    old.onOutput((e) => (output += Buffer.from(e.bytes).toString()));
    await old.dumpSince(0);
    old.input('typed-by-v1');
    await waitFor(() => output.includes(`${RAW_READY}typed-by-v1`), { what: 'the echo', describe: () => JSON.stringify(output) });
  });
});
