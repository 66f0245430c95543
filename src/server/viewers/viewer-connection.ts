// One viewer's socket on the server side: the HELLO handshake, then routing
// each decoded frame to the channel (one per subscribed session) it names.
// The server core gives it one binary WebSocket message at a time and a way
// to send and to close; nothing here knows about `ws` itself.

import { DisposableBase, toDisposable } from '../../common/lifecycle.js';
import {
  CloseReason,
  MIN_VIEWER_PROTOCOL_VERSION,
  VIEWER_PROTOCOL_VERSION,
  ViewerErrorCode,
  ViewerFrameError,
  dataFrameBytes,
  decodeFrameFromViewer,
  encodeFrameToViewer,
  writeDataFrame,
  type ClientKind,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../protocol/viewer-frames.js';
import type { SessionViewers } from './session-viewers.js';
import type { ViewerChannel } from './viewer-channel.js';

export interface ViewerConnectionOptions {
  boot: string;
  serverVersion: string;
  /** This server's build id, for a HELLO that asks for it (absent: WELCOME says none). */
  serverBuild?: string;
  /** One binary message to the viewer. */
  send(bytes: Uint8Array): void;
  /**
   * One binary message of `bytes` that `build` writes in place from `at`,
   * in a buffer the socket reuses (a flood's DATA); without it, send().
   */
  sendBuilt?(bytes: number, build: (into: Uint8Array, at: number) => void): void;
  /** Close the socket: called after a fatal error has been sent. */
  close(reason: string): void;
  findSession(sessionId: string): SessionViewers | undefined;
  /**
   * The session the socket's upgrade named (`/v1/viewer?session=TARGET`,
   * resolved then): a SUBSCRIBE naming no session (an empty id) means it,
   * so a viewer can subscribe in the same write as its handshake.
   */
  upgradeSessionId?: string;
  /** Frames longer than this are refused before decoding (see DEFAULT_MAX_FRAME_FROM_VIEWER_BYTES). */
  maxFrameBytes?: number;
  /** Read-only no matter what the viewer's HELLO says (e.g. a shared link). */
  forceReadOnly?: boolean;
  /** A viewer that says TYPES_TO_HOLDER may be routed to the holder (only where it can reach it: the unix socket). */
  typistsMayReachHolders?: boolean;
}

interface Subscription {
  session: SessionViewers;
  channel: ViewerChannel;
}

export class ViewerConnection extends DisposableBase {
  /** What the HELLO said; `writer` (version 2) names this viewer's counted input (INPUT_AT). */
  private hello: { clientKind: ClientKind; readOnly: boolean; writer: Uint8Array | null; typesToHolder: boolean } | null = null;
  private readonly subscriptions = new Map<number, Subscription>();
  private open = true;

  constructor(private readonly options: ViewerConnectionOptions) {
    super();
    // The socket is gone by the time this runs: detach quietly.
    this.register(
      toDisposable(() => {
        this.open = false;
        for (const { session, channel } of this.subscriptions.values()) session.detach(channel, CloseReason.UNSUBSCRIBED);
        this.subscriptions.clear();
      }),
    );
  }

  get clientKind(): ClientKind | null {
    return this.hello?.clientKind ?? null;
  }

  get readOnly(): boolean {
    return this.hello?.readOnly ?? true;
  }

  get channelCount(): number {
    this.forgetClosed();
    return this.subscriptions.size;
  }

  /** One binary message from the viewer. */
  receive(message: Uint8Array): void {
    if (!this.open) return;
    let frame: FrameFromViewer;
    try {
      frame = decodeFrameFromViewer(message, { maxFrameBytes: this.options.maxFrameBytes });
    } catch (err) {
      if (!(err instanceof ViewerFrameError)) throw err;
      // A viewer that sends a broken frame is not to be trusted with the rest.
      this.fatal(err.wireCode, err.message);
      return;
    }
    if (this.hello === null) {
      this.handshake(frame);
      return;
    }
    this.route(frame);
  }

  private handshake(frame: FrameFromViewer): void {
    if (frame.type !== 'hello') {
      this.fatal(ViewerErrorCode.NO_HELLO, `the first frame must be HELLO, got ${frame.type}`);
      return;
    }
    if (frame.protocolVersion < MIN_VIEWER_PROTOCOL_VERSION || frame.protocolVersion > VIEWER_PROTOCOL_VERSION) {
      this.fatal(ViewerErrorCode.VERSION, this.versionRefusal(frame.protocolVersion));
      return;
    }
    this.hello = {
      clientKind: frame.clientKind,
      readOnly: frame.readOnly || this.options.forceReadOnly === true,
      writer: frame.writer ?? null,
      typesToHolder: frame.typesToHolder === true && this.options.typistsMayReachHolders === true,
    };
    this.sendFrame({
      type: 'welcome',
      protocolVersion: VIEWER_PROTOCOL_VERSION,
      serverBoot: this.options.boot,
      serverVersion: this.options.serverVersion,
      ...(frame.asksBuild === true && this.options.serverBuild !== undefined ? { serverBuild: this.options.serverBuild } : {}),
    });
  }

  /** Why a viewer's protocol is refused, and what to do: which side is newer says which tend to use. */
  private versionRefusal(version: number): string {
    const server = `tend ${this.options.serverVersion}${this.options.serverBuild === undefined ? '' : `, build ${this.options.serverBuild}`}`;
    const said = `this viewer speaks protocol ${version}, the server (${server}) speaks ${MIN_VIEWER_PROTOCOL_VERSION} to ${VIEWER_PROTOCOL_VERSION}`;
    return version > VIEWER_PROTOCOL_VERSION
      ? `${said}: the viewer is newer; \`tend upgrade\` from the viewer's tend moves the server to it without closing a terminal, or attach with tend ${this.options.serverVersion}`
      : `${said}: the viewer is older; attach with tend ${this.options.serverVersion}, the tend that runs this server`;
  }

  private route(frame: FrameFromViewer): void {
    switch (frame.type) {
      case 'hello':
        this.fatal(ViewerErrorCode.BAD_PAYLOAD, 'HELLO comes once per socket');
        return;
      case 'subscribe':
        this.subscribe(frame);
        return;
      default:
        break;
    }
    const sub = this.live(frame.channel);
    // Not fatal: the server may have closed the channel while this frame was in flight.
    if (!sub) {
      this.channelError(frame.channel, ViewerErrorCode.NOT_SUBSCRIBED, `channel ${frame.channel} is not subscribed`);
      return;
    }
    switch (frame.type) {
      case 'unsubscribe':
        this.subscriptions.delete(frame.channel);
        sub.session.detach(sub.channel, CloseReason.UNSUBSCRIBED);
        return;
      case 'ack':
        sub.session.ack(sub.channel, frame.seq);
        return;
      case 'input':
        sub.session.input(sub.channel, frame.data);
        return;
      case 'input-at': {
        const writer = this.hello?.writer ?? null;
        if (writer === null) {
          this.channelError(frame.channel, ViewerErrorCode.NO_WRITER, 'INPUT_AT needs a writer id in HELLO (protocol version 2); send INPUT instead');
          return;
        }
        sub.session.inputAt(sub.channel, writer, frame.at, frame.data);
        return;
      }
      case 'resize-request':
        sub.session.resize(sub.channel, { cols: frame.cols, rows: frame.rows });
        return;
      case 'scrollback-request':
        sub.session.scrollback(sub.channel, frame.beforeRow, frame.count);
        return;
    }
  }

  private subscribe(frame: Extract<FrameFromViewer, { type: 'subscribe' }>): void {
    if (this.live(frame.channel)) {
      this.channelError(frame.channel, ViewerErrorCode.CHANNEL_IN_USE, `channel ${frame.channel} is already subscribed`);
      return;
    }
    const sessionId = frame.sessionId === '' ? this.options.upgradeSessionId ?? '' : frame.sessionId;
    const session = this.options.findSession(sessionId);
    if (!session) {
      this.channelError(frame.channel, ViewerErrorCode.NO_SUCH_SESSION, `no session ${JSON.stringify(frame.sessionId)}`);
      return;
    }
    // A terminal subscribing again to a session it shows on another channel is being repainted.
    const shown = this.clientKind === 'cli' ? [...this.subscriptions.values()].find((s) => s.session === session && !s.channel.isClosed) : undefined;
    const channel = session.attach({
      channel: frame.channel,
      send: (f) => this.sendFrame(f),
      readOnly: this.readOnly,
      clientKind: this.clientKind ?? 'script',
      cols: frame.cols,
      rows: frame.rows,
      resume: frame.resume,
      keepsHistory: frame.keepsHistory === true,
      ...(frame.window !== undefined ? { window: frame.window } : {}),
      repaint: frame.repaint === true,
      typesToHolder: this.hello?.typesToHolder === true && this.hello.writer !== null,
      onClosed: () => this.subscriptions.delete(frame.channel),
      ...(shown ? { succeeds: shown.channel } : {}),
    });
    if (!channel.isClosed) this.subscriptions.set(frame.channel, { session, channel });
  }

  /** The subscription on a channel, if it is still open (the session may have ended it). */
  private live(channel: number): Subscription | undefined {
    const sub = this.subscriptions.get(channel);
    if (sub && sub.channel.isClosed) {
      this.subscriptions.delete(channel);
      return undefined;
    }
    return sub;
  }

  private forgetClosed(): void {
    for (const id of [...this.subscriptions.keys()]) this.live(id);
  }

  private channelError(channel: number, code: ViewerErrorCode, message: string): void {
    this.sendFrame({ type: 'error', channel, code, message });
  }

  private fatal(code: ViewerErrorCode, message: string): void {
    this.sendFrame({ type: 'error', channel: 0, code, message });
    this.options.close(message);
    this.dispose();
  }

  private sendFrame(frame: FrameFromServer): void {
    if (!this.open) return;
    // A DATA frame's bytes are good only during this call (a view of the session's log or of a scratch buffer):
    // it is copied into the message here, once.
    if (frame.type === 'data' && this.options.sendBuilt !== undefined) {
      this.options.sendBuilt(dataFrameBytes(frame.data.length), (into, at) => writeDataFrame(into, at, frame));
      return;
    }
    this.options.send(encodeFrameToViewer(frame));
  }
}
