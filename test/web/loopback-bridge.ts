// A 127.0.0.1 front for a server that does not (yet) serve browsers itself:
// the web app from web/dist through the real static-file handler, and every
// /v1 request and WebSocket upgrade passed byte for byte to the server's unix
// socket. It stays up while the server behind it is killed and restarted, as
// a fixed port would. When the server has its own loopback listener serving
// the page, the harness uses that instead (see web-harness.ts).
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createStaticFiles } from '../../src/server/http/static-files.js';

export interface LoopbackBridge {
  readonly url: string;
  dispose(): Promise<void>;
}

function rawHead(req: IncomingMessage): string {
  let head = `${req.method} ${req.url} HTTP/1.1\r\n`;
  for (let i = 0; i < req.rawHeaders.length; i += 2) head += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
  return head + '\r\n';
}

export async function startLoopbackBridge(options: { socketPath: string; webDistDir: string }): Promise<LoopbackBridge> {
  const web = createStaticFiles({ root: options.webDistDir });
  const sockets = new Set<Socket | Duplex>();
  const server: Server = createServer((req, res) => {
    if (web.handle(req, res)) return;
    const upstream = request({ socketPath: options.socketPath, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'unreachable', message: 'the tend server is not running' } }));
    });
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    const upstream = connect(options.socketPath);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('connect', () => {
      upstream.write(rawHead(req));
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const cut = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', cut);
    upstream.on('close', cut);
    client.on('error', cut);
    client.on('close', cut);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    async dispose() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
