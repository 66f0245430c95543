// HolderConnection against a peer that breaks the protocol on purpose. A real
// holder never sends a hole or an overlap, so these cases need a scripted
// peer: a real unix socket whose other end writes exactly the frames given.
// Behaviour against real holders is tested in test/holder/.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HolderConnection, type CloseEvent, type OutputEvent, type ReplayEvent } from './holder-connection.js';
import {
  FrameType,
  HolderProtocolError,
  ReplayFlag,
  encodeFrame,
  encodeStatePayload,
} from '../protocol/holder-frames.js';
import { waitFor } from '../../test/support/wait-for.js';

const STATE = encodeFrame(
  FrameType.STATE,
  encodeStatePayload({
    version: 1,
    generation: 'ab'.repeat(16),
    ringStart: 0,
    offset: 10,
    childPid: 1,
    fgPgid: 1,
    cols: 80,
    rows: 24,
    exited: false,
    leased: false,
    youLease: false,
    exitCode: 0,
    exitSignal: 0,
    startedAtMs: 1,
    ringCapacity: 65536,
  }),
);

function streamFrame(type: number, offset: number, text: string, flags?: number): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const head = flags === undefined ? 8 : 9;
  const payload = new Uint8Array(head + bytes.byteLength);
  new DataView(payload.buffer).setBigUint64(0, BigInt(offset), true);
  if (flags !== undefined) payload[8] = flags;
  payload.set(bytes, head);
  return encodeFrame(type, payload);
}
const replay = (offset: number, text: string, flags = 0): Uint8Array => streamFrame(FrameType.REPLAY, offset, text, flags);
const output = (offset: number, text: string): Uint8Array => streamFrame(FrameType.OUTPUT, offset, text);

