// The server's WebSocket framer over real sockets: an HTTP server on a unix
// socket of the test's own, upgraded with websocket-handshake and served by
// ServerWebSocket; on the other end the `ws` library (a client the framer did
// not write) or raw bytes, for what a well-behaved client never sends.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { ServerWebSocket, type ServerWebSocketHandlers } from './server-websocket.js';
import { acceptUpgrade, checkUpgrade, refuseUpgrade } from './websocket-handshake.js';

interface Served {
  ws: ServerWebSocket;
  /** The upgraded socket under it. */
  socket: Duplex;
  messages: Buffer[];
  closed: Promise<void>;
  closeCount: number;
}

interface Endpoint {
  socketPath: string;
  /** The next socket the server takes. */
  nextSocket(): Promise<Served>;
}

/** A server whose sockets echo every binary message, unless `handlers` say otherwise. */
async function endpoint(t: TestContext, options: { maxMessageBytes?: number; closeTimeoutMs?: number; echo?: boolean } = {}): Promise<Endpoint> {
  const dir = mkdtempSync(join(tmpdir(), 'tend-sws-'));
  const socketPath = join(dir, 's.sock');
  const served: Served[] = [];
  const waiting: Array<(s: Served) => void> = [];
  const upgraded = new Set<Duplex>();
  const http = createServer((_req, res) => res.writeHead(404).end());
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    const verdict = checkUpgrade(req);
    if (!verdict.ok) {
      refuseUpgrade(socket, verdict.status, verdict.reason);
      return;
    }
    acceptUpgrade(socket, verdict.accept);
    let closedNow!: () => void;
    const s: Served = { ws: null as unknown as ServerWebSocket, socket, messages: [], closed: new Promise((r) => (closedNow = r)), closeCount: 0 };
    const handlers: ServerWebSocketHandlers = {
      onMessage: (m) => {
        s.messages.push(m);
        if (options.echo !== false) s.ws.send(m);
      },
      onClose: () => {
        s.closeCount++;
        closedNow();
      },
    };
    s.ws = new ServerWebSocket(socket, head, { maxMessageBytes: options.maxMessageBytes ?? 1024 * 1024, closeTimeoutMs: options.closeTimeoutMs }, handlers);
    const w = waiting.shift();
    if (w) w(s);
    else served.push(s);
  });
  await new Promise<void>((resolve) => http.listen(socketPath, resolve));
  t.after(async () => {
    // Upgraded sockets are no longer the HTTP server's to close.
    for (const socket of upgraded) socket.destroy();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    socketPath,
    nextSocket: () => {
      const s = served.shift();
      return s ? Promise.resolve(s) : new Promise((r) => waiting.push(r));
    },
  };
}

function wsClient(t: TestContext, socketPath: string): WebSocket {
  const ws = new WebSocket(`ws+unix://${socketPath}:/`, { perMessageDeflate: false });
  ws.on('error', () => undefined);
  t.after(() => ws.terminate());
  return ws;
}

/** A ws client of a server that echoes nothing: what the client got, and the server's side of its socket. */
async function collectingClient(t: TestContext): Promise<{ ws: WebSocket; got: Buffer[]; served: Served }> {
  const { socketPath, nextSocket } = await endpoint(t, { echo: false });
  const ws = wsClient(t, socketPath);
  const got: Buffer[] = [];
  ws.on('message', (data: Buffer) => got.push(data));
  await new Promise((resolve) => ws.once('open', resolve));
  return { ws, got, served: await nextSocket() };
}

/** A raw socket: what it has read so far, and a way to wait for more. */
interface Raw {
  socket: Socket;
  received(): Buffer;
  waitFor(check: (all: Buffer) => boolean, what: string): Promise<Buffer>;
  ended: Promise<void>;
}

