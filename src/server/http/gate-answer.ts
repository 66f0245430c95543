// How a refusal reaches the caller: the API's JSON error for API paths and
// WebSocket upgrades ({"error":{"code":"forbidden","message":...}}, status
// 403), a plain page for the pages of the app (the login page when signing in
// is all that is missing). Nothing else is said: no CORS headers, no detail
// of which check came first beyond the message.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { ApiError } from './errors.js';
import { send } from './router.js';
import type { GateRefusal } from '../access/gate.js';
import { LOGIN_PAGE, refusalPage } from '../access/login-page.js';

const SIGN_IN_STATUS = 401;

function isApiPath(req: IncomingMessage): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  return path === '/v1' || path.startsWith('/v1/');
}

export function answerRefusal(req: IncomingMessage, res: ServerResponse, refusal: GateRefusal): void {
  if (refusal.setCookie.length > 0) res.setHeader('set-cookie', refusal.setCookie);
  const page = req.method === 'GET' || req.method === 'HEAD';
  if (isApiPath(req) || !page) {
    send(res, { status: 403, json: new ApiError('forbidden', refusal.message).body() });
    return;
  }
  const { html, headers } = refusal.signIn ? LOGIN_PAGE : refusalPage(refusal.message);
  send(res, { status: refusal.signIn ? SIGN_IN_STATUS : 403, text: req.method === 'HEAD' ? '' : html, contentType: 'text/html; charset=utf-8', headers });
}

export function serveLoginPage(req: IncomingMessage, res: ServerResponse): void {
  const { html, headers } = LOGIN_PAGE;
  send(res, { status: 200, text: req.method === 'HEAD' ? '' : html, contentType: 'text/html; charset=utf-8', headers });
}

/** Refuses a WebSocket upgrade with the API's JSON error, and ends the socket. */
export function refuseUpgradeWithJson(socket: Duplex, message: string): void {
  const body = JSON.stringify(new ApiError('forbidden', message).body());
  socket.end(
    `HTTP/1.1 403 ${STATUS_CODES[403]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