/** A unix socket peer: answers HELLO with STATE, then lets the test write bytes to the client. */
async function scriptedPeer(t: { after(fn: () => unknown): void }): Promise<{ path: string; client: Promise<Socket>; server: Server }> {
  const dir = mkdtempSync(join(tmpdir(), 'tend-hc-'));
  const path = join(dir, 'peer.sock');
  let gotClient!: (s: Socket) => void;
  const client = new Promise<Socket>((resolve) => (gotClient = resolve));
  const server = createServer((socket) => {
    socket.once('data', () => {
      socket.write(STATE);
      gotClient(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  t.after(async () => {
    (await Promise.race([client, Promise.resolve(null)]))?.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { path, client, server };
}

function record(conn: HolderConnection): { events: Array<ReplayEvent | OutputEvent>; closed: Promise<CloseEvent> } {
  const events: Array<ReplayEvent | OutputEvent> = [];
  conn.onReplay((e) => events.push(e));
  conn.onOutput((e) => events.push(e));
  const closed = new Promise<CloseEvent>((resolve) => conn.onClose(resolve));
  return { events, closed };
}

const texts = (events: Array<{ bytes: Uint8Array }>): string[] => events.map((e) => new TextDecoder().decode(e.bytes));

describe('HolderConnection checks the stream', { timeout: 20_000 }, () => {
  test('resolves connect with the first STATE as lastState', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    t.after(() => conn.dispose());
    assert.equal(conn.lastState.generation, 'ab'.repeat(16));
    assert.equal(conn.lastState.offset, 10);
  });

  test('passes a gap-free replay and output on and resolves dumpSince with the range', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    t.after(() => conn.dispose());
    const { events } = record(conn);
    const done = conn.dumpSince(4);
    const socket = await peer.client;
    socket.write(Buffer.concat([replay(4, 'ef'), replay(6, 'ghij', ReplayFlag.END), output(10, 'kl')]));
    assert.deepEqual(await done, { from: 4, to: 10, gap: false });
    await waitFor(() => events.length === 3, { what: 'three stream events' });
    assert.deepEqual(texts(events), ['ef', 'ghij', 'kl']);
  });

  test('an OUTPUT that skips bytes closes the connection with TEND_ERR_STREAM_DISCONTINUITY and is not passed on', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    const { events, closed } = record(conn);
    void conn.dumpSince(0);
    (await peer.client).write(Buffer.concat([replay(0, 'abc', ReplayFlag.END), output(3, 'de'), output(9, 'lost?')]));
    const { error } = await closed;
    assert.ok(error instanceof HolderProtocolError);
    assert.equal(error.code, 'TEND_ERR_STREAM_DISCONTINUITY');
    assert.equal(error.message, 'OUTPUT at 9, expected 5: a hole of 4 bytes');
    assert.deepEqual(texts(events), ['abc', 'de']);
    assert.ok(conn.isClosed);
  });

  test('a REPLAY that overlaps the previous frame is a discontinuity too', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    const { closed } = record(conn);
    const done = conn.dumpSince(0);
    (await peer.client).write(Buffer.concat([replay(0, 'abcd'), replay(2, 'cdef', ReplayFlag.END)]));
    const { error } = await closed;
    assert.equal((error as HolderProtocolError).code, 'TEND_ERR_STREAM_DISCONTINUITY');
    assert.equal(error!.message, 'REPLAY at 2, expected 4: 2 bytes sent twice');
    await assert.rejects(done, HolderProtocolError);
  });

  test('a replay that starts later than asked without the GAP flag is refused', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    const { closed } = record(conn);
    void conn.dumpSince(2);
    (await peer.client).write(replay(5, 'xyz', ReplayFlag.END));
    const { error } = await closed;
    assert.equal(error!.message, 'replay for DUMP_SINCE(2) starts at 5 without a gap');
  });

  test('OUTPUT still in flight from the old stream after a second DUMP_SINCE is dropped, not reported as a hole', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    t.after(() => conn.dispose());
    const { events } = record(conn);
    const first = conn.dumpSince(0);
    const socket = await peer.client;
    socket.write(replay(0, 'abcdef', ReplayFlag.END));
    await first;
    const second = conn.dumpSince(2);
    socket.write(Buffer.concat([output(6, 'old'), replay(2, 'cdefold', ReplayFlag.END), output(9, 'new')]));
    assert.deepEqual(await second, { from: 2, to: 9, gap: false });
    await waitFor(() => events.length === 3, { what: 'three stream events' });
    assert.deepEqual(texts(events), ['abcdef', 'cdefold', 'new']);
  });

  test('pause() stops delivery between two frames of one chunk; resume() delivers the rest in order', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    t.after(() => conn.dispose());
    const { events } = record(conn);
    conn.onReplay(() => conn.pause());
    void conn.dumpSince(0);
    (await peer.client).write(Buffer.concat([replay(0, 'a'), replay(1, 'b'), replay(2, 'c', ReplayFlag.END)]));
    await waitFor(() => events.length > 0, { what: 'the first REPLAY' });
    // Give the socket every chance to deliver more; a paused connection must not.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(texts(events), ['a']);
    const sub = conn.onReplay(() => undefined);
    conn.resume(); // delivers 'b', whose listener pauses again
    assert.deepEqual(texts(events), ['a', 'b']);
    conn.resume();
    assert.deepEqual(texts(events), ['a', 'b', 'c']);
    sub.dispose();
  });

  test('the holder closing inside a frame is TEND_ERR_TRUNCATED', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    const { closed } = record(conn);
    void conn.dumpSince(0);
    const socket = await peer.client;
    socket.end(replay(0, 'abcdef', ReplayFlag.END).subarray(0, 12));
    const { error } = await closed;
    assert.equal((error as HolderProtocolError).code, 'TEND_ERR_TRUNCATED');
  });

  test('an oversize frame length from the holder is TEND_ERR_FRAME_TOO_LARGE', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    const { closed } = record(conn);
    const header = new Uint8Array(5);
    header[0] = FrameType.OUTPUT;
    new DataView(header.buffer).setUint32(1, 0x7fff_ffff, true);
    (await peer.client).write(header);
    const { error } = await closed;
    assert.equal((error as HolderProtocolError).code, 'TEND_ERR_FRAME_TOO_LARGE');
  });

  test('INPUT_TAKEN frames cut across reads of a 16-byte shared buffer reach onInputTaken whole and in order', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path, { readBuffer: new Uint8Array(16) });
    t.after(() => conn.dispose());
    const got: Array<{ writer: Uint8Array; total: number }> = [];
    conn.onInputTaken((writer, total) => got.push({ writer, total }));
    const taken = (fill: number, total: number): Uint8Array => {
      const payload = new Uint8Array(24).fill(fill, 0, 16);
      new DataView(payload.buffer).setBigUint64(16, BigInt(total), true);
      return encodeFrame(FrameType.INPUT_TAKEN, payload);
    };
    (await peer.client).write(Buffer.concat([taken(1, 5), taken(2, 2 ** 40), taken(1, 9)]));
    await waitFor(() => got.length === 3, { what: 'three answers' });
    assert.deepEqual(
      got.map((a) => [[...new Set(a.writer)], a.writer.byteLength, a.total]),
      [[[1], 16, 5], [[2], 16, 2 ** 40], [[1], 16, 9]],
    );
  });

  test('connect rejects after timeoutMs when the peer never answers HELLO', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tend-hc-'));
    const path = join(dir, 'silent.sock');
    const sockets: Socket[] = [];
    const server = createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    t.after(() => {
      for (const s of sockets) s.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await assert.rejects(HolderConnection.connect(path, { timeoutMs: 200 }), {
      message: `holder at ${path} did not answer HELLO within 200 ms`,
    });
  });

  test('connect to a socket that does not exist rejects naming it', async () => {
    const path = join(tmpdir(), 'tend-no-such-holder.sock');
    await assert.rejects(HolderConnection.connect(path), (err: Error) => err.message.includes(path) && /ENOENT/.test(err.message));
  });

  test('requests after the connection closed throw HolderConnectionClosedError; dispose fires no close event', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path);
    let closeEvents = 0;
    conn.onClose(() => closeEvents++);
    conn.dispose();
    assert.throws(() => conn.input('x'), { name: 'HolderConnectionClosedError' });
    assert.throws(() => conn.state(), { name: 'HolderConnectionClosedError' });
    assert.throws(() => conn.resize(0, 10), RangeError);
    assert.equal(closeEvents, 0);
  });
});

