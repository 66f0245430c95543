// One WebSocket to the server's /v1/viewer endpoint for the whole page, with
// every visible terminal on its own channel. The socket reconnects by itself
// (ReconnectBackoff) and tells each channel when it is ready again, so a
// channel only has to know how to (re)subscribe — resuming from its seq.
import {
  VIEWER_PROTOCOL_VERSION,
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../../src/protocol/viewer-frames.js';
import { ReconnectBackoff } from './backoff.js';

export type SocketState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** What a channel's owner (a TerminalLink) hears from the socket. */
export interface ChannelHandler {
  /** The socket said WELCOME: (re)subscribe now. serverBoot is this server's boot. */
  socketReady(serverBoot: string): void;
  /** The socket went away; frames sent now are lost. */
  socketLost(): void;
  frame(frame: FrameFromServer): void;
}

export interface ViewerSocketOptions {
  /** ws:// or wss:// URL of /v1/viewer. */
  url: string;
  /** Where protocol trouble is reported (a debug list, the console). */
  onProblem?(message: string): void;
}

/** A page-relative URL for the viewer endpoint: same host, ws or wss by the page's scheme. */
export function viewerSocketUrl(location: Location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/v1/viewer`;
}

export class ViewerSocket {
  private ws: WebSocket | null = null;
  private readonly channels = new Map<number, ChannelHandler>();
  private nextChannel = 1;
  private readonly backoff = new ReconnectBackoff();
  private retryTimer: number | null = null;
  private _state: SocketState = 'connecting';
  private _serverBoot: string | null = null;
  private _serverVersion: string | null = null;
  private readonly stateListeners = new Set<(state: SocketState) => void>();
  private disposed = false;
  /** Counters for the debug hook and the benchmarks. */
  readonly stats = { framesIn: 0, bytesIn: 0, framesOut: 0, connects: 0 };

  constructor(private readonly options: ViewerSocketOptions) {
    this.connect();
  }

  get state(): SocketState {
    return this._state;
  }
  get serverBoot(): string | null {
    return this._serverBoot;
  }
  get serverVersion(): string | null {
    return this._serverVersion;
  }
  /** Milliseconds until the next attempt while reconnecting (for the banner). */
  get failures(): number {
    return this.backoff.failures;
  }

  onState(listener: (state: SocketState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /**
   * Gives a handler a channel of its own. When the socket is already open the
   * handler hears socketReady in a microtask — after open() has returned, so
   * it knows its channel number by then.
   */
  open(handler: ChannelHandler): number {
    const channel = this.nextChannel++;
    this.channels.set(channel, handler);
    queueMicrotask(() => {
      if (this.channels.get(channel) === handler && this._state === 'open' && this._serverBoot !== null) handler.socketReady(this._serverBoot);
    });
    return channel;
  }

  /** Ends a channel: UNSUBSCRIBE if the socket is up; frames still in flight for it are dropped. */
  release(channel: number): void {
    if (!this.channels.delete(channel)) return;
    this.send({ type: 'unsubscribe', channel });
  }

  /** Sends a frame if the socket is open; returns false (and drops it) otherwise. */
  send(frame: FrameFromViewer): boolean {
    const ws = this.ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN || this._state !== 'open') return false;
    ws.send(encodeFrameToServer(frame));
    this.stats.framesOut++;
    return true;
  }

  /** Retry now instead of waiting out the backoff (the page became visible, the network came back). */
  retryNow(): void {
    if (this._state !== 'reconnecting' || this.retryTimer === null) return;
    window.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.connect();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.retryTimer !== null) window.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000, 'page closed');
    this.channels.clear();
    this.setState('closed');
  }

  private setState(state: SocketState): void {
    if (this._state === state) return;
    this._state = state;
    for (const listener of this.stateListeners) listener(state);
  }

  private connect(): void {
    if (this.disposed) return;
    const ws = new WebSocket(this.options.url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.stats.connects++;
    ws.onopen = () => {
      // The socket's first frame; channels subscribe once WELCOME names the boot.
      ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'web', readOnly: false }));
    };
    ws.onmessage = (event: MessageEvent) => {
      if (!(event.data instanceof ArrayBuffer)) return;
      this.stats.framesIn++;
      this.stats.bytesIn += event.data.byteLength;
      let frame: FrameFromServer;
      try {
        frame = decodeFrameFromServer(new Uint8Array(event.data));
      } catch (err) {
        // The same codec runs on both ends: a frame that does not decode is a bug; start over.
        this.options.onProblem?.(`undecodable frame from the server: ${(err as Error).message}`);
        ws.close(4000, 'undecodable frame');
        return;
      }
      this.dispatch(frame);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.lost();
    };
    // An error is always followed by close.
    ws.onerror = () => undefined;
  }

  private dispatch(frame: FrameFromServer): void {
    if (frame.type === 'welcome') {
      this._serverBoot = frame.serverBoot;
      this._serverVersion = frame.serverVersion;
      this.backoff.reset();
      this.setState('open');
      for (const handler of [...this.channels.values()]) handler.socketReady(frame.serverBoot);
      return;
    }
    if (frame.channel === 0) {
      if (frame.type === 'error') this.options.onProblem?.(`server: ${frame.message} (code ${frame.code})`);
      return;
    }
    this.channels.get(frame.channel)?.frame(frame);
  }

  private lost(): void {
    if (this.disposed) return;
    const wasOpen = this._state === 'open';
    this.setState('reconnecting');
    if (wasOpen) for (const handler of [...this.channels.values()]) handler.socketLost();
    const delayMs = this.backoff.next();
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delayMs);
  }
}
