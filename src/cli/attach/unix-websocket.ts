// A WebSocket client (RFC 6455) on a unix socket, as lean as a keystroke
// needs: `tend attach` sends a frame or two per key and gets one back, and
// through the `ws` library and Node's streams each cost it ~150 µs of
// JavaScript and a write of its own. Here frames sent in one tick leave in one
// write, reads land in one reused buffer, and a frame's payload is copied once.
// Binary messages only (a text message is a protocol error for the viewer
// protocol); pings are answered; no extensions are offered.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const READ_BUFFER_BYTES = 64 * 1024;
/** The server's answer to the upgrade is a few hundred bytes; more is not a WebSocket server. */
const MAX_HANDSHAKE_BYTES = 16 * 1024;
/** Mask keys are drawn from a pool this large, refilled when used up. */
const MASK_POOL_BYTES = 4096;

const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

export interface UnixWebSocketOptions {
  socketPath: string;
  /** The request path, e.g. /v1/viewer. */
  path: string;
  /** A larger message from the server ends the socket (its frames are checked before any allocation). */
  maxPayloadBytes: number;
  handshakeTimeoutMs: number;
}

export interface UnixWebSocketHandlers {
  onOpen(): void;
  /** One whole binary message; the buffer is the handler's to keep. */
  onMessage(data: Buffer): void;
  /** The socket is gone (or never opened); `why` is for people. Called once. */
  onClose(why: string): void;
}

type Phase = 'handshake' | 'open' | 'closed';

export class UnixWebSocket {
  private phase: Phase = 'handshake';
  private readonly socket: Socket;
  private readonly key = randomBytes(16).toString('base64');
  private handshakeBytes: Buffer = Buffer.alloc(0);
  private handshakeTimer: NodeJS.Timeout | null;

  // The frame being read: its header (up to 2 + 8 bytes), then its payload.
  private readonly header = Buffer.alloc(10);
  private headerFilled = 0;
  private payload: Buffer | null = null;
  private payloadFilled = 0;
  private opcode = 0;
  private fin = false;
  /** Fragments of a binary message that came in several frames. */
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;

  // Frames sent this tick, written together.
  private outgoing: Buffer[] = [];
  private outgoingDone: Array<() => void> = [];
  private flushQueued = false;
  private maskPool = Buffer.alloc(0);
  private maskAt = 0;

  constructor(private readonly options: UnixWebSocketOptions, private readonly handlers: UnixWebSocketHandlers) {
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.socket = connect({
      path: options.socketPath,
      onread: {
        buffer,
        callback: (n: number, buf: Uint8Array) => {
          this.received(buf.subarray(0, n));
          return true;
        },
      },
    });
    this.socket.on('connect', () => this.socket.write(this.upgradeRequest()));
    let failure: string | null = null;
    this.socket.on('error', (err: Error) => (failure ??= err.message));
    this.socket.on('close', () => this.end(failure ?? (this.phase === 'handshake' ? 'the server closed the socket during the WebSocket handshake' : 'the server closed the socket')));
    this.handshakeTimer = setTimeout(() => this.end(`the server did not answer the WebSocket handshake within ${options.handshakeTimeoutMs} ms`), options.handshakeTimeoutMs);
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  /** Sends one binary message; `written` runs once it has left for the socket. Frames sent in one tick go in one write. */
  send(data: Uint8Array, written?: () => void): void {
    if (this.phase !== 'open') return;
    this.queueFrame(OP_BINARY, data, written);
  }

  /** Ends the socket at once (no closing handshake: the server drops the viewer when its socket closes). onClose is not called. */
  close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.clearHandshakeTimer();
    this.socket.destroy();
  }

  // ---- handshake -------------------------------------------------------------

  private upgradeRequest(): string {
    return `GET ${this.options.path} HTTP/1.1\r\n` +
      'Host: localhost\r\n' +
      'Upgrade: websocket\r\n' +
      'Connection: Upgrade\r\n' +
      `Sec-WebSocket-Key: ${this.key}\r\n` +
      'Sec-WebSocket-Version: 13\r\n\r\n';
  }

