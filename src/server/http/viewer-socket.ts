// The viewer WebSocket endpoint: upgrades on /v1/viewer become one
// ViewerConnection each (the protocol lives there and in src/protocol/). This
// file only ties `ws` to it: binary messages in, frames out, and the two
// limits a socket needs beyond the protocol's own flow control — a frame size
// checked by ws before it allocates, and a cap on what one socket may have
// queued and unsent, so a viewer that stops reading its socket cannot make the
// server buffer without bound.
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import { toDisposable, type Disposable } from '../../common/lifecycle.js';
import { DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES, ViewerErrorCode, encodeFrameToViewer } from '../../protocol/viewer-frames.js';
import { ViewerConnection } from '../viewers/viewer-connection.js';
import type { SessionViewers } from '../viewers/session-viewers.js';

export { VIEWER_SOCKET_PATH } from '../../protocol/api/index.js';
import { VIEWER_SOCKET_PATH } from '../../protocol/api/index.js';

/**
 * Unsent bytes one socket may hold. Flow control keeps DATA to 256 KiB
 * unacknowledged, so this is only reached by a viewer that acks without
 * reading (or by snapshot after snapshot): room for one largest snapshot
 * (32 MiB) and then some, never more.
 */
export const SOCKET_BUFFER_CAP_BYTES = 40 * 1024 * 1024;

/**
 * ws refuses messages above maxPayload with a bare 1009 close. Letting a little
 * more through lets the connection answer an oversized frame with ERROR
 * TOO_LARGE, which says what happened; far larger ones are still cut by ws.
 */
const PAYLOAD_SLACK_BYTES = 64 * 1024;

// WebSocket close codes (RFC 6455 §7.4.1).
const CLOSE_GOING_AWAY = 1001;
const CLOSE_UNSUPPORTED_DATA = 1003;
const CLOSE_POLICY_VIOLATION = 1008;
/** A close reason must fit a control frame: 123 bytes of UTF-8. */
const CLOSE_REASON_MAX_BYTES = 123;

export interface ViewerSocketOptions {
  boot: string;
  version: string;
  /** The session a SUBSCRIBE names (by id). */
  findSession(sessionId: string): SessionViewers | undefined;
  maxFrameBytes?: number;
  socketBufferCapBytes?: number;
  /**
   * Checked before upgrading; a string refuses the upgrade with 403 and that
   * message (the access gate for sockets that are not the private unix one).
   */
  refuseUpgrade?(req: IncomingMessage): string | null;
  /** Every socket's connection is read-only (e.g. a shared link). */
  forceReadOnly?(req: IncomingMessage): boolean;
  /** Where to say why a socket was closed by the server. */
  log?: { warn(message: string): void };
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
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameBytes + PAYLOAD_SLACK_BYTES, perMessageDeflate: false });
  const sockets = new Set<WebSocket>();

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== VIEWER_SOCKET_PATH) {
      refuse(socket, 404, `no WebSocket endpoint at ${path}; viewers connect to ${VIEWER_SOCKET_PATH}`);
      return;
    }
    const refusal = options.refuseUpgrade?.(req) ?? null;
    if (refusal !== null) {
      refuse(socket, 403, refusal);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req));
  };

  const serve = (ws: WebSocket, req: IncomingMessage) => {
    sockets.add(ws);
    const closeWith = (code: number, reason: string) => {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, clip(reason));
    };
    const connection = new ViewerConnection({
      boot: options.boot,
      serverVersion: options.version,
      maxFrameBytes,
      forceReadOnly: options.forceReadOnly?.(req) ?? false,
      findSession: options.findSession,
      send(bytes) {
        if (ws.readyState !== ws.OPEN) return;
        if (ws.bufferedAmount + bytes.length > bufferCap) {
          const message = `viewer is not reading its socket: ${ws.bufferedAmount} bytes unsent, the cap is ${bufferCap}`;
          options.log?.warn(message);
          // A close frame would queue behind what the viewer is not reading:
          // cut the socket. 'close' then drops its channels; the viewer
          // reconnects and is sent a fresh snapshot.
          ws.terminate();
          return;
        }
        ws.send(bytes, { binary: true });
      },
      close: (reason) => closeWith(CLOSE_POLICY_VIOLATION, reason),
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary) {
        const message = 'viewer frames are binary WebSocket messages, not text';
        if (ws.readyState === ws.OPEN) ws.send(encodeFrameToViewer({ type: 'error', channel: 0, code: ViewerErrorCode.UNKNOWN_FRAME, message }));
        closeWith(CLOSE_UNSUPPORTED_DATA, message);
        connection.dispose();
        return;
      }
      connection.receive(asBytes(data));
    });
    ws.on('close', () => {
      sockets.delete(ws);
      connection.dispose();
    });
    // An error (a reset, an oversized message) is followed by 'close'.
    ws.on('error', () => undefined);
  };

  http.on('upgrade', onUpgrade);
  const disposable = toDisposable(() => {
    http.off('upgrade', onUpgrade);
    for (const ws of sockets) ws.close(CLOSE_GOING_AWAY, 'the tend server is stopping');
    // Sockets that do not finish the closing handshake promptly are cut.
    for (const ws of sockets) setTimeout(() => ws.terminate(), 1000).unref();
    wss.close();
  });
  return {
    get socketCount() {
      return sockets.size;
    },
    dispose: () => disposable.dispose(),
  };
}

function asBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

function clip(reason: string): string {
  const bytes = Buffer.from(reason, 'utf8');
  if (bytes.length <= CLOSE_REASON_MAX_BYTES) return reason;
  // Cut on a character boundary: a close reason must be valid UTF-8.
  let end = CLOSE_REASON_MAX_BYTES;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

function refuse(socket: Duplex, status: 403 | 404, message: string): void {
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Not Found'}\r\n` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
