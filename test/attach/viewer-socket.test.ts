// The WebSocket endpoint's own rules, on the real server's socket: the path,
// binary messages only, and the HELLO handshake.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { ViewerErrorCode, decodeFrameFromServer, encodeFrameToServer } from '../../src/protocol/viewer-frames.js';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, serverFor } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

function open(socketPath: string, path: string): WebSocket {
  const ws = new WebSocket(`ws+unix://${socketPath}:${path}`, { perMessageDeflate: false });
  ws.on('error', () => undefined);
  return ws;
}

test('an upgrade on another path is refused with 404', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const ws = open(server.client.paths.serverSocket, '/v1/not-a-viewer');
  scope.own({ dispose: () => ws.terminate() });
  const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  assert.equal(status, 404);
});

test('a text message gets ERROR UNKNOWN_FRAME and the socket closed 1003; a frame before HELLO gets NO_HELLO', T, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  for (const [send, code, closeCode] of [
    [(ws: WebSocket) => ws.send('hello as text'), ViewerErrorCode.UNKNOWN_FRAME, 1003],
    [(ws: WebSocket) => ws.send(encodeFrameToServer({ type: 'ack', channel: 1, seq: 0 })), ViewerErrorCode.NO_HELLO, 1008],
  ] as const) {
    const ws = open(server.client.paths.serverSocket, '/v1/viewer');
    scope.own({ dispose: () => ws.terminate() });
    const frames: ReturnType<typeof decodeFrameFromServer>[] = [];
    let closed: number | null = null;
    ws.on('message', (data: Buffer) => frames.push(decodeFrameFromServer(data)));
    ws.on('close', (c: number) => (closed = c));
    await new Promise((resolve) => ws.once('open', resolve));
    send(ws);
    await waitFor(() => closed !== null, { what: 'the socket to close' });
    assert.equal(closed, closeCode);
    const error = frames.find((f) => f.type === 'error');
    assert.ok(error && error.type === 'error' && error.code === code, JSON.stringify(frames));
  }
});
