// The viewer WebSocket endpoint: upgrades on /v1/viewer become one
// ViewerConnection each (the protocol lives there and in src/protocol/). This
// file ties a socket to it — binary messages in, frames out, over the server's
// own WebSocket framer (server-websocket.ts; `ws` cost ~145 µs of a
// keystroke's ~650 on the server) — and adds the two limits a socket needs
// beyond the protocol's own flow control: a message size checked at the
// frame's header, before anything is buffered, and a cap on what one socket
// may have queued and unsent, so a viewer that stops reading its socket cannot
// make the server buffer without bound. The unix socket and the browsers'
// 127.0.0.1 port are served alike; the latter passes its access gate through
// refuseUpgrade and forceReadOnly.
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { toDisposable, type Disposable } from '../../common/lifecycle.js';
import { DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES, ViewerErrorCode, encodeFrameToViewer } from '../../protocol/viewer-frames.js';
import { ViewerConnection } from '../viewers/viewer-connection.js';
import type { SessionViewers } from '../viewers/session-viewers.js';
import { ServerWebSocket } from './server-websocket.js';
import { CLOSE_GOING_AWAY, CLOSE_POLICY_VIOLATION } from './websocket-close.js';
import type { FrameViolation } from './websocket-frame-reader.js';
import { acceptUpgrade, checkUpgrade, refuseUpgrade } from './websocket-handshake.js';
import { refuseUpgradeWithJson } from './gate-answer.js';

export { VIEWER_SOCKET_PATH } from '../../protocol/api/index.js';
import { VIEWER_SOCKET_PATH } from '../../protocol/api/index.js';
import { TEND_BUILD } from '../../common/version.js';

/**
 * Unsent bytes one socket may hold. Flow control keeps DATA to 256 KiB
 * unacknowledged, so this is only reached by a viewer that acks without
 * reading (or by snapshot after snapshot): room for one largest snapshot
 * (32 MiB) and then some, never more.
 */
export const SOCKET_BUFFER_CAP_BYTES = 40 * 1024 * 1024;

/** How long sockets have to finish the closing handshake when the server stops, before they are cut. */
const STOP_CLOSE_GRACE_MS = 1000;

export interface ViewerSocketOptions {
  boot: string;
  version: string;
  /** The session a SUBSCRIBE names (by id). */
  findSession(sessionId: string): SessionViewers | undefined;
  /**
   * The running session an upgrade's `?session=TARGET` names, as `tend attach
   * TARGET` means it, or why there is none (the upgrade is then refused with
   * that status and reason). The 101 names the session (Tend-Session-Id, and
   * Tend-Session-Name percent-encoded), and a SUBSCRIBE with an empty id on
   * that socket subscribes to it: `tend attach` asks no GET first, and sends
   * HELLO and SUBSCRIBE in the handshake's write.
   */
  resolveSession?(target: string): UpgradeSession | UpgradeRefusal;
  maxFrameBytes?: number;
  socketBufferCapBytes?: number;
  /**
   * Checked before upgrading; a string refuses the upgrade with 403 and that
   * message as the API's JSON error (the access gate for sockets that are not
   * the private unix one).
   */
  refuseUpgrade?(req: IncomingMessage): string | null;
  /** Every socket's connection is read-only (e.g. a shared link). */
  forceReadOnly?(req: IncomingMessage): boolean;
  /**
   * Viewers here may be told to type straight to a session's holder
   * (INPUT_ROUTE): only on the server's own unix socket, whose viewers run on
   * this machine as this user and can reach the holders' sockets.
   */
  typistsMayReachHolders?: boolean;
  /** Where to say why a socket was closed by the server. */
  log?: { warn(message: string): void };
}

export interface UpgradeSession {
  id: string;
  name: string | null;
}

export interface UpgradeRefusal {
  status: 404 | 409;
  reason: string;
}

export interface ViewerSocketEndpoint extends Disposable {
  /** Open viewer sockets right now. */
  readonly socketCount: number;
}

/**
 * Serves viewer sockets on an http server's 'upgrade' event. Upgrades for any
 * other path are answered 404. dispose() closes every viewer socket with
 * 1001 (going away) and no CLOSED frame, so viewers reconnect to the next server.
 */
