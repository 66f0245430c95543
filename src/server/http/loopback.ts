// The API for browsers: the same router as the unix socket, on 127.0.0.1.
// Until the access gate exists only this user's local processes are trusted
// here, so every request passes three checks before the router sees it:
//   * the peer is this user: the peer socket's owner, from /proc/net/tcp on
//     Linux or lsof on macOS (a port on 127.0.0.1 is open to every user of
//     the machine); where neither exists every caller is refused;
//   * the Host is 127.0.0.1:PORT or localhost:PORT, so a page on another name
//     that resolves to 127.0.0.1 (DNS rebinding) is refused;
//   * a write (anything but GET/HEAD) that names an Origin names this one,
//     so another site's page cannot post into a terminal. No CORS headers are
//     ever sent, so browsers keep other origins from reading the answers.
// Refusals are 403 JSON, like every other API error.
import { createServer, type IncomingMessage, type ServerResponse, type Server as HttpServer } from 'node:http';
import { answerClientErrors } from './client-errors.js';
import type { Socket } from 'node:net';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Disposable } from '../../common/lifecycle.js';
import type { Logger } from '../log.js';
import { send } from './router.js';
import { ApiError } from './errors.js';
import { loopbackPeerUid, peerLookupFor, type PeerLookup } from './peer-uid.js';

export const LOOPBACK_HOST = '127.0.0.1';
/** The port browsers find tend on when TEND_PORT is not set. */
export const DEFAULT_LOOPBACK_PORT = 7788;

export interface LoopbackOptions {
  /** The server's request handler (the router, and whatever serves the browser app), as on the unix socket. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  log: Logger;
  /** 0 picks any free port. */
  port: number;
  /** Where the chosen port is written (for scripts and the browser launcher). */
  portFile: string;
  /** The uid allowed in; the server's own by default. */
  uid?: number;
  /** How callers' users are found; this platform's means by default. */
  peerLookup?: PeerLookup;
}

export interface LoopbackListener extends Disposable {
  readonly port: number;
  readonly http: HttpServer;
  /** Why this request (or WebSocket upgrade) is refused, or null to let it in. */
  refusal(req: IncomingMessage): string | null;
}

/** TEND_PORT: a port number, 0 for any free port; unset or empty for the default. */
export function loopbackPortFromEnv(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_LOOPBACK_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`TEND_PORT must be a port number from 0 to 65535 (0: any free port), not "${value}"`);
  }
  return port;
}

export async function startLoopbackListener(options: LoopbackOptions): Promise<LoopbackListener> {
  const { log } = options;
  const uid = options.uid ?? process.getuid?.() ?? -1;
  const peerLookup = options.peerLookup ?? peerLookupFor(process.platform);
  // Checked once per connection: the peer's socket cannot change owner, and
  // reading /proc/net/tcp costs in proportion to every socket on the machine
  // (and lsof, on macOS, tens of milliseconds).
  const peerVerdicts = new WeakMap<Socket, string | null>();
  let warnedUnknown = false;
  let port = options.port;

  const peerRefusal = (socket: Socket): string | null => {
    const cached = peerVerdicts.get(socket);
    if (cached !== undefined) return cached;
    let verdict: string | null = null;
    const remotePort = socket.remotePort;
    const remoteAddress = socket.remoteAddress;
    if (remoteAddress === undefined || remotePort === undefined) {
      verdict = 'the connection has no peer address';
    } else {
      const peer = loopbackPeerUid(remoteAddress, remotePort, peerLookup);
      if (!peer.known) {
        // Any user of the machine can reach 127.0.0.1: unchecked is refused.
        if (!warnedUnknown) log.warn(`loopback API: cannot check callers' users (${peer.reason}); refusing every caller on ${LOOPBACK_HOST}`);
        warnedUnknown = true;
        verdict = `this tend server cannot tell which user is calling on ${LOOPBACK_HOST} (${peer.reason}), so it lets nobody in here; the tend command still works over the server's unix socket`;
      } else if (peer.uid === null) {
        verdict = 'the caller could not be identified: its socket was not found (it closed, or belongs to a process this user may not inspect)';
      } else if (peer.uid !== uid) {
        verdict = `this tend server serves only its own user (uid ${uid}) on ${LOOPBACK_HOST}; the caller is uid ${peer.uid}`;
      }
    }
    peerVerdicts.set(socket, verdict);
    return verdict;
  };

  const refusal = (req: IncomingMessage): string | null => {
    const peer = peerRefusal(req.socket);
    if (peer !== null) return peer;
    const host = req.headers.host;
    const allowedHosts = [`${LOOPBACK_HOST}:${port}`, `localhost:${port}`];
    if (host === undefined || !allowedHosts.includes(host.toLowerCase())) {
      return `the Host header must be ${allowedHosts.join(' or ')}, not ${host === undefined ? 'missing' : JSON.stringify(host)}`;
    }
    const method = req.method ?? 'GET';
    const origin = req.headers.origin;
    const isWrite = method !== 'GET' && method !== 'HEAD';
    const isUpgrade = req.headers.upgrade !== undefined;
    if ((isWrite || isUpgrade) && origin !== undefined && !allowedHosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
      return `requests from the page at ${JSON.stringify(origin)} may not change anything here`;
    }
    return null;
  };

  const http = createServer((req, res) => {
    const why = refusal(req);
    if (why !== null) {
      send(res, { status: 403, json: new ApiError('forbidden', why).body() });
      return;
    }
    options.handle(req, res);
  });
  answerClientErrors(http);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen({ host: LOOPBACK_HOST, port: options.port }, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address();
  port = typeof address === 'object' && address !== null ? address.port : options.port;
  writePortFile(options.portFile, port);

  return {
    get port() {
      return port;
    },
    http,
    refusal,
    dispose() {
      http.close();
      http.closeAllConnections();
      try {
        unlinkSync(options.portFile);
      } catch {
        /* already gone */
      }
    },
  };
}

/**
 * Starts the listener, or logs why it could not and returns null: a taken
 * port (another tend home's server, say) leaves the unix socket serving.
 */
export async function tryStartLoopbackListener(options: LoopbackOptions): Promise<LoopbackListener | null> {
  try {
    return await startLoopbackListener(options);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? `port ${options.port} is in use (set TEND_PORT to another, or 0 for any free port)` : (err as Error).message;
    options.log.warn(`not serving the API on ${LOOPBACK_HOST}: ${why}`);
    return null;
  }
}

// Renamed into place so a reader never sees half a number.
function writePortFile(file: string, port: number): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${port}\n`, { mode: 0o600 });
  renameSync(temp, file);
}
