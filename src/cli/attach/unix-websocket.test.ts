import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { UnixWebSocket } from './unix-websocket.js';

/** A `ws` server on a unix socket of its own: the other end is the library the server uses. */
async function wsServer(t: TestContext, onSocket: (ws: WebSocket) => void, options: { refuse?: string } = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tend-uws-'));
  const path = join(dir, 's.sock');
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const http: Server = createServer((_req, res) => res.writeHead(404).end());
  http.on('upgrade', (req, socket, head) => {
    if (options.refuse !== undefined) {
      socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${options.refuse}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, onSocket);
  });
  await new Promise<void>((resolve) => http.listen(path, resolve));
  t.after(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise((resolve) => http.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return path;
}

interface Client {
  ws: UnixWebSocket;
  opened: Promise<void>;
  messages: Buffer[];
  nextMessage(): Promise<Buffer>;
  closed: Promise<string>;
}

function client(socketPath: string, maxPayloadBytes = 1024 * 1024): Client {
  let opened!: () => void;
  let closed!: (why: string) => void;
  const messages: Buffer[] = [];
  const waiting: Array<(b: Buffer) => void> = [];
  const c: Client = {
    ws: null as unknown as UnixWebSocket,
    opened: new Promise((r) => (opened = r)),
    closed: new Promise((r) => (closed = r)),
    messages,
    nextMessage: () => {
      const m = messages.shift();
      return m ? Promise.resolve(m) : new Promise((r) => waiting.push(r));
    },
  };
  c.ws = new UnixWebSocket({ socketPath, path: '/v1/viewer', maxPayloadBytes, handshakeTimeoutMs: 5000 }, {
    onOpen: () => opened(),
    onMessage: (data) => {
      const w = waiting.shift();
      if (w) w(data);
      else messages.push(data);
    },
    onClose: (why) => closed(why),
  });
  return c;
}

test('binary messages both ways, whatever their size; frames sent in one tick arrive in order', async (t) => {
  const got: Buffer[] = [];
  const path = await wsServer(t, (ws) => {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      assert.equal(isBinary, true);
      got.push(data);
      ws.send(data); // echo
    });
  });
  const c = client(path);
  await c.opened;
  const sizes = [0, 1, 125, 126, 65535, 65536, 300_000];
  const sent = sizes.map((n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff)));
  let written = 0;
  for (const s of sent) c.ws.send(s, () => written++);
  for (const s of sent) assert.deepEqual(await c.nextMessage(), s);
  assert.deepEqual(got, sent);
  assert.equal(written, sent.length);
  c.ws.close();
});

test('a message the server sends in fragments arrives whole; pings are answered', async (t) => {
  let pong!: (data: Buffer) => void;
  const ponged = new Promise<Buffer>((r) => (pong = r));
  const path = await wsServer(t, (ws) => {
    ws.on('pong', (data: Buffer) => pong(data));
    ws.send(Buffer.from('abc'), { binary: true, fin: false });
    ws.ping(Buffer.from('are you there'));
    ws.send(Buffer.from('def'), { binary: true, fin: false });
    ws.send(Buffer.from('ghi'), { binary: true, fin: true });
  });
  const c = client(path);
  assert.deepEqual(await c.nextMessage(), Buffer.from('abcdefghi'));
  assert.deepEqual(await ponged, Buffer.from('are you there'));
  c.ws.close();
});

test('the server closing with a reason says that reason; without one, its code', async (t) => {
  const withReason = await wsServer(t, (ws) => ws.close(1008, 'you did something wrong'));
  assert.equal(await client(withReason).closed, 'you did something wrong');
  const withCode = await wsServer(t, (ws) => ws.close(1001));
  assert.equal(await client(withCode).closed, 'socket closed (1001)');
});

test('a refused upgrade, a text message and an oversized message each end the socket with a reason', async (t) => {
  const refusing = await wsServer(t, () => {}, { refuse: 'not from here' });
  assert.equal(await client(refusing).closed, 'the server refused the viewer socket: 403 Forbidden (not from here)');

  const texting = await wsServer(t, (ws) => ws.send('hello'));
  assert.equal(await client(texting).closed, 'the server sent a text message on the viewer socket');

  const big = await wsServer(t, (ws) => ws.send(Buffer.alloc(2000)));
  assert.equal(await client(big, 1000).closed, 'the server sent a message over 1000 bytes');
});

test('no server at the path: the connect error is the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tend-uws-'));
  try {
    const why = await client(join(dir, 'none.sock')).closed;
    assert.match(why, /ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('close() ends the socket without calling onClose, and the server sees it go', async (t) => {
  let serverClosed!: () => void;
  const gone = new Promise<void>((r) => (serverClosed = r));
  const path = await wsServer(t, (ws) => ws.on('close', () => serverClosed()));
  const c = client(path);
  await c.opened;
  let called = false;
  void c.closed.then(() => (called = true));
  c.ws.close();
  await gone;
  assert.equal(called, false);
  assert.equal(c.ws.isOpen, false);
});
