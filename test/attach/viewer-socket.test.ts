// The WebSocket endpoint's own rules, on the real server's socket: the path,
// binary messages only, the HELLO handshake, and the server's own WebSocket
// framing (the handshake's checks, limits read from a frame's header, broken
// frames), on the unix socket and on the browsers' 127.0.0.1 port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import {
  DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES,
  VIEWER_PROTOCOL_VERSION,
  ViewerErrorCode,
  decodeFrameFromServer,
  encodeFrameToServer,
} from '../../src/protocol/viewer-frames.js';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, newSession, serverFor } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

function open(socketPath: string, path: string): WebSocket {
  const ws = new WebSocket(`ws+unix://${socketPath}:${path}`, { perMessageDeflate: false });
  ws.on('error', () => undefined);
  return ws;
}

test('an upgrade on another path is refused with 404', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const ws = open(server.client.paths.serverSocket, '/v1/not-a-viewer');
  scope.own({ dispose: () => ws.terminate() });
  const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  assert.equal(status, 404);
});

test('a text message gets ERROR UNKNOWN_FRAME and the socket closed 1003; a frame before HELLO gets NO_HELLO', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  for (const [send, code, closeCode] of [
    [(ws: WebSocket) => ws.send('hello as text'), ViewerErrorCode.UNKNOWN_FRAME, 1003],
    [(ws: WebSocket) => ws.send(encodeFrameToServer({ type: 'ack', channel: 1, seq: 0 })), ViewerErrorCode.NO_HELLO, 1008],
  ] as const) {
    const ws = open(server.client.paths.serverSocket, '/v1/viewer');
    scope.own({ dispose: () => ws.terminate() });
    const frames: ReturnType<typeof decodeFrameFromServer>[] = [];
    let closed: number | null = null;
    ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
    ws.on('close', (c: number) => (closed = c));
    await new Promise((resolve) => ws.once('open', resolve));
    send(ws);
    await waitFor(() => closed !== null, { what: 'the socket to close' });
    assert.equal(closed, closeCode);
    const error = frames.find((f) => f.type === 'error');
    assert.ok(error && error.type === 'error' && error.code === code, JSON.stringify(frames));
  }
});

/** A socket speaking WebSocket by hand: what a well-behaved client never sends. */
class RawSocket {
  received = Buffer.alloc(0);
  ended = false;
  private bodyStart = -1;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => (this.received = Buffer.concat([this.received, d])));
    socket.on('close', () => (this.ended = true));
    socket.on('error', () => undefined);
  }

  static unix(path: string): RawSocket {
    return new RawSocket(connect(path));
  }

  static tcp(port: number): RawSocket {
    return new RawSocket(connect(port, '127.0.0.1'));
  }

  /** Sends an upgrade request and waits for the answer's head; returns its status line and headers. */
  async upgrade(headers: Record<string, string>): Promise<{ status: string; headers: Map<string, string>; body: () => string }> {
    const all = { Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version': '13', ...headers };
    const lines = Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    this.socket.write(`GET /v1/viewer HTTP/1.1\r\n${lines}\r\n`);
    await waitFor(() => this.received.indexOf('\r\n\r\n') >= 0 || this.ended, { what: 'the answer to the upgrade' });
    const end = this.received.indexOf('\r\n\r\n');
    this.bodyStart = end + 4;
    const [status = '', ...rest] = this.received.subarray(0, end).toString('latin1').split('\r\n');
    const map = new Map(rest.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));
    return { status, headers: map, body: () => this.received.subarray(this.bodyStart).toString('utf8') };
  }

  /** A client frame, masked unless told; `length` may announce more than `payload` holds. */
  sendFrame(opcode: number, payload: Uint8Array, o: { masked?: boolean; rsv1?: boolean; length?: number } = {}): void {
    const masked = o.masked ?? true;
    const length = o.length ?? payload.length;
    const ext = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
    const head = Buffer.alloc(2 + ext);
    head[0] = 0x80 | (o.rsv1 ? 0x40 : 0) | opcode;
    head[1] = (masked ? 0x80 : 0) | (ext === 0 ? length : ext === 2 ? 126 : 127);
    if (ext === 2) head.writeUInt16BE(length, 2);
    if (ext === 8) head.writeBigUInt64BE(BigInt(length), 2);
    const key = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);
    const body = Buffer.from(payload).map((b, i) => (masked ? b ^ key[i & 3]! : b));
    this.socket.write(Buffer.concat([head, masked ? key : Buffer.alloc(0), body]));
  }

  /** The server's frames after the 101 (unmasked, as a server sends). */
  frames(): Array<{ opcode: number; masked: boolean; payload: Buffer }> {
    const bytes = this.received.subarray(this.bodyStart);
    const out = [];
    let at = 0;
    while (at + 2 <= bytes.length) {
      const len7 = bytes[at + 1]! & 0x7f;
      let p = at + 2;
      let len = len7;
      if (len7 === 126) (len = bytes.readUInt16BE(p)), (p += 2);
      else if (len7 === 127) (len = Number(bytes.readBigUInt64BE(p))), (p += 8);
      if (p + len > bytes.length) break;
      out.push({ opcode: bytes[at]! & 0x0f, masked: (bytes[at + 1]! & 0x80) !== 0, payload: bytes.subarray(p, p + len) });
      at = p + len;
    }
    return out;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;

function loopbackPort(server: { client: { paths: { runtimeDir: string } } }): number {
  return Number(readFileSync(join(server.client.paths.runtimeDir, 'port'), 'utf8').trim());
}

test('a frame over the 1 MiB limit is answered ERROR TOO_LARGE and close 1009 from its header alone, before any of its payload is sent', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  for (const announced of [DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES + 1, 64 * 1024 * 1024]) {
    const raw = RawSocket.unix(server.client.paths.serverSocket);
    scope.own({ dispose: () => raw.destroy() });
    const answer = await raw.upgrade({ Host: 'localhost' });
    assert.match(answer.status, /^HTTP\/1\.1 101 /);
    raw.sendFrame(OP_BINARY, new Uint8Array(0), { length: announced });
    await waitFor(() => raw.ended, { what: `the server to end the socket after a ${announced}-byte header` });
    const [error, close, ...rest] = raw.frames();
    assert.equal(rest.length, 0);
    assert.equal(error!.opcode, OP_BINARY);
    const frame = decodeFrameFromServer(error!.payload);
    assert.ok(frame.type === 'error' && frame.code === ViewerErrorCode.TOO_LARGE, JSON.stringify(frame));
    assert.equal(frame.message, `a message of ${announced} bytes is over the ${DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES}-byte limit`);
    assert.equal(close!.opcode, OP_CLOSE);
    assert.equal(close!.payload.readUInt16BE(0), 1009);
    assert.equal(close!.payload.subarray(2).toString(), frame.message);
  }
});