describe('HolderConnection reading into a shared buffer', { timeout: 20_000 }, () => {
  /** Collects stream bytes as a listener that keeps them must: copied. */
  function collect(conn: HolderConnection): { text: () => string; closed: Promise<CloseEvent> } {
    const parts: Uint8Array[] = [];
    conn.onReplay((e) => parts.push(e.bytes.slice()));
    conn.onOutput((e) => parts.push(e.bytes.slice()));
    const closed = new Promise<CloseEvent>((resolve) => conn.onClose(resolve));
    return { text: () => parts.map((p) => new TextDecoder().decode(p)).join(''), closed };
  }

  for (const size of [7, 16]) test(`two connections sharing a ${size}-byte buffer each get their own stream exactly, one of them pausing mid-read`, async (t) => {
    // 7 bytes: every frame's header and prefix span reads; 16: a prefix lies in one read, its body in the next ones.
    const buffer = new Uint8Array(size);
    const peers = [await scriptedPeer(t), await scriptedPeer(t)];
    const conns = await Promise.all(peers.map((p) => HolderConnection.connect(p.path, { readBuffer: buffer })));
    t.after(() => conns.forEach((c) => c.dispose()));
    const got = conns.map(collect);
    const bodies = ['first connection: ' + 'a'.repeat(300), 'second connection: ' + 'b'.repeat(250)];
    // The first pauses after every piece and is resumed a turn later: what a read
    // brought beyond the piece is held, copied, while the buffer serves the other.
    conns[0]!.onOutput(() => {
      conns[0]!.pause();
      setImmediate(() => conns[0]!.resume());
    });
    const ends = await Promise.all(conns.map((c, i) => {
      const done = c.dumpSince(0);
      void peers[i]!.client.then((s) => {
        const body = bodies[i]!;
        s.write(Buffer.concat([replay(0, body.slice(0, 40), ReplayFlag.END), output(40, body.slice(40, 200)), output(200, body.slice(200))]));
      });
      return done;
    }));
    assert.deepEqual(ends.map((e) => e.to), [40, 40]);
    await waitFor(() => got.every((g, i) => g.text().length === bodies[i]!.length), { what: 'both streams whole' });
    assert.deepEqual(got.map((g) => g.text()), bodies);
  });

  test('a read that fills the buffer is the last from that socket in this turn of the loop', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path, { readBuffer: new Uint8Array(64) });
    t.after(() => conn.dispose());
    let turn = 0;
    let ticking = true;
    const tick = (): void => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    tick();
    t.after(() => (ticking = false));
    const turns: number[] = [];
    let text = '';
    conn.onReplay((e) => (text += new TextDecoder().decode(e.bytes)));
    conn.onOutput((e) => {
      turns.push(turn);
      text += new TextDecoder().decode(e.bytes);
    });
    const body = 'flood '.repeat(700);
    void conn.dumpSince(0);
    // All of it at once: without the yield the loop reads the socket dry (up to 32 reads) in one turn.
    (await peer.client).write(Buffer.concat([replay(0, 'x', ReplayFlag.END), output(1, body)]));
    await waitFor(() => text.length === body.length + 1, { what: 'the whole flood' });
    assert.ok(turns.length > 60, `${turns.length} pieces`);
    const repeats = turns.filter((n, i) => i > 0 && n === turns[i - 1]).length;
    assert.equal(repeats, 0, `pieces read in the same turn as the one before: ${repeats} of ${turns.length}`);
    assert.equal(text, 'x' + body);
  });

  test('the holder closing the connection is seen as a close, after the last bytes', async (t) => {
    const peer = await scriptedPeer(t);
    const conn = await HolderConnection.connect(peer.path, { readBuffer: new Uint8Array(64) });
    const got = collect(conn);
    void conn.dumpSince(0);
    (await peer.client).end(Buffer.concat([replay(0, 'all of it', ReplayFlag.END), output(9, ', and the rest')]));
    const { error } = await got.closed;
    assert.equal(error, null);
    assert.equal(got.text(), 'all of it, and the rest');
  });
});
