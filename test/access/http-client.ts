// Test support: one HTTP request (or WebSocket upgrade) with exactly the
// headers a test gives, Host included, to a port on 127.0.0.1, and the
// answer read whole: status, headers, text, and the API error's code and
// message when the body is one.
import { request } from 'node:http';
import type { Socket } from 'node:net';
import type { AttackOutcome } from './attack-table.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  code?: string;
  message?: string;
}

export interface CallOptions {
  /** Where to connect; 127.0.0.1 by default (another of this machine's addresses to come from outside loopback). */
  address?: string;
  method?: string;
  path?: string;
  host: string;
  /** More headers; a list sends the header once per value. */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

function withError(status: number, headers: Answer['headers'], text: string): Answer {
  const answer: Answer = { status, headers, text };
  if ((String(headers['content-type'] ?? '')).startsWith('application/json')) {
    try {
      const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
      if (body.error !== undefined) {
        answer.code = body.error.code;
        answer.message = body.error.message;
      }
    } catch {
      /* not JSON after all: the text says what it was */
    }
  }
  return answer;
}

export function call(port: number, options: CallOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { host: options.host, ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = request({ host: options.address ?? '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(withError(res.statusCode ?? 0, res.headers, text)));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface UpgradeResult {
  status: number;
  code?: string;
  message?: string;
  /** The upgraded socket, when the upgrade was accepted (101): the caller ends it. */
  socket?: Socket;
  head?: Buffer;
}

/** Asks for a WebSocket upgrade of path; a refusal's JSON is read. */
export function upgrade(port: number, options: Omit<CallOptions, 'method' | 'body'>): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: options.path ?? '/v1/viewer',
      agent: false,
      headers: {
        host: options.host,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...options.headers,
      },
    });
    req.on('upgrade', (res, socket, head) => resolve({ status: res.statusCode ?? 0, socket, head }));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const a = withError(res.statusCode ?? 0, res.headers, text);
        resolve({ status: a.status, code: a.code, message: a.message });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** An answer in the attack table's terms. */
export function outcome(a: { status: number; code?: string; message?: string }): AttackOutcome {
  return { status: a.status, code: a.code, note: a.message };
}

/** "name=value" of the login cookie an answer sets, or null. */
export function cookieSet(a: Answer): string | null {
  const header = a.headers['set-cookie'];
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const login = values.find((v) => /^(__Host-)?tend_login=[^;]+/.test(v));
  return login === undefined ? null : login.split(';')[0]!;
}
