// The API for browsers: the same router as the unix socket, on 127.0.0.1
// (and, with `tend remote enable --listen`, on other addresses too). Every
// request and WebSocket upgrade is first classified (access/classify.ts):
//   * local — this user's own process on this machine: the peer socket's
//     owner, from /proc/net/tcp on Linux or lsof on macOS, is this user (a
//     port on 127.0.0.1 is open to every user of the machine), no proxy
//     header, and a Host of 127.0.0.1:PORT or localhost:PORT (DNS
//     rebinding). It is let in as it always was, but for one check: a write
//     or upgrade that names an Origin must name this one, so another site's
//     page cannot post into a terminal.
//   * anything else passes the access gate (access/gate.ts): refused while
//     remote access is off, else an allowed Host, the same Origin, and a
//     login cookie or a verified proxy identity.
// No CORS headers are ever sent, so browsers keep other origins from reading
// the answers. API refusals are 403 JSON, like every other API error; a page
// gets a plain page (or the login page).
import { createServer, type IncomingMessage, type ServerResponse, type Server as HttpServer } from 'node:http';
import { answerClientErrors } from './client-errors.js';
import type { Socket } from 'node:net';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Disposable } from '../../common/lifecycle.js';
import type { Logger } from '../log.js';
import { send } from './router.js';
import { ApiError } from './errors.js';
import { loopbackPeerUid, peerLookupFor, type PeerLookup } from '../access/peer-uid.js';
import { classifyCaller, type Classification, type PeerUser } from '../access/classify.js';
import { markCaller } from '../access/caller-mark.js';
import { originRefusal } from '../access/origin.js';
import { isLoopbackAddress } from '../access/hosts.js';
import { answerRefusal, serveLoginPage } from './gate-answer.js';
import { isLoginPageRequest } from '../access/login-page.js';
import type { AccessGate } from '../access/gate.js';

export const LOOPBACK_HOST = '127.0.0.1';
/** The port browsers find tend on when TEND_PORT is not set. */
export const DEFAULT_LOOPBACK_PORT = 7788;

export interface GatedListenerOptions {
  /** The server's request handler (the router, and whatever serves the browser app), as on the unix socket. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  log: Logger;
  /** The address to listen on. */
  host: string;
  /** 0 picks any free port. */
  port: number;
  /** The uid let in as local; the server's own by default. */
  uid?: number;
  /** How callers' users are found; this platform's means by default. */
  peerLookup?: PeerLookup;
  /** The gate for callers that are not local; without one they are all refused. */
  gate?: AccessGate;
}

export interface GatedListener extends Disposable {
  readonly port: number;
  /** "HOST:PORT" as listened on. */
  readonly address: string;
  readonly http: HttpServer;
  /** Why this WebSocket upgrade is refused, or null to let it in. */
  upgradeRefusal(req: IncomingMessage): string | null;
}

export interface LoopbackOptions extends Omit<GatedListenerOptions, 'host'> {
  /** Where the chosen port is written (for scripts and the browser launcher). */
  portFile: string;
}

export type LoopbackListener = GatedListener;

/** TEND_PORT: a port number, 0 for any free port; unset or empty for the default. */
export function loopbackPortFromEnv(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_LOOPBACK_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`TEND_PORT must be a port number from 0 to 65535 (0: any free port), not "${value}"`);
  }
  return port;
}