test('a broken frame (unmasked, or compressed without agreement) closes the socket 1002 with the reason; other viewers are served on', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const hello = encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true });
  for (const [what, options, reason] of [
    ['unmasked', { masked: false }, /unmasked WebSocket frame/],
    ['RSV1 (permessage-deflate) set', { rsv1: true }, /reserved bits/],
  ] as const) {
    const raw = RawSocket.unix(server.client.paths.serverSocket);
    scope.own({ dispose: () => raw.destroy() });
    await raw.upgrade({ Host: 'localhost' });
    raw.sendFrame(OP_BINARY, hello, options);
    await waitFor(() => raw.ended, { what: `the server to end the socket after an ${what} frame` });
    const frames = raw.frames();
    assert.equal(frames.length, 1, what);
    assert.equal(frames[0]!.opcode, OP_CLOSE, what);
    assert.equal(frames[0]!.payload.readUInt16BE(0), 1002, what);
    assert.match(frames[0]!.payload.subarray(2).toString(), reason, what);
  }
  // A well-formed HELLO on a fresh socket still gets its WELCOME.
  const raw = RawSocket.unix(server.client.paths.serverSocket);
  scope.own({ dispose: () => raw.destroy() });
  await raw.upgrade({ Host: 'localhost' });
  raw.sendFrame(OP_BINARY, hello);
  await waitFor(() => raw.frames().length > 0, { what: 'WELCOME' });
  assert.equal(decodeFrameFromServer(raw.frames()[0]!.payload).type, 'welcome');
});

test('the handshake on the unix socket and the 127.0.0.1 port: version 8 is refused 426 naming 13; a permessage-deflate offer is answered without the extension and plain frames flow', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const port = loopbackPort(server);
  const sockets: Array<[string, () => RawSocket, string]> = [
    ['unix socket', () => RawSocket.unix(server.client.paths.serverSocket), 'localhost'],
    ['127.0.0.1', () => RawSocket.tcp(port), `127.0.0.1:${port}`],
  ];
  for (const [where, open, host] of sockets) {
    const old = open();
    scope.own({ dispose: () => old.destroy() });
    const refused = await old.upgrade({ Host: host, 'Sec-WebSocket-Version': '8' });
    assert.equal(refused.status, 'HTTP/1.1 426 Upgrade Required', where);
    assert.equal(refused.headers.get('sec-websocket-version'), '13', where);
    await waitFor(() => old.ended, { what: 'the refused socket to end' });
    assert.match(refused.body(), /this server speaks WebSocket version 13; the request asked for "8"/, where);

    const raw = open();
    scope.own({ dispose: () => raw.destroy() });
    const answer = await raw.upgrade({
      Host: host,
      Origin: `http://${host}`,
      'Sec-WebSocket-Extensions': 'permessage-deflate; client_max_window_bits',
    });
    assert.equal(answer.status, 'HTTP/1.1 101 Switching Protocols', where);
    assert.equal(answer.headers.get('sec-websocket-accept'), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=', where);
    assert.equal(answer.headers.has('sec-websocket-extensions'), false, where);
    raw.sendFrame(OP_BINARY, encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'web', readOnly: true }));
    await waitFor(() => raw.frames().length > 0, { what: `WELCOME on the ${where}` });
    const [welcome] = raw.frames();
    assert.equal(welcome!.masked, false, where);
    assert.equal(decodeFrameFromServer(welcome!.payload).type, 'welcome', where);
  }
});