  private handshakeData(bytes: Uint8Array): void {
    this.handshakeBytes = Buffer.concat([this.handshakeBytes, bytes]);
    const end = this.handshakeBytes.indexOf('\r\n\r\n');
    if (end < 0) {
      if (this.handshakeBytes.length > MAX_HANDSHAKE_BYTES) this.end('the server answered the WebSocket handshake with something else');
      return;
    }
    const [statusLine = '', ...headerLines] = this.handshakeBytes.subarray(0, end).toString('latin1').split('\r\n');
    const rest = this.handshakeBytes.subarray(end + 4);
    if (!/^HTTP\/1\.1 101\b/.test(statusLine)) {
      const body = rest.toString('utf8').trim().slice(0, 200);
      this.end(`the server refused the viewer socket: ${statusLine.replace(/^HTTP\/1\.1 /, '')}${body ? ` (${body})` : ''}`);
      return;
    }
    const headers = new Map<string, string>();
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const accept = createHash('sha1').update(this.key + HANDSHAKE_GUID).digest('base64');
    if (headers.get('upgrade')?.toLowerCase() !== 'websocket' || headers.get('sec-websocket-accept') !== accept) {
      this.end('the server answered the WebSocket handshake wrongly');
      return;
    }
    if (headers.has('sec-websocket-extensions')) {
      this.end('the server chose a WebSocket extension that was not offered');
      return;
    }
    this.handshakeBytes = Buffer.alloc(0);
    this.clearHandshakeTimer();
    this.phase = 'open';
    this.handlers.onOpen();
    if (rest.length > 0 && this.isOpen) this.frames(rest);
  }

  private clearHandshakeTimer(): void {
    if (this.handshakeTimer !== null) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
  }

  // ---- reading ---------------------------------------------------------------

  private received(bytes: Uint8Array): void {
    if (this.phase === 'handshake') this.handshakeData(bytes);
    else if (this.phase === 'open') this.frames(bytes);
  }

  /** Consumes bytes of frames, in whatever pieces the reads bring them. */
  private frames(bytes: Uint8Array): void {
    let at = 0;
    while (at < bytes.length && this.phase === 'open') {
      if (this.payload === null) {
        // Header: 2 bytes, then the extended length they announce, if any.
        const need = this.headerFilled < 2 ? 2 : 2 + extendedLengthBytes(this.header[1]! & 0x7f);
        const take = Math.min(need - this.headerFilled, bytes.length - at);
        this.header.set(bytes.subarray(at, at + take), this.headerFilled);
        this.headerFilled += take;
        at += take;
        if (this.headerFilled < need) continue;
        if (need === 2 && extendedLengthBytes(this.header[1]! & 0x7f) > 0) continue; // its extended length is next
        if (!this.frameStarts()) return;
        if (this.payload!.length > 0) continue;
      } else {
        const take = Math.min(this.payload.length - this.payloadFilled, bytes.length - at);
        this.payload.set(bytes.subarray(at, at + take), this.payloadFilled);
        this.payloadFilled += take;
        at += take;
      }
      if (this.payloadFilled === this.payload!.length) this.frameEnds();
    }
  }

