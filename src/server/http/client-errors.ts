// Requests Node's HTTP parser refuses before any route sees them: a method
// it does not know, a path or header over its 16 KiB limit, bytes that are
// not HTTP. Node's own answer has no body and closes the socket with the
// rest of the request unread, so a client still writing gets a reset rather
// than the answer. Here every such request gets the API's JSON error, and
// the rest of what the client sends is read and dropped until it is done.
import { STATUS_CODES, type Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './errors.js';
import { whichTendHeaders } from './router.js';

/** How long a refused client may go on sending before its socket is closed. */
const DRAIN_LIMIT_MS = 2000;

function refusalFor(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('request_too_large', 'the request line and headers are over 16 KiB (a path that long names nothing here)');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('request_timeout', 'the request did not arrive whole in time');
    case 'HPE_INVALID_METHOD':
      return new ApiError('bad_method', 'the request uses an HTTP method this server does not know (GET, HEAD, POST, PUT, PATCH and DELETE are the ones its routes take)');
    default:
      return new ApiError('bad_request', `the request is not well-formed HTTP/1.1 (${err.code ?? err.message})`);
  }
}

export function answerClientErrors(http: HttpServer): void {
  http.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // A peer that reset or timed out has no one left to answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = refusalFor(err);
    const body = JSON.stringify(refusal.body());
    const status = refusal.status;
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      Object.entries(whichTendHeaders()).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // Closing with unread bytes would reset the connection before the client reads the answer.
    socket.on('data', () => {});
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), DRAIN_LIMIT_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
  });
}