test('a ping from the viewer is answered with a pong carrying its payload', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const ws = open(server.client.paths.serverSocket, '/v1/viewer');
  scope.own({ dispose: () => ws.terminate() });
  await new Promise((resolve) => ws.once('open', resolve));
  const pong = new Promise<string>((resolve) => ws.once('pong', (data: Buffer) => resolve(data.toString())));
  ws.ping('still there?');
  assert.equal(await pong, 'still there?');
});

/** Opens /v1/viewer?session=TARGET: the 101's headers, or the refusal's status and body. */
async function openNaming(socketPath: string, target: string): Promise<{ ws: WebSocket; headers: Record<string, string | string[] | undefined> } | { status: number; body: string }> {
  const ws = open(socketPath, `/v1/viewer?session=${encodeURIComponent(target)}`);
  return new Promise((resolve) => {
    ws.once('upgrade', (res) => resolve({ ws, headers: res.headers }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

test('an upgrade naming a session (?session=TARGET) gets its id and name in the 101, and an empty-id SUBSCRIBE sent before WELCOME subscribes to it; a target that names no running session is refused 404 or 409 with why', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const name = 'named.one_2';
  const id = await newSession(server, { name, argv: ['sh', '-c', 'printf "named-one\\n"; exec cat'] });
  const done = await newSession(server, { name: 'done', argv: ['true'] });
  await waitFor(async () => (await server.api<{ status: string }>('GET', `/v1/sessions/${done}`)).body.status === 'exited', { what: 'the short session to exit' });

  for (const target of [`:${name}`, id.slice(0, 5), id]) {
    const opened = await openNaming(server.client.paths.serverSocket, target);
    assert.ok('ws' in opened, `upgrade for ${target} refused: ${JSON.stringify(opened)}`);
    const { ws, headers } = opened;
    scope.own({ dispose: () => ws.terminate() });
    assert.equal(headers['tend-session-id'], id);
    assert.equal(decodeURIComponent(String(headers['tend-session-name'])), name);
    const frames: ReturnType<typeof decodeFrameFromServer>[] = [];
    ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
    // Both at once, as `tend attach` sends them behind its handshake.
    ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'cli', readOnly: true }));
    ws.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: '', cols: 80, rows: 24 }));
    await waitFor(() => frames.some((f) => f.type === 'snapshot'), { what: `the snapshot of ${target}` });
    assert.equal(frames[0]?.type, 'welcome');
    const snapshot = frames.find((f) => f.type === 'snapshot');
    assert.ok(snapshot && snapshot.type === 'snapshot' && Buffer.from(snapshot.data).toString('utf8').includes('named-one'));
    assert.equal(frames.some((f) => f.type === 'error'), false, JSON.stringify(frames));
    ws.terminate();
  }

  // Without ?session=, an empty id names nothing, as before.
  const plain = open(server.client.paths.serverSocket, '/v1/viewer');
  scope.own({ dispose: () => plain.terminate() });
  const frames: ReturnType<typeof decodeFrameFromServer>[] = [];
  plain.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
  await new Promise((resolve) => plain.once('open', resolve));
  plain.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'cli', readOnly: true }));
  plain.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: '', cols: 80, rows: 24 }));
  await waitFor(() => frames.some((f) => f.type === 'error'), { what: 'the refusal of an empty id' });
  const refusal = frames.find((f) => f.type === 'error');
  assert.ok(refusal && refusal.type === 'error' && refusal.code === ViewerErrorCode.NO_SUCH_SESSION);

  for (const [target, status, said] of [
    [':nosuch', 404, /no session is named ":nosuch"/],
    ['', 404, /an empty session target/],
    [':done', 409, new RegExp(`session ${done} is exited`)],
  ] as const) {
    const refused = await openNaming(server.client.paths.serverSocket, target);
    assert.ok('status' in refused, `${target} was upgraded`);
    assert.equal(refused.status, status);
    assert.match(refused.body, said);
  }
});