export async function startGatedListener(options: GatedListenerOptions): Promise<GatedListener> {
  const { log, gate } = options;
  const uid = options.uid ?? process.getuid?.() ?? -1;
  const peerLookup = options.peerLookup ?? peerLookupFor(process.platform);
  // Checked once per connection: the peer's socket cannot change owner, and
  // reading /proc/net/tcp costs in proportion to every socket on the machine
  // (and lsof, on macOS, tens of milliseconds).
  const peerUsers = new WeakMap<Socket, PeerUser>();
  let warnedUnknown = false;
  let port = options.port;
  const localHosts = () => [`${LOOPBACK_HOST}:${port}`, `localhost:${port}`];

  const findPeerUser = (socket: Socket): PeerUser => {
    const remotePort = socket.remotePort;
    const remoteAddress = socket.remoteAddress;
    if (remoteAddress === undefined || remotePort === undefined) return { kind: 'not-this-user', why: 'the connection has no peer address' };
    // A peer on another machine has no user here to look up; classify.ts makes it remote.
    if (!isLoopbackAddress(remoteAddress)) return { kind: 'not-this-user', why: `the caller is at ${remoteAddress}, not on this machine` };
    const peer = loopbackPeerUid(remoteAddress, remotePort, peerLookup);
    if (!peer.known) {
      // Any user of the machine can reach 127.0.0.1: unchecked is not local.
      if (!warnedUnknown) log.warn(`loopback API: cannot check callers' users (${peer.reason}); refusing every caller on ${LOOPBACK_HOST} that has not signed in through remote access`);
      warnedUnknown = true;
      return { kind: 'not-this-user', why: `this tend server cannot tell which user is calling on ${LOOPBACK_HOST} (${peer.reason}), so it lets nobody in here; the tend command still works over the server's unix socket` };
    }
    if (peer.uid === null) return { kind: 'not-this-user', why: 'the caller could not be identified: its socket was not found (it closed, or belongs to a process this user may not inspect)' };
    if (peer.uid !== uid) return { kind: 'not-this-user', why: `this tend server serves only its own user (uid ${uid}) on ${LOOPBACK_HOST}; the caller is uid ${peer.uid}` };
    return { kind: 'this-user' };
  };

  const classify = (req: IncomingMessage): Classification => {
    let peer = peerUsers.get(req.socket);
    if (peer === undefined) {
      peer = findPeerUser(req.socket);
      peerUsers.set(req.socket, peer);
    }
    const c = classifyCaller(req, peer, localHosts());
    markCaller(req, c.caller);
    return c;
  };

  const upgradeRefusal = (req: IncomingMessage): string | null => {
    const c = classify(req);
    if (c.caller === 'local') return originRefusal(req);
    if (gate === undefined) return c.why;
    return gate.upgradeRefusal(req, c);
  };

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    if (isLoginPageRequest(req)) serveLoginPage(req, res);
    else options.handle(req, res);
  };

  const forbidden = (res: ServerResponse, message: string) => send(res, { status: 403, json: new ApiError('forbidden', message).body() });

  const http = createServer((req, res) => {
    const c = classify(req);
    if (c.caller === 'local') {
      const origin = originRefusal(req);
      if (origin !== null) forbidden(res, origin);
      else serve(req, res);
      return;
    }
    if (gate === undefined) {
      forbidden(res, c.why ?? 'the caller is not local');
      return;
    }
    void gate.check(req, c).then((verdict) => {
      if (!verdict.pass) {
        answerRefusal(req, res, verdict.refusal);
        return;
      }
      if (verdict.setCookie.length > 0) res.setHeader('set-cookie', verdict.setCookie);
      serve(req, res);
    });
  });
  answerClientErrors(http);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen({ host: options.host, port: options.port }, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address();
  port = typeof address === 'object' && address !== null ? address.port : options.port;
  const shown = options.host.includes(':') ? `[${options.host}]:${port}` : `${options.host}:${port}`;

  return {
    get port() {
      return port;
    },
    address: shown,
    http,
    upgradeRefusal,
    dispose() {
      http.close();
      http.closeAllConnections();
    },
  };
}

export async function startLoopbackListener(options: LoopbackOptions): Promise<LoopbackListener> {
  const listener = await startGatedListener({ ...options, host: LOOPBACK_HOST });
  writePortFile(options.portFile, listener.port);
  return {
    get port() {
      return listener.port;
    },
    address: listener.address,
    http: listener.http,
    upgradeRefusal: listener.upgradeRefusal,
    dispose() {
      listener.dispose();
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
