// One WebSocket to the server's /v1/viewer endpoint for the whole page, with
// every visible terminal on its own channel. The socket reconnects by itself
// (ReconnectBackoff) and tells each channel when it is ready again, so a
// channel only has to know how to (re)subscribe — resuming from its seq.
//
// Typing is counted here too, per session (several panes may show one): the
// page has one writer id, bytes to a session are numbered and kept until
// INPUT_TAKEN says the session's holder has them, and every new connection
// is sent again what is not yet taken — the holder drops what it has, so a
// key typed into a socket a server crash had already killed arrives once.
import {
  VIEWER_PROTOCOL_VERSION,
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../../src/protocol/viewer-frames.js';
import { UntakenInput, newWriterId } from '../../../src/protocol/untaken-input.js';
import { Emitter } from '../../../src/common/event.js';
import { ReconnectBackoff } from './backoff.js';
import { checkSignedIn } from '../api/signed-out.js';
import { VIEWER_SOCKET_PATH } from '../../../src/protocol/api/index.js';

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
  /** A socket that only watches (the dashboard's previews): the server never takes its size or input. */
  readOnly?: boolean;
}

/** A page-relative URL for the viewer endpoint: same host, ws or wss by the page's scheme. */
export function viewerSocketUrl(location: Location): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}${VIEWER_SOCKET_PATH}`;
}

/**
 * Typed input a page keeps per session until the holder has taken it. Far
 * above any typing or ordinary paste; past it, input is refused and said so.
 */
export const UNTAKEN_INPUT_MAX_BYTES = 8 * 1024 * 1024;

/** A session's counted input on this page, and the connection it was last sent on. */
interface SessionInput {
  untaken: UntakenInput;
  connection: number;
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
  private readonly stateChanges = new Emitter<SocketState>();
  private disposed = false;
  /** This page's input identity at every holder, kept across reconnects. */
  private readonly writer = newWriterId();
  /** Bumped on every WELCOME: input sent on an older connection may have died with it. */
  private connection = 0;
  private readonly inputs = new Map<string, SessionInput>();
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
    const subscription = this.stateChanges.on(listener);
    return () => subscription.dispose();
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

  /**
   * Typed input for a session, sent as INPUT_AT on `channel` (a channel
   * subscribed to it on this connection), or, with none, kept for the next
   * subscription. False when refused: over UNTAKEN_INPUT_MAX_BYTES not yet taken.
   */
  typeInto(sessionId: string, bytes: Uint8Array, channel: number | null): boolean {
    const input = this.inputFor(sessionId);
    if (input.untaken.untakenBytes + bytes.length > UNTAKEN_INPUT_MAX_BYTES) return false;
    input.untaken.add(bytes);
    if (channel !== null) this.sendInput(sessionId, channel);
    return true;
  }

  /**
   * Sends a session's input this connection has not had, on a channel just
   * subscribed to it: after a reconnect, everything not yet taken, at its numbers.
   */
  sendInput(sessionId: string, channel: number): void {
    const input = this.inputs.get(sessionId);
    if (!input || this._state !== 'open') return;
    if (input.connection !== this.connection) input.untaken.rewind();
    input.connection = this.connection;
    for (const piece of input.untaken.unsent()) this.send({ type: 'input-at', channel, at: piece.at, data: piece.data });
  }

  /** INPUT_TAKEN for a session: what its holder has is kept no more. */
  inputTaken(sessionId: string, total: number): void {
    this.inputs.get(sessionId)?.untaken.take(total);
  }

  /** The session has a new program (revived): what the old one never took is dropped, not typed into the new one. */
  forgetInput(sessionId: string): void {
    this.inputs.get(sessionId)?.untaken.forget();
  }

  /** Bytes typed into a session that its holder has not yet taken (for tests and the debug hook). */
  untakenInputBytes(sessionId: string): number {
    return this.inputs.get(sessionId)?.untaken.untakenBytes ?? 0;
  }

  private inputFor(sessionId: string): SessionInput {
    let input = this.inputs.get(sessionId);
    if (!input) {
      input = { untaken: new UntakenInput(), connection: -1 };
      this.inputs.set(sessionId, input);
    }
    return input;
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
    this.stateChanges.fire(state);
  }

  private connect(): void {
    if (this.disposed) return;
    const ws = new WebSocket(this.options.url);
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    this.stats.connects++;
    ws.onopen = () => {
      // The socket's first frame; channels subscribe once WELCOME names the boot.
      ws.send(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'web', readOnly: this.options.readOnly === true, writer: this.writer }));
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
      this.connection++;
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
    // Closed before WELCOME: maybe refused at the gate (a sign-in that ended), which only the API can tell.
    if (!wasOpen) void checkSignedIn();
    this.setState('reconnecting');
    if (wasOpen) for (const handler of [...this.channels.values()]) handler.socketLost();
    const delayMs = this.backoff.next();
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delayMs);
  }
}