export function attachViewerSocket(http: HttpServer, options: ViewerSocketOptions): ViewerSocketEndpoint {
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES;
  const bufferCap = options.socketBufferCapBytes ?? SOCKET_BUFFER_CAP_BYTES;
  const sockets = new Set<ServerWebSocket>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const [path, query] = splitUrl(req.url ?? '');
    if (path !== VIEWER_SOCKET_PATH) {
      refuseUpgrade(socket, 404, `no WebSocket endpoint at ${path}; viewers connect to ${VIEWER_SOCKET_PATH}`);
      return;
    }
    const refusal = options.refuseUpgrade?.(req) ?? null;
    if (refusal !== null) {
      refuseUpgradeWithJson(socket, refusal);
      return;
    }
    const verdict = checkUpgrade(req);
    if (!verdict.ok) {
      refuseUpgrade(socket, verdict.status, verdict.reason);
      return;
    }
    const target = query === null ? null : new URLSearchParams(query).get('session');
    let named: UpgradeSession | undefined;
    if (target !== null && options.resolveSession !== undefined) {
      const found = options.resolveSession(target);
      if ('status' in found) {
        refuseUpgrade(socket, found.status, found.reason);
        return;
      }
      named = found;
    }
    // The client may have gone while the request was checked.
    if (!socket.readable || !socket.writable) {
      socket.destroy();
      return;
    }
    acceptUpgrade(socket, verdict.accept, named === undefined ? {} : {
      'Tend-Session-Id': named.id,
      ...(named.name === null ? {} : { 'Tend-Session-Name': encodeURIComponent(named.name) }),
    });
    serve(socket, head, req, named?.id);
  };

  const serve = (socket: Duplex, head: Buffer, req: IncomingMessage, upgradeSessionId: string | undefined) => {
    // Frames from the viewer wait in the socket until this function returns,
    // so the connection can use `ws` from its first frame on.
    let ws: ServerWebSocket;
    /** Whether a message of this size may be sent; a viewer that is not reading is cut instead. */
    const roomFor = (bytes: number): boolean => {
      if (!ws.isOpen) return false;
      if (ws.bufferedAmount + bytes <= bufferCap) return true;
      const message = `viewer is not reading its socket: ${ws.bufferedAmount} bytes unsent, the cap is ${bufferCap}`;
      options.log?.warn(message);
      // A close frame would queue behind what the viewer is not reading:
      // cut the socket. Its close then drops the channels; the viewer
      // reconnects and is sent a fresh snapshot.
      ws.terminate();
      return false;
    };
    const connection = new ViewerConnection({
      boot: options.boot,
      serverVersion: options.version,
      serverBuild: TEND_BUILD,
      maxFrameBytes,
      forceReadOnly: options.forceReadOnly?.(req) ?? false,
      typistsMayReachHolders: options.typistsMayReachHolders === true,
      findSession: options.findSession,
      ...(upgradeSessionId === undefined ? {} : { upgradeSessionId }),
      send(bytes) {
        if (roomFor(bytes.length)) ws.send(bytes);
      },
      sendBuilt(bytes, build) {
        if (roomFor(bytes)) ws.sendBuilt(bytes, build);
      },
      close: (reason) => ws.close(CLOSE_POLICY_VIOLATION, reason),
    });
    const refused = (violation: FrameViolation) => {
      // Text and an oversized message get a last frame saying so, as the
      // protocol's own errors do; a malformed frame means the viewer's
      // WebSocket itself is broken, and the close frame is all it can read.
      const code = violation.kind === 'text' ? ViewerErrorCode.UNKNOWN_FRAME : violation.kind === 'too-large' ? ViewerErrorCode.TOO_LARGE : null;
      if (code !== null) ws.send(encodeFrameToViewer({ type: 'error', channel: 0, code, message: violation.reason }));
      if (violation.kind !== 'text') options.log?.warn(`viewer socket closed (${violation.closeCode}): ${violation.reason}`);
      ws.close(violation.closeCode, violation.reason);
      connection.dispose();
    };
    ws = new ServerWebSocket(socket, head, { maxMessageBytes: maxFrameBytes }, {
      onMessage: (message) => connection.receive(message),
      onViolation: refused,
      onClose: () => {
        sockets.delete(ws);
        connection.dispose();
      },
    });
    sockets.add(ws);
  };

  http.on('upgrade', onUpgrade);
  const disposable = toDisposable(() => {
    http.off('upgrade', onUpgrade);
    for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'the tend server is stopping');
    // Sockets that do not finish the closing handshake promptly are cut.
    for (const ws of sockets) setTimeout(() => ws.terminate(), STOP_CLOSE_GRACE_MS).unref();
  });
  return {
    get socketCount() {
      return sockets.size;
    },
    dispose: () => disposable.dispose(),
  };
}

/** The path and the query (null without a '?') of a request's URL. */
function splitUrl(url: string): [string, string | null] {
  const at = url.indexOf('?');
  return at < 0 ? [url, null] : [url.slice(0, at), url.slice(at + 1)];
}
