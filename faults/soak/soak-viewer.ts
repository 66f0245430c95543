// A viewer for the soak: a WebSocket on the server's unix socket that says
// HELLO, subscribes to one session and acks what it is sent (as `tend attach`
// does), for as long as the soak keeps it; then it leaves.

import WebSocket from 'ws';
import { VIEWER_PROTOCOL_VERSION, decodeFrameFromServer, encodeFrameToServer, type FrameFromViewer } from '../../src/protocol/viewer-frames.js';

const OPEN_TIMEOUT_MS = 10_000;

export class SoakViewer {
  /** Stream bytes received: a viewer that got nothing is reported. */
  bytes = 0;
  private constructor(private readonly ws: WebSocket) {}

  static async open(socketPath: string, sessionId: string, cols: number, rows: number): Promise<SoakViewer> {
    const ws = new WebSocket(`ws+unix://${socketPath}:/v1/viewer`, { perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const viewer = new SoakViewer(ws);
    ws.on('error', () => undefined);
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrameFromServer(data);
      if (frame.type === 'data') viewer.bytes += frame.data.length;
      if ((frame.type === 'data' || frame.type === 'snapshot') && frame.channel !== 0) viewer.send({ type: 'ack', channel: frame.channel, seq: frame.seq });
    });
    viewer.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true });
    viewer.send({ type: 'subscribe', channel: 1, sessionId, cols, rows });
    return viewer;
  }

  private send(frame: FrameFromViewer): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(encodeFrameToServer(frame));
  }

  close(): void {
    this.ws.terminate();
  }
}
