// One WebSocket from `tend attach` to the server's viewer endpoint over the
// server's unix socket: frames out encoded, frames in decoded, and an account
// of input bytes handed to the socket but not yet written out, so a large
// paste is read from the terminal no faster than the server takes it.
import WebSocket from 'ws';
import {
  DEFAULT_MAX_FRAME_FROM_SERVER_BYTES,
  ViewerFrameError,
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../protocol/viewer-frames.js';

export const VIEWER_ENDPOINT_PATH = '/v1/viewer';

export interface ServerLinkHandlers {
  onOpen(): void;
  onFrame(frame: FrameFromServer): void;
  /** The socket is gone (or never opened); `why` is for people. Called once. */
  onClose(why: string): void;
}

export class ServerLink {
  private readonly ws: WebSocket;
  private closed = false;
  private unsentInput = 0;

  constructor(socketPath: string, private readonly handlers: ServerLinkHandlers) {
    // ws's unix-socket URL form: ws+unix://<socket path>:<request path>.
    this.ws = new WebSocket(`ws+unix://${socketPath}:${VIEWER_ENDPOINT_PATH}`, {
      perMessageDeflate: false,
      maxPayload: DEFAULT_MAX_FRAME_FROM_SERVER_BYTES,
      handshakeTimeout: 10_000,
    });
    this.ws.binaryType = 'nodebuffer';
    this.ws.on('open', () => handlers.onOpen());
    this.ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (this.closed) return;
      if (!isBinary) {
        this.fail('the server sent a text message on the viewer socket');
        return;
      }
      let frame: FrameFromServer;
      try {
        frame = decodeFrameFromServer(data);
      } catch (err) {
        if (!(err instanceof ViewerFrameError)) throw err;
        this.fail(`the server sent a frame this viewer cannot read (${err.message})`);
        return;
      }
      handlers.onFrame(frame);
    });
    this.ws.on('close', (code: number, reason: Buffer) => {
      this.finish(reason.length > 0 ? reason.toString('utf8') : `socket closed (${code})`);
    });
    this.ws.on('error', (err: Error) => {
      // 'close' follows; keep the more telling message.
      this.finish(err.message);
    });
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === WebSocket.OPEN;
  }

  /** Input bytes given to send() whose write to the socket has not completed. */
  get unsentInputBytes(): number {
    return this.unsentInput;
  }

  send(frame: FrameFromViewer, written?: () => void): void {
    if (!this.isOpen) return;
    const bytes = encodeFrameToServer(frame);
    const counted = frame.type === 'input' ? frame.data.length : 0;
    this.unsentInput += counted;
    this.ws.send(bytes, { binary: true }, () => {
      this.unsentInput -= counted;
      written?.();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.removeAllListeners('message');
    // No closing handshake to wait for: the server drops this viewer on close.
    this.ws.terminate();
  }

  private fail(why: string): void {
    this.close();
    this.handlers.onClose(why);
  }

  private finish(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers.onClose(why);
  }
}
