// Test support: a small reverse proxy on 127.0.0.1, standing in for
// `tailscale serve`, a Cloudflare tunnel or nginx in front of tend. It passes
// each request (and WebSocket upgrade) on to tend's 127.0.0.1 port with the
// client's own Host, adding the headers such a proxy adds: X-Forwarded-For
// (the address it says it forwards for), X-Forwarded-Proto, X-Forwarded-Host,
// and any extra ones a test wants (identity headers). Requests reach tend
// from a real loopback socket of this process, as a proxy's do.
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ReverseProxyOptions {
  /** tend's 127.0.0.1 port. */
  targetPort: number;
  /** What X-Forwarded-For says (the client the proxy claims to forward for). */
  forwardedFor: string;
  /** What X-Forwarded-Proto says: https for a proxy that ends TLS. */
  proto?: 'https' | 'http';
  /** More headers to set on every forwarded request. */
  extraHeaders?: Record<string, string>;
}

export interface ReverseProxy {
  readonly port: number;
  dispose(): Promise<void>;
}

function forwardedHeaders(req: IncomingMessage, options: ReverseProxyOptions): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = value;
  headers['x-forwarded-for'] = options.forwardedFor;
  headers['x-forwarded-proto'] = options.proto ?? 'https';
  if (req.headers.host !== undefined) headers['x-forwarded-host'] = req.headers.host;
  Object.assign(headers, options.extraHeaders ?? {});
  return headers;
}

export async function startReverseProxy(options: ReverseProxyOptions): Promise<ReverseProxy> {
  const proxy = await startRewritingProxy(options.targetPort, (req) => forwardedHeaders(req, options));
  return { port: proxy.port, dispose: () => proxy.close() };
}

export interface RewritingProxy {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 to 127.0.0.1:targetPort passing each request and
 * WebSocket upgrade on with the headers `rewrite` gives (the Host among
 * them); the proxies of these tests differ only in those headers.
 */
export async function startRewritingProxy(targetPort: number, rewrite: (req: IncomingMessage) => IncomingHttpHeaders): Promise<RewritingProxy> {
  const sockets = new Set<Socket>();
  // Headers up to 64 KiB are passed on, so tend, not the proxy, answers an oversized request.
  const server: Server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    const upstream = request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers: rewrite(req), agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // An upgrade is passed on as bytes: the request head rewritten, then both ways piped.
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`];
    for (const [name, value] of Object.entries(rewrite(req))) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    client.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
