// The server's half of the WebSocket opening handshake (RFC 6455 §4.2): checks
// an upgrade request and answers it — 101 with Sec-WebSocket-Accept, or a
// plain-text refusal that says what was wrong. No extension is ever accepted:
// a browser offers permessage-deflate, and a 101 without
// Sec-WebSocket-Extensions tells it to send plain frames (§9.1), which is all
// the viewer protocol's small binary frames need. No subprotocol is chosen.

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
export const WEBSOCKET_VERSION = '13';
/** A key is 16 random bytes in base64: 22 characters and '=='. */
const KEY_PATTERN = /^[A-Za-z0-9+/]{22}==$/;

export type UpgradeVerdict = { ok: true; accept: string } | { ok: false; status: 400 | 426; reason: string };

/** The Sec-WebSocket-Accept that answers a Sec-WebSocket-Key. */
export function acceptFor(key: string): string {
  return createHash('sha1').update(key + HANDSHAKE_GUID).digest('base64');
}

/** Whether the request is a WebSocket upgrade this server can answer, and how. */
export function checkUpgrade(req: IncomingMessage): UpgradeVerdict {
  if (req.method !== 'GET') return { ok: false, status: 400, reason: `a WebSocket upgrade is a GET request, not ${req.method ?? 'none'}` };
  if (!hasToken(req.headers.upgrade, 'websocket')) return { ok: false, status: 400, reason: 'the request does not ask to upgrade to websocket (Upgrade: websocket)' };
  if (!hasToken(req.headers.connection, 'upgrade')) return { ok: false, status: 400, reason: 'the request does not ask for an upgrade (Connection: Upgrade)' };
  const version = req.headers['sec-websocket-version'];
  if (version !== WEBSOCKET_VERSION) {
    return { ok: false, status: 426, reason: `this server speaks WebSocket version ${WEBSOCKET_VERSION}; the request asked for ${version === undefined ? 'none' : JSON.stringify(version)}` };
  }
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !KEY_PATTERN.test(key.trim())) return { ok: false, status: 400, reason: 'the request has no valid Sec-WebSocket-Key (16 bytes in base64)' };
  return { ok: true, accept: acceptFor(key.trim()) };
}

/** Writes the 101 that opens the WebSocket. */
export function acceptUpgrade(socket: Duplex, accept: string, headers: Readonly<Record<string, string>> = {}): void {
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${extra}\r\n`);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  426: 'Upgrade Required',
};

/** Refuses an upgrade with a status and a plain-text reason, and ends the socket. */
export function refuseUpgrade(socket: Duplex, status: 400 | 403 | 404 | 409 | 426, reason: string): void {
  const body = `${reason}\n`;
  // 426 names the version that would be accepted (§4.4).
  const version = status === 426 ? `Sec-WebSocket-Version: ${WEBSOCKET_VERSION}\r\n` : '';
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n${version}` +
      `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Whether a comma-separated header holds the token, in any case. */
function hasToken(header: string | string[] | undefined, token: string): boolean {
  if (header === undefined) return false;
  const values = Array.isArray(header) ? header : [header];
  return values.some((v) => v.split(',').some((part) => part.trim().toLowerCase() === token));
}
