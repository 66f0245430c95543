// One WebSocket from `tend attach` to the server's viewer endpoint over the
// server's unix socket: frames out encoded, frames in decoded, and an account
// of input bytes handed to the socket but not yet written out, so a large
// paste is read from the terminal no faster than the server takes it.
import {
  DEFAULT_MAX_FRAME_FROM_SERVER_BYTES,
  ViewerFrameError,
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../protocol/viewer-frames.js';
import { UnixWebSocket } from './unix-websocket.js';
import { VIEWER_SOCKET_PATH } from '../../protocol/api/index.js';

export const VIEWER_ENDPOINT_PATH = VIEWER_SOCKET_PATH;
const HANDSHAKE_TIMEOUT_MS = 10_000;

export interface ServerLinkHandlers {
  onOpen(): void;
  onFrame(frame: FrameFromServer): void;
  /** The socket is gone (or never opened); `why` is for people. Called once. */
  onClose(why: string): void;
}

export class ServerLink {
  private readonly ws: UnixWebSocket;
  private closed = false;
  private unsentInput = 0;

  constructor(socketPath: string, private readonly handlers: ServerLinkHandlers) {
    this.ws = new UnixWebSocket(
      { socketPath, path: VIEWER_ENDPOINT_PATH, maxPayloadBytes: DEFAULT_MAX_FRAME_FROM_SERVER_BYTES, handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS },
      {
        onOpen: () => handlers.onOpen(),
        onMessage: (data) => this.message(data),
        onClose: (why) => this.finish(why),
      },
    );
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.isOpen;
  }

  /** Input bytes given to send() whose write to the socket has not completed. */
  get unsentInputBytes(): number {
    return this.unsentInput;
  }

  /** Frames sent in one tick go to the socket in one write (an ack with the key typed after it). */
  send(frame: FrameFromViewer, written?: () => void): void {
    if (!this.isOpen) return;
    const bytes = encodeFrameToServer(frame);
    const counted = frame.type === 'input' ? frame.data.length : 0;
    this.unsentInput += counted;
    this.ws.send(bytes, () => {
      this.unsentInput -= counted;
      written?.();
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    // No closing handshake to wait for: the server drops this viewer on close.
    this.ws.close();
  }

  private message(data: Buffer): void {
    if (this.closed) return;
    let frame: FrameFromServer;
    try {
      frame = decodeFrameFromServer(data);
    } catch (err) {
      if (!(err instanceof ViewerFrameError)) throw err;
      this.fail(`the server sent a frame this viewer cannot read (${err.message})`);
      return;
    }
    this.handlers.onFrame(frame);
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
