// The server's half of the WebSocket opening handshake
// (src/server/http/websocket-handshake.ts): checkUpgrade on the request line's
// method and headers as Node hands them over, read from the input as
// "METHOD\nName: value\n...". It has no refusal by throwing: it answers a
// verdict, so anything thrown is a finding. Besides that:
// - it accepts exactly the requests RFC 6455 §4.2.1 lets through (GET,
//   Upgrade naming websocket, Connection naming Upgrade, version 13, a key of
//   16 bytes in base64), judged here the plain way;
// - an acceptance's Sec-WebSocket-Accept is the key's (§4.2.2), 28 characters;
// - a refusal is a 400 or 426 with a one-line reason, and refuseUpgrade writes
//   it as a response whose Content-Length is its body's length.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { checkUpgrade, refuseUpgrade } from '../../../src/server/http/websocket-handshake.js';
import { ContractBroken, type FuzzTarget } from '../target.js';

function promise(holds: boolean, what: string): void {
  if (!holds) throw new ContractBroken(what);
}

/** A method or header name as Node's parser lets one through (RFC 9110's token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Control characters, which Node's parser refuses in a header value (all but tab). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/**
 * The request as Node's HTTP parser hands it over: names in lower case,
 * values without the spaces around them, a repeated header's values joined
 * with ", " (Node does that for every header checkUpgrade reads). Undefined
 * for one Node would refuse before any upgrade: a method or name that is no
 * token, a value with a control character.
 */
function requestFrom(data: Uint8Array): { method: string; headers: Record<string, string> } | undefined {
  const lines = Buffer.from(data).toString('latin1').split('\n').map((line) => line.replace(/\r$/, ''));
  const method = lines[0]!;
  if (!TOKEN.test(method)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon < 0) return undefined;
    const name = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (!TOKEN.test(name) || CONTROL.test(value)) return undefined;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { method, headers };
}

/** Whether a comma-separated header names the token, in any case. */
function names(value: string | undefined, token: string): boolean {
  return value !== undefined && value.split(',').some((part) => part.trim().toLowerCase() === token);
}

/** What §4.2.1 lets through, judged plainly: the key is 16 bytes in base64. */
function acceptable(method: string, headers: Record<string, string>): boolean {
  const key = headers['sec-websocket-key']?.trim();
  // 16 bytes are 22 base64 characters and the padding '==' (RFC 4648 §4).
  const sixteenBytes = key !== undefined && key.length === 24 && /^[A-Za-z0-9+/]+==$/.test(key) && Buffer.from(key, 'base64').length === 16;
  return method === 'GET' && names(headers.upgrade, 'websocket') && names(headers.connection, 'upgrade') && headers['sec-websocket-version'] === '13' && sixteenBytes;
}

/** refuseUpgrade's response, caught from a socket that only records what it is given. */
function refusalResponse(status: 400 | 426, reason: string): string {
  let written = '';
  const socket = {
    end(chunk: string) {
      written += chunk;
    },
  };
  refuseUpgrade(socket as unknown as Duplex, status, reason);
  return written;
}

export const websocketHandshake: FuzzTarget = {
  name: 'websocket-handshake',
  parses: "checkUpgrade, the server judging a viewer's WebSocket upgrade request (and refuseUpgrade's answer)",
  fuzz(data) {
    const request = requestFrom(data);
    if (request === undefined) return;
    const { method, headers } = request;
    const verdict = checkUpgrade({ method, headers } as unknown as IncomingMessage);
    const should = acceptable(method, headers);
    if (verdict.ok) {
      promise(should, `checkUpgrade accepted a request RFC 6455 refuses: ${JSON.stringify({ method, headers }).slice(0, 200)}`);
      const key = headers['sec-websocket-key']!.trim();
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      promise(verdict.accept === accept && accept.length === 28, `the accept ${verdict.accept} does not answer the key ${key}`);
      return;
    }
    promise(!should, `checkUpgrade refused a valid request (${verdict.reason}): ${JSON.stringify({ method, headers }).slice(0, 200)}`);
    promise(verdict.status === 400 || verdict.status === 426, `a refusal with the status ${verdict.status}`);
    promise(typeof verdict.reason === 'string' && verdict.reason !== '' && !/[\r\n]/.test(verdict.reason), `a refusal's reason is not one line: ${JSON.stringify(verdict.reason)}`);
    const response = refusalResponse(verdict.status, verdict.reason);
    const split = response.indexOf('\r\n\r\n');
    const head = response.slice(0, split);
    const body = response.slice(split + 4);
    const length = /\r\nContent-Length: (\d+)\r\n/.exec(`${head}\r\n`)?.[1];
    promise(split > 0 && head.startsWith(`HTTP/1.1 ${verdict.status} `) && Number(length) === Buffer.byteLength(body), `refuseUpgrade wrote a malformed response: ${JSON.stringify(response.slice(0, 200))}`);
  },
  tokens: ['GET\n', '\nUpgrade: websocket', '\nConnection: keep-alive, Upgrade', '\nSec-WebSocket-Version: 13', '\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'WebSocket', ', ', '==', '\r', ' \t'].map((t) => new TextEncoder().encode(t)),
};
