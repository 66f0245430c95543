// Test support for the proxy-identity tests end to end (issue 28): a real
// tend server with remote access on, a terminal's WebSocket opened on its
// 127.0.0.1 port (straight, or through a proxy the test started) with
// whatever Host, headers and cookie an attack or a sign-in needs, and the
// refusal an attack must meet (plain requests are http-client.ts's).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startTestServer, waitFor, type TestServer } from '../server/harness.js';
import type { AttackTable } from './attack-table.js';
import { cookieSet, type Answer } from './http-client.js';
import { decodeFrameFromServer, encodeFrameToServer, VIEWER_PROTOCOL_VERSION, type FrameFromServer } from '../../src/protocol/viewer-frames.js';

export interface RemoteTend {
  t: TestServer;
  /** The server's port on 127.0.0.1. */
  port: number;
  /** Runs `tend remote ARGS...` and asserts it succeeded. */
  remote(...args: string[]): Promise<string>;
  /** A session running a shell that printed `mark`, for a terminal to show. */
  sessionShowing(mark: string): Promise<string>;
  dispose(): Promise<void>;
}

/** A tend server with remote access enabled and `hosts` allowed; `env` reaches the server (PATH, NODE_EXTRA_CA_CERTS, ...). */
export async function startRemoteTend(options: { env?: Record<string, string>; hosts: string[] }): Promise<RemoteTend> {
  const t = startTestServer(options.env ?? {});
  const remote = async (...args: string[]): Promise<string> => {
    const r = await t.cli(['remote', ...args]);
    assert.equal(r.code, 0, `tend remote ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    await remote('enable');
    for (const host of options.hosts) await remote('allow', host);
    const portFile = join(t.client.paths.runtimeDir, 'port');
    const port = await waitFor('the server\'s port file', () => Number(readFileSync(portFile, 'utf8').trim()) || null);
    return {
      t,
      port,
      remote,
      async sessionShowing(mark) {
        const created = await t.cli(['new', '--json', '--size', '80x24', '--', 'sh', '-c', `echo ${mark}; exec sleep 600`]);
        assert.equal(created.code, 0, created.stderr);
        const id = (JSON.parse(created.stdout) as { id: string }).id;
        // On the screen before a terminal subscribes, so its snapshot shows it.
        await waitFor(`${mark} on the screen`, async () => (await t.cli(['screen', id])).stdout.includes(mark));
        return id;
      },
      dispose: () => t.dispose(),
    };
  } catch (err) {
    await t.dispose();
    throw err;
  }
}

export type TerminalOpening = { opened: true; screen: string } | { opened: false; status: number; message: string };

/**
 * Opens a terminal's WebSocket at 127.0.0.1:port with these headers (Host,
 * Cookie, Origin ...), subscribes to `sessionId`, and waits for a snapshot
 * that shows `mark`; or says how the upgrade was refused.
 */
export function openTerminal(port: number, headers: Record<string, string>, sessionId: string, mark: string): Promise<TerminalOpening> {
  return new Promise((resolve, reject) => {
    const { origin, ...rest } = headers;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/viewer`, { headers: rest, perMessageDeflate: false, ...(origin === undefined ? {} : { origin }) });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`the terminal ${sessionId} never showed ${mark}`));
    }, 30_000);
    const finish = (result: TerminalOpening) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(result);
    };
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let message = text;
        try {
          message = (JSON.parse(text) as { error: { message: string } }).error.message;
        } catch {
          /* not JSON */
        }
        finish({ opened: false, status: res.statusCode ?? 0, message });
      });
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    ws.on('open', () => {
      ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }));
      ws.send(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId, cols: 80, rows: 24 }));
    });
    ws.on('message', (data: Buffer) => {
      const frame: FrameFromServer = decodeFrameFromServer(data);
      if (frame.type === 'snapshot' && frame.data.includes(mark)) finish({ opened: true, screen: frame.data });
    });
  });
}

/**
 * Asserts the gate refused the request with the identity check's reason (why) and set no cookie,
 * and records the attack as a row of the file's table.
 */
export function expectRefused(table: AttackTable, attack: string, answer: Answer, why: RegExp): void {
  const cookie = cookieSet(answer);
  const held = answer.status === 403 && why.test(answer.message ?? '') && cookie === null;
  table.record(attack, { status: 403, code: 'forbidden', words: 'no cookie' }, { status: answer.status, code: answer.code, note: `${cookie === null ? '' : 'COOKIE SET; '}${answer.message ?? answer.text.slice(0, 60)}` }, held);
  assert.equal(answer.status, 403, answer.text);
  assert.match(answer.message ?? '', why);
  assert.equal(cookie, null, 'a refused request got a login cookie');
}
