// One upgraded socket, server side: binary messages in (websocket-frame-reader),
// frames out (websocket-frame-writer), and the closing handshake between them.
// This replaces `ws` on the viewer sockets' hot path: a keystroke's frame is
// parsed from the 'data' chunk it came in, and the frames one round of the
// event loop sends go out in one write.
//
// Closing (RFC 6455 §7): close() sends a close frame and waits for the peer's,
// then ends the socket; a peer that never answers is cut after a timeout. A
// peer's close frame is answered with the same code and the socket ended. A
// broken rule fails the socket: a close frame saying why, then the end, not
// waiting for an answer. onClose runs once, when the socket is gone.

import type { Duplex } from 'node:stream';
import { closePayload } from './websocket-close.js';
import { OP_BINARY, OP_CLOSE, OP_PONG, WebSocketFrameReader, type FrameViolation } from './websocket-frame-reader.js';
import { writeBuiltFrame, writeFrame } from './websocket-frame-writer.js';

/** How long a closing socket waits for the peer's close frame, or for the peer to end, before it is cut. */
export const CLOSE_TIMEOUT_MS = 30_000;

export interface ServerWebSocketHandlers {
  /** One whole binary message; the bytes are the handler's to keep. */
  onMessage(message: Buffer): void;
  /**
   * The peer broke a rule (a text message, one over the limit, a malformed
   * frame). The handler may send a last message and close() with its own code;
   * if it does not, the socket is failed with the violation's code and reason.
   */
  onViolation?(violation: FrameViolation): void;
  /** The socket is gone. Called once. */
  onClose(): void;
}

export interface ServerWebSocketOptions {
  /** A longer message from the peer is a violation, refused before it is buffered. */
  maxMessageBytes: number;
  closeTimeoutMs?: number;
}

type Phase = 'open' | 'closing' | 'closed';

export class ServerWebSocket {
  private phase: Phase = 'open';
  private closeSent = false;
  private closeReceived = false;
  private closeTimer: NodeJS.Timeout | null = null;
  /** Messages wait in the socket until this round of the event loop ends (see send()). */
  private corked = false;
  private readonly reader: WebSocketFrameReader;

  /**
   * Takes over an upgraded socket once the 101 has been written; `head` is
   * what the HTTP parser read past the request (the first frames, if any).
   */
  constructor(
    private readonly socket: Duplex,
    head: Buffer,
    private readonly options: ServerWebSocketOptions,
    private readonly handlers: ServerWebSocketHandlers,
  ) {
    this.reader = new WebSocketFrameReader(
      { maxMessageBytes: options.maxMessageBytes },
      {
        onMessage: (message) => {
          if (this.phase !== 'closed') handlers.onMessage(message);
        },
        onPing: (payload) => {
          if (this.phase === 'open') writeFrame(this.socket, OP_PONG, payload);
        },
        onClose: (code) => this.peerClosed(code),
        onViolation: (violation) => this.violated(violation),
      },
    );
    // The socket may be a bare Duplex; a net.Socket has these.
    const net = socket as Duplex & { setTimeout?(ms: number): void; setNoDelay?(noDelay: boolean): void };
    net.setTimeout?.(0);
    net.setNoDelay?.(true);
    // Read with the rest, from the first 'data', after the owner holds this object.
    if (head.length > 0) socket.unshift(head);
    socket.on('data', (chunk: Buffer) => {
      if (this.phase !== 'closed') this.reader.push(chunk);
    });
    // The peer ended its side (the HTTP server lets sockets half-close): end ours.
    socket.on('end', () => {
      if (this.phase === 'open') this.phase = 'closing';
      socket.end();
    });
    // An error (a reset, a write after the peer left) is followed by 'close'.
    socket.on('error', () => undefined);
    socket.on('close', () => this.gone());
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /** Bytes written and not yet taken by the kernel. */
  get bufferedAmount(): number {
    return this.socket.writableLength;
  }

  /**
   * Sends one binary message (dropped unless the socket is open). The socket
   * is corked until this round of the event loop has run its I/O callbacks,
   * so the messages they send go out in one write: a key's echo and its
   * INPUT_TAKEN, which come from one read of the holder, wake the viewer once.
   */
  send(message: Uint8Array): void {
    if (this.phase !== 'open') return;
    this.corkUntilRoundEnds();
    writeFrame(this.socket, OP_BINARY, message);
  }

  /** As send(), for a message `build` writes in place (payloadBytes of it, from `at`): see writeBuiltFrame. */
  sendBuilt(payloadBytes: number, build: (into: Uint8Array, at: number) => void): void {
    if (this.phase !== 'open') return;
    this.corkUntilRoundEnds();
    writeBuiltFrame(this.socket, OP_BINARY, payloadBytes, build);
  }

  private corkUntilRoundEnds(): void {
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(() => this.uncorkNow());
  }

  /** Starts the closing handshake: a close frame with the code and reason (clipped to 123 bytes). */
  close(code: number, reason: string): void {
    if (this.phase !== 'open') return;
    this.phase = 'closing';
    this.sendClose(code, reason);
    if (this.closeReceived) this.socket.end();
    this.armCloseTimer();
  }

  /** Cuts the socket at once, with no closing handshake. */
  terminate(): void {
    this.socket.destroy();
  }

  private peerClosed(code: number | null): void {
    this.closeReceived = true;
    // Answer with the peer's code (§5.5.1), then end: the server ends the TCP connection first (§7.1.1).
    if (!this.closeSent) this.sendClose(code, '');
    if (this.phase === 'open') this.phase = 'closing';
    this.socket.end();
    this.armCloseTimer();
  }

  private violated(violation: FrameViolation): void {
    if (this.phase !== 'open') return;
    this.handlers.onViolation?.(violation);
    // Fail the socket (§7.1.7): say why, end, do not wait for the peer's close frame.
    if (this.phase === 'open') {
      this.phase = 'closing';
      this.sendClose(violation.closeCode, violation.reason);
    }
    this.socket.end();
    this.armCloseTimer();
  }

  private sendClose(code: number | null, reason: string): void {
    if (this.closeSent) return;
    this.closeSent = true;
    if (this.socket.writable) writeFrame(this.socket, OP_CLOSE, closePayload(code, reason));
    // The close is the last frame: what is corked goes now, not at the round's end. A server that
    // stops exits right after closing its sockets, and a corked CLOSED (server shutdown) would
    // never reach the viewer, which then takes the lost socket for a crash and starts a server.
    this.uncorkNow();
  }

  private uncorkNow(): void {
    if (!this.corked) return;
    this.corked = false;
    this.socket.uncork();
  }

  private armCloseTimer(): void {
    if (this.closeTimer !== null || this.phase === 'closed') return;
    this.closeTimer = setTimeout(() => this.socket.destroy(), this.options.closeTimeoutMs ?? CLOSE_TIMEOUT_MS);
    this.closeTimer.unref();
  }

  private gone(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    if (this.closeTimer !== null) clearTimeout(this.closeTimer);
    this.closeTimer = null;
    this.handlers.onClose();
  }
}