  /** The header is whole: checks it and makes room for the payload. False when the socket was failed. */
  private frameStarts(): boolean {
    const b0 = this.header[0]!;
    const b1 = this.header[1]!;
    this.fin = (b0 & 0x80) !== 0;
    this.opcode = b0 & 0x0f;
    const len7 = b1 & 0x7f;
    let length: number;
    if (len7 === 126) length = this.header.readUInt16BE(2);
    else if (len7 === 127) {
      const big = this.header.readBigUInt64BE(2);
      length = big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
    } else length = len7;
    if ((b0 & 0x70) !== 0) return this.failed('the server set reserved bits in a WebSocket frame');
    if ((b1 & 0x80) !== 0) return this.failed('the server masked a WebSocket frame');
    if (this.opcode >= 0x8) {
      if (!this.fin || length > 125) return this.failed('the server sent a malformed WebSocket control frame');
      if (this.opcode !== OP_CLOSE && this.opcode !== OP_PING && this.opcode !== OP_PONG) return this.failed(`the server sent an unknown WebSocket opcode ${this.opcode}`);
    } else if (this.opcode === OP_TEXT) {
      return this.failed('the server sent a text message on the viewer socket');
    } else if (this.opcode === OP_BINARY) {
      if (this.fragments.length > 0) return this.failed('the server began a WebSocket message inside another');
    } else if (this.opcode === OP_CONTINUATION) {
      if (this.fragments.length === 0) return this.failed('the server continued a WebSocket message it had not begun');
    } else {
      return this.failed(`the server sent an unknown WebSocket opcode ${this.opcode}`);
    }
    if (this.opcode < 0x8 && this.fragmentBytes + length > this.options.maxPayloadBytes) {
      return this.failed(`the server sent a message over ${this.options.maxPayloadBytes} bytes`);
    }
    this.payload = Buffer.allocUnsafe(length);
    this.payloadFilled = 0;
    return true;
  }

  private frameEnds(): void {
    const payload = this.payload!;
    this.payload = null;
    this.headerFilled = 0;
    switch (this.opcode) {
      case OP_PING:
        this.queueFrame(OP_PONG, payload);
        return;
      case OP_PONG:
        return;
      case OP_CLOSE: {
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : null;
        const reason = payload.length > 2 ? payload.subarray(2).toString('utf8') : '';
        this.end(reason || (code === null ? 'socket closed' : `socket closed (${code})`));
        return;
      }
    }
    if (!this.fin) {
      this.fragments.push(payload);
      this.fragmentBytes += payload.length;
      return;
    }
    let message = payload;
    if (this.fragments.length > 0) {
      message = Buffer.concat([...this.fragments, payload]);
      this.fragments = [];
      this.fragmentBytes = 0;
    }
    this.handlers.onMessage(message);
  }

  // ---- writing ---------------------------------------------------------------

  private queueFrame(opcode: number, data: Uint8Array, written?: () => void): void {
    this.outgoing.push(this.maskedFrame(opcode, data));
    if (written) this.outgoingDone.push(written);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    const frames = this.outgoing;
    const done = this.outgoingDone;
    this.outgoing = [];
    this.outgoingDone = [];
    if (this.phase !== 'open' || frames.length === 0) return;
    const bytes = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
    this.socket.write(bytes, done.length === 0 ? undefined : () => {
      for (const d of done) d();
    });
  }

  /** A client's frame: FIN, the opcode, the length, a mask key and the masked payload, in one buffer. */
  private maskedFrame(opcode: number, data: Uint8Array): Buffer {
    const length = data.length;
    const lengthBytes = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
    const start = 2 + lengthBytes + 4;
    const frame = Buffer.allocUnsafe(start + length);
    frame[0] = 0x80 | opcode;
    if (lengthBytes === 0) frame[1] = 0x80 | length;
    else if (lengthBytes === 2) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeBigUInt64BE(BigInt(length), 2);
    }
    if (this.maskAt + 4 > this.maskPool.length) {
      this.maskPool = randomFillSync(Buffer.allocUnsafe(MASK_POOL_BYTES));
      this.maskAt = 0;
    }
    const m = start - 4;
    for (let i = 0; i < 4; i++) frame[m + i] = this.maskPool[this.maskAt + i]!;
    this.maskAt += 4;
    for (let i = 0; i < length; i++) frame[start + i] = data[i]! ^ frame[m + (i & 3)]!;
    return frame;
  }

  // ---- the end ---------------------------------------------------------------

  private failed(why: string): false {
    this.end(why);
    return false;
  }

  private end(why: string): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.clearHandshakeTimer();
    this.socket.destroy();
    this.handlers.onClose(why);
  }
}

/** Bytes of extended payload length that follow the 7-bit length. */
function extendedLengthBytes(len7: number): number {
  return len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
}