function rawClient(t: TestContext, socketPath: string): Raw {
  const socket = connect(socketPath);
  t.after(() => socket.destroy());
  let all = Buffer.alloc(0);
  const checks: Array<() => void> = [];
  let endedNow!: () => void;
  const ended = new Promise<void>((r) => (endedNow = r));
  socket.on('data', (d: Buffer) => {
    all = Buffer.concat([all, d]);
    for (const c of [...checks]) c();
  });
  socket.on('end', () => endedNow());
  socket.on('close', () => endedNow());
  socket.on('error', () => undefined);
  return {
    socket,
    ended,
    received: () => all,
    waitFor: (check, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(all.toString('latin1'))}`)), 10_000);
        const run = () => {
          if (!check(all)) return;
          clearTimeout(timer);
          checks.splice(checks.indexOf(run), 1);
          resolve(all);
        };
        checks.push(run);
        run();
      }),
  };
}

const RFC_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const RFC_ACCEPT = 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=';

function upgradeRequest(headers: Record<string, string>, method = 'GET'): string {
  const all: Record<string, string> = { Host: 'localhost', Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Key': RFC_KEY, 'Sec-WebSocket-Version': '13', ...headers };
  const lines = Object.entries(all).filter(([, v]) => v !== '').map(([k, v]) => `${k}: ${v}\r\n`);
  return `${method} / HTTP/1.1\r\n${lines.join('')}\r\n`;
}

const headEnd = (b: Buffer) => b.indexOf('\r\n\r\n') >= 0;

/** Opens a raw socket through the handshake; returns it with the 101's bytes dropped. */
async function rawOpen(t: TestContext, socketPath: string): Promise<Raw & { afterHandshake(): Buffer }> {
  const raw = rawClient(t, socketPath);
  raw.socket.write(upgradeRequest({}));
  const reply = await raw.waitFor(headEnd, 'the 101');
  const start = reply.indexOf('\r\n\r\n') + 4;
  assert.match(reply.toString('latin1'), /^HTTP\/1\.1 101 /);
  return { ...raw, afterHandshake: () => raw.received().subarray(start) };
}

/** A masked client frame. */
function clientFrame(opcode: number, payload: Buffer, mask = true): Buffer {
  const len = payload.length;
  const ext = len < 126 ? 0 : len < 0x10000 ? 2 : 8;
  const head = Buffer.alloc(2 + ext);
  head[0] = 0x80 | opcode;
  head[1] = (mask ? 0x80 : 0) | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) head.writeUInt16BE(len, 2);
  if (ext === 8) head.writeBigUInt64BE(BigInt(len), 2);
  const key = Buffer.from([1, 2, 3, 4]);
  const body = Buffer.from(payload.map((b, i) => (mask ? b ^ key[i & 3]! : b)));
  return Buffer.concat([head, mask ? key : Buffer.alloc(0), body]);
}

/** The server frames in `bytes` (unmasked, as a server sends), parsed by hand. */
function serverFrames(bytes: Buffer): Array<{ opcode: number; masked: boolean; payload: Buffer }> {
  const frames = [];
  let at = 0;
  while (at + 2 <= bytes.length) {
    const len7 = bytes[at + 1]! & 0x7f;
    let len = len7;
    let p = at + 2;
    if (len7 === 126) (len = bytes.readUInt16BE(p)), (p += 2);
    else if (len7 === 127) (len = Number(bytes.readBigUInt64BE(p))), (p += 8);
    if (p + len > bytes.length) break;
    frames.push({ opcode: bytes[at]! & 0x0f, masked: (bytes[at + 1]! & 0x80) !== 0, payload: bytes.subarray(p, p + len) });
    at = p + len;
  }
  return frames;
}

test("the RFC 6455 §1.3 handshake: its key is answered with its accept, and an offer of permessage-deflate is declined by silence", async (t) => {
  const { socketPath } = await endpoint(t);
  const raw = rawClient(t, socketPath);
  raw.socket.write(upgradeRequest({ 'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits' }));
  const reply = (await raw.waitFor(headEnd, 'the 101')).toString('latin1');
  const [status, ...headers] = reply.slice(0, reply.indexOf('\r\n\r\n')).split('\r\n');
  assert.equal(status, 'HTTP/1.1 101 Switching Protocols');
  const names = new Map(headers.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));
  assert.equal(names.get('sec-websocket-accept'), RFC_ACCEPT);
  assert.equal(names.get('upgrade'), 'websocket');
  assert.equal(names.get('connection'), 'Upgrade');
  assert.equal(names.has('sec-websocket-extensions'), false);
});

test('an upgrade the server cannot take is refused with 426 (other version) or 400, a plain-text reason, and the socket ended', async (t) => {
  const { socketPath } = await endpoint(t);
  const cases: Array<[string, string, RegExp, RegExp]> = [
    ['version 8', upgradeRequest({ 'Sec-WebSocket-Version': '8' }), /^HTTP\/1\.1 426 Upgrade Required\r\n/, /speaks WebSocket version 13; the request asked for "8"/],
    ['no version', upgradeRequest({ 'Sec-WebSocket-Version': '' }), /^HTTP\/1\.1 426 /, /asked for none/],
    ['no key', upgradeRequest({ 'Sec-WebSocket-Key': '' }), /^HTTP\/1\.1 400 Bad Request\r\n/, /no valid Sec-WebSocket-Key/],
    ['a key of 15 bytes', upgradeRequest({ 'Sec-WebSocket-Key': Buffer.alloc(15).toString('base64') }), /^HTTP\/1\.1 400 /, /Sec-WebSocket-Key/],
    ['Upgrade: h2c', upgradeRequest({ Upgrade: 'h2c' }), /^HTTP\/1\.1 400 /, /Upgrade: websocket/],
    ['a POST', upgradeRequest({}, 'POST'), /^HTTP\/1\.1 400 /, /GET request, not POST/],
  ];
  for (const [what, request, status, reason] of cases) {
    const raw = rawClient(t, socketPath);
    raw.socket.write(request);
    await raw.ended;
    const reply = raw.received().toString('utf8');
    assert.match(reply, status, what);
    assert.match(reply, reason, what);
    assert.match(reply, /Content-Type: text\/plain/, what);
    if (/ 426 /.test(reply)) assert.match(reply, /\r\nSec-WebSocket-Version: 13\r\n/, what);
  }
});

test('binary messages of every length class go both ways through a ws client, in order', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t);
  const ws = wsClient(t, socketPath);
  const echoed: Buffer[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    assert.equal(isBinary, true);
    echoed.push(data);
  });
  await new Promise((resolve) => ws.once('open', resolve));
  const served = await nextSocket();
  const sizes = [0, 1, 125, 126, 65535, 65536, 65537, 300_000, 1024 * 1024];
  const sent = sizes.map((n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 13 + n) & 0xff)));
  for (const b of sent) ws.send(b);
  await new Promise<void>((resolve) => {
    const check = () => (echoed.length === sent.length ? resolve() : setTimeout(check, 5));
    check();
  });
  assert.deepEqual(served.messages.map((m) => m.length), sizes);
  for (let i = 0; i < sent.length; i++) {
    assert.ok(served.messages[i]!.equals(sent[i]!), `server got message ${i} (${sizes[i]} bytes) intact`);
    assert.ok(echoed[i]!.equals(sent[i]!), `client got message ${i} (${sizes[i]} bytes) back intact`);
  }
});

test('messages sent in one round of the event loop leave in one socket write, in order', async (t) => {
  const { ws, got, served } = await collectingClient(t);
  // Each call of the socket's _write or _writev is one write to the kernel.
  const socket = served.socket as Duplex & { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void };
  let writes = 0;
  const write = socket._write.bind(socket);
  socket._write = (...a: unknown[]) => { writes++; write(...a); };
  const writev = socket._writev?.bind(socket);
  if (writev) socket._writev = (...a: unknown[]) => { writes++; writev(...a); };
  // An echo then its INPUT_TAKEN, as a holder's one reply has them sent.
  served.ws.send(Buffer.from('echo'));
  await Promise.resolve();
  served.ws.send(Buffer.from('taken'));
  await new Promise<void>((resolve) => {
    const check = () => (got.length === 2 ? resolve() : setTimeout(check, 5));
    check();
  });
  assert.deepEqual(got.map((b) => b.toString()), ['echo', 'taken']);
  assert.equal(writes, 1);
});

test('a fragmented message with a ping between its fragments: the ping is answered with its payload, the message comes whole', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t, { echo: false });
  const raw = await rawOpen(t, socketPath);
  const served = await nextSocket();
  const part = (op: number, fin: boolean, payload: Buffer) => {
    const f = clientFrame(op, payload);
    if (!fin) f[0] = f[0]! & 0x7f;
    return f;
  };
  raw.socket.write(Buffer.concat([part(0x2, false, Buffer.from('abc')), clientFrame(0x9, Buffer.from('ping?')), part(0x0, true, Buffer.from('def'))]));
  await raw.waitFor(() => serverFrames(raw.afterHandshake()).length >= 1, 'the pong');
  const [pong] = serverFrames(raw.afterHandshake());
  assert.deepEqual({ opcode: pong!.opcode, masked: pong!.masked, payload: pong!.payload.toString() }, { opcode: 0xa, masked: false, payload: 'ping?' });
  await new Promise<void>((resolve) => {
    const check = () => (served.messages.length > 0 ? resolve() : setTimeout(check, 5));
    check();
  });
  assert.deepEqual(served.messages.map((m) => m.toString()), ['abcdef']);
});

test("the client's close is answered with its code, then the socket ends and onClose runs once", async (t) => {
  const { socketPath, nextSocket } = await endpoint(t);
  const ws = wsClient(t, socketPath);
  await new Promise((resolve) => ws.once('open', resolve));
  const served = await nextSocket();
  const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code: number, reason: Buffer) => resolve([code, reason.toString()])));
  ws.close(4000, 'done here');
  assert.deepEqual(await closed, [4000, '']);
  await served.closed;
  assert.equal(served.closeCount, 1);
  assert.equal(served.ws.isOpen, false);
});

test('close() sends its code and a reason cut to 123 bytes on a character boundary; the client answers and the socket ends', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t);
  const ws = wsClient(t, socketPath);
  await new Promise((resolve) => ws.once('open', resolve));
  const served = await nextSocket();
  const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code: number, reason: Buffer) => resolve([code, reason.toString()])));
  // 'é' is 2 bytes: 61 of them are 122 bytes, the 62nd would straddle 123.
  served.ws.close(1008, 'é'.repeat(70));
  const [code, reason] = await closed;
  assert.equal(code, 1008);
  assert.equal(reason, 'é'.repeat(61));
  await served.closed;
  assert.equal(served.closeCount, 1);
  // Nothing is sent once closing.
  served.ws.send(Buffer.from('late'));
});

test('an unmasked frame fails the socket at once: a close frame 1002 saying why, then the end, without waiting for an answer', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t);
  const raw = await rawOpen(t, socketPath);
  const served = await nextSocket();
  raw.socket.write(clientFrame(0x2, Buffer.from('hi'), false));
  await raw.ended;
  const frames = serverFrames(raw.afterHandshake());
  assert.equal(frames.length, 1);
  assert.equal(frames[0]!.opcode, 0x8);
  assert.equal(frames[0]!.payload.readUInt16BE(0), 1002);
  assert.match(frames[0]!.payload.subarray(2).toString(), /unmasked/);
  // The client has not closed its side: the server's end came first.
  raw.socket.end();
  await served.closed;
  assert.deepEqual(served.messages, []);
});

test('a message over the limit is refused at its header with 1009, before its payload is sent', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t, { maxMessageBytes: 1000 });
  const raw = await rawOpen(t, socketPath);
  await nextSocket();
  // Only the 4 header bytes and the mask of a 1 MiB frame.
  raw.socket.write(clientFrame(0x2, Buffer.alloc(1024 * 1024)).subarray(0, 14));
  await raw.ended;
  const [close] = serverFrames(raw.afterHandshake());
  assert.equal(close!.opcode, 0x8);
  assert.equal(close!.payload.readUInt16BE(0), 1009);
  assert.equal(close!.payload.subarray(2).toString(), 'a message of 1048576 bytes is over the 1000-byte limit');
});

test('a client that never answers close() is cut after the close timeout', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t, { closeTimeoutMs: 200 });
  const raw = await rawOpen(t, socketPath);
  const served = await nextSocket();
  const started = Date.now();
  served.ws.close(1001, 'going');
  await served.closed;
  assert.ok(Date.now() - started >= 150, 'it waited for the answer first');
  const [close] = serverFrames(raw.afterHandshake());
  assert.equal(close!.payload.readUInt16BE(0), 1001);
});

test('a client that ends its side is ended too, and onClose runs', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t);
  const raw = await rawOpen(t, socketPath);
  const served = await nextSocket();
  raw.socket.end();
  await served.closed;
  assert.equal(served.closeCount, 1);
});

test('bufferedAmount counts what a client that does not read has left unsent', async (t) => {
  const { socketPath, nextSocket } = await endpoint(t);
  const raw = await rawOpen(t, socketPath);
  raw.socket.pause();
  const served = await nextSocket();
  assert.equal(served.ws.bufferedAmount, 0);
  const chunk = Buffer.alloc(256 * 1024, 0x41);
  for (let i = 0; i < 64; i++) served.ws.send(chunk);
  // 16 MiB cannot all fit the kernel's socket buffers.
  assert.ok(served.ws.bufferedAmount > 1024 * 1024, `bufferedAmount ${served.ws.bufferedAmount}`);
  served.ws.terminate();
  await served.closed;
});

test('frames built in reused buffers reach a client that read nothing for a while intact: no buffer is reused while a socket still holds it', async (t) => {
  const { ws, got, served } = await collectingClient(t);
  // The client stops reading, so the kernel's buffers fill and the socket queues the rest.
  (ws as unknown as { _socket: Socket })._socket.pause();
  const count = 160;
  const payload = 64 * 1024;
  const fill = (i: number) => (i * 7 + 1) & 0xff;
  // Across rounds of the event loop, so written frames' buffers come back and are built into again.
  for (let round = 0; round < 8; round++) {
    for (let i = round * (count / 8); i < (round + 1) * (count / 8); i++) {
      served.ws.sendBuilt(payload, (into, at) => into.fill(fill(i), at, at + payload));
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.ok(served.ws.bufferedAmount > 0, 'the socket queued frames the client had not read');
  (ws as unknown as { _socket: Socket })._socket.resume();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${got.length} of ${count} frames came`)), 20_000);
    const check = () => (got.length === count ? (clearTimeout(timer), resolve()) : setTimeout(check, 5));
    check();
  });
  got.forEach((m, i) => {
    assert.equal(m.length, payload, `frame ${i}'s length`);
    const wrong = m.findIndex((b) => b !== fill(i));
    assert.equal(wrong, -1, `frame ${i} holds only its own byte (byte ${wrong} is ${m[wrong]})`);
  });
});
