import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import xtermHeadless from '@xterm/headless';
import serializeAddon from '@xterm/addon-serialize';
import {
  VIEWER_PROTOCOL_VERSION,
  ViewerErrorCode,
  WRITER_ID_BYTES,
  decodeFrameFromServer,
  encodeFrameToServer,
  encodeFrameToViewer,
  splitInput,
  type FrameFromServer,
  type ScreenModes,
} from '../../protocol/viewer-frames.js';
import { SessionViewers } from './session-viewers.js';
import { describeCells, TerminalViewerPeer } from '../../../test/support/terminal-viewer-peer.js';
import { ViewerConnection } from './viewer-connection.js';
import type { Snapshot } from './viewer-channel.js';

const { Terminal } = xtermHeadless;
const { SerializeAddon } = serializeAddon;
const utf8 = (s: string) => new TextEncoder().encode(s);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const disposers: Array<() => void> = [];
after(() => {
  for (const d of disposers.splice(0)) d();
});

/** A session's server side: its screen is a real headless terminal fed the same bytes as the log. */
class ServerSession {
  readonly screen = new Terminal({ cols: 80, rows: 24, scrollback: 1000, allowProposedApi: true });
  readonly inputs: Uint8Array[] = [];
  /** Counted writes (INPUT_AT) as the holder would get them; the test settles each as the holder would answer. */
  readonly countedInputs: Array<{ writer: string; at: number; data: string; taken(total: number): void; lost(): void }> = [];
  readonly viewers: SessionViewers;
  private readonly serializer = new SerializeAddon();

  constructor(boot: string) {
    this.screen.loadAddon(this.serializer);
    this.viewers = new SessionViewers({
      boot,
      takeSnapshot: () => this.snapshot(),
      writeInput: (data) => this.inputs.push(data),
      writeInputAt: (writer, at, data) =>
        new Promise<number>((resolve, reject) => {
          this.countedInputs.push({ writer: Buffer.from(writer).toString('hex'), at, data: new TextDecoder().decode(data), taken: resolve, lost: () => reject(new Error('the holder went away')) });
        }),
      resizePty: ({ cols, rows }) => this.screen.write('', () => this.screen.resize(cols, rows)),
    });
    disposers.push(() => {
      this.viewers.dispose();
      this.screen.dispose();
    });
  }

  /** Output from the PTY: into the screen and the log at the same stream position. */
  output(bytes: Uint8Array): void {
    this.screen.write(bytes);
    this.viewers.append(bytes);
  }

  /** The screen once it has parsed everything written so far, at that seq. */
  private async snapshot(): Promise<Snapshot> {
    const seq = this.viewers.log.endSeq;
    await new Promise<void>((resolve) => this.screen.write('', resolve));
    const b = this.screen.buffer.active;
    const m = this.screen.modes;
    const modes: ScreenModes = {
      cursorX: b.cursorX,
      cursorY: b.cursorY,
      cursorHidden: false,
      altScreen: b.type === 'alternate',
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
      sendFocus: m.sendFocusMode,
      originMode: m.originMode,
      insertMode: m.insertMode,
      wraparound: m.wraparoundMode,
      mouseTracking: m.mouseTrackingMode,
      mouseEncoding: 'unknown',
    };
    return { seq, cols: this.screen.cols, rows: this.screen.rows, modes, data: this.serializer.serialize() };
  }

  /** Resolves once the screen has parsed every byte given to it. */
  parsed(): Promise<void> {
    return new Promise((resolve) => this.screen.write('', resolve));
  }
}

/** A viewer peer and its server-side connection, joined by an asynchronous in-memory "socket". */
function connect(boot: string, sessions: Map<string, ServerSession>, existing?: TerminalViewerPeer) {
  const toViewer: FrameFromServer[] = [];
  let closedWith: string | null = null;
  let peer: TerminalViewerPeer;
  const connection: ViewerConnection = new ViewerConnection({
    boot,
    serverVersion: '0.1.0',
    // Each message arrives in a later turn, in order, like a socket.
    send: (bytes) => {
      toViewer.push(decodeFrameFromServer(bytes));
      setImmediate(() => peer.receive(bytes));
    },
    close: (reason) => (closedWith = reason),
    findSession: (id) => sessions.get(id)?.viewers,
  });
  const sendToServer = (bytes: Uint8Array) => setImmediate(() => connection.receive(bytes));
  let resume;
  if (existing) {
    peer = existing;
    resume = peer.reconnect(sendToServer);
  } else {
    peer = new TerminalViewerPeer({ channel: 1, cols: 80, rows: 24, sendToServer });
    disposers.push(() => peer.dispose());
  }
  disposers.push(() => connection.dispose());
  return { peer, connection, toViewer, resume, closed: () => closedWith };
}

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let turns = 0; !condition(); turns++) {
    if (turns > 2_000_000) throw new Error(`gave up waiting for ${what}`);
    await nextTurn();
  }
}

/** Coloured lines with Korean text, short enough never to wrap (the serializer's weak spot). */
function streamChunk(from: number, lines: number): Uint8Array {
  let s = '';
  for (let i = from; i < from + lines; i++) s += `\x1b[3${i % 8}m${String(i).padStart(6, '0')} 한글 텍스트 \x1b[1mbold\x1b[0m plain ${'x'.repeat(i % 30)}\r\n`;
  return utf8(s);
}

describe('ViewerConnection: handshake and routing', () => {
  test('the first frame must be HELLO', async () => {
    const c = connect('boot-1', new Map());
    c.connection.receive(encodeFrameToServer({ type: 'ack', channel: 1, seq: 0 }));
    assert.equal(c.toViewer[0]!.type, 'error');
    assert.equal((c.toViewer[0] as { code: number }).code, ViewerErrorCode.NO_HELLO);
    assert.match(c.closed()!, /first frame must be HELLO/);
  });

  test('a protocol version mismatch names the remedy and closes the socket', () => {
    const c = connect('boot-1', new Map());
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION + 1, clientKind: 'cli', readOnly: false }));
    const err = c.toViewer[0] as Extract<FrameFromServer, { type: 'error' }>;
    assert.equal(err.code, ViewerErrorCode.VERSION);
    assert.match(err.message, /^this viewer speaks protocol \d+, the server \(tend [^)]*\) speaks 1 to \d+: the viewer is newer; `tend upgrade`/);
    assert.notEqual(c.closed(), null);
  });

  test('HELLO is answered with WELCOME carrying the server boot', () => {
    const c = connect('boot-1', new Map());
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: true }));
    assert.deepEqual(c.toViewer[0], { type: 'welcome', protocolVersion: VIEWER_PROTOCOL_VERSION, serverBoot: 'boot-1', serverVersion: '0.1.0' });
    assert.equal(c.connection.clientKind, 'script');
    assert.equal(c.connection.readOnly, true);
  });

  test('a server frame sent by a viewer is refused and the socket closed', () => {
    const c = connect('boot-1', new Map());
    c.connection.receive(encodeFrameToViewer({ type: 'data', channel: 1, seq: 1, data: utf8('x') }));
    assert.equal((c.toViewer[0] as { code: number }).code, ViewerErrorCode.UNKNOWN_FRAME);
    assert.notEqual(c.closed(), null);
  });

  test('subscribing to an unknown session, or twice on one channel, is a channel error', () => {
    const sessions = new Map([['s1', new ServerSession('boot-1')]]);
    const c = connect('boot-1', sessions);
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: false }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 3, sessionId: 'nope', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 4, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 4, sessionId: 's1', cols: 80, rows: 24 }));
    const errors = c.toViewer.filter((f): f is Extract<FrameFromServer, { type: 'error' }> => f.type === 'error');
    assert.deepEqual(errors.map((e) => [e.channel, e.code]), [[3, ViewerErrorCode.NO_SUCH_SESSION], [4, ViewerErrorCode.CHANNEL_IN_USE]]);
    assert.equal(c.closed(), null, 'channel errors leave the socket open');
    assert.equal(c.connection.channelCount, 1);
  });

  test('Korean text committed in one INPUT frame reaches the PTY whole', () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: false }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'input', channel: 1, data: utf8('한국어') }));
    assert.equal(session.inputs.length, 1);
    assert.equal(new TextDecoder('utf-8', { fatal: true }).decode(session.inputs[0]), '한국어');
  });

  test('a 10 MB paste arrives complete and in order', () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'cli', readOnly: false }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    const paste = new Uint8Array(10 * 1024 * 1024);
    for (let i = 0; i < paste.length; i++) paste[i] = (i * 7 + (i >> 12)) & 0xff;
    for (const piece of splitInput(paste)) c.connection.receive(encodeFrameToServer({ type: 'input', channel: 1, data: piece }));
    const total = session.inputs.reduce((n, p) => n + p.length, 0);
    assert.equal(total, paste.length);
    const joined = new Uint8Array(total);
    let at = 0;
    for (const p of session.inputs) {
      joined.set(p, at);
      at += p.length;
    }
    assert.deepEqual(joined, paste);
  });

  test('a read-only HELLO cannot type', () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: true }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'input', channel: 1, data: utf8('rm -rf') }));
    assert.equal(session.inputs.length, 0);
    assert.ok(c.toViewer.some((f) => f.type === 'error' && f.code === ViewerErrorCode.READ_ONLY));
  });

  test('INPUT_AT goes to the holder under the HELLO\'s writer, and INPUT_TAKEN says what it took, never going back', async () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    const writer = Uint8Array.from({ length: WRITER_ID_BYTES }, (_, i) => i + 1);
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'cli', readOnly: false, writer }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'input-at', channel: 1, at: 0, data: utf8('ls') }));
    c.connection.receive(encodeFrameToServer({ type: 'input-at', channel: 1, at: 2, data: utf8(' -l\r') }));
    assert.deepEqual(session.countedInputs.map(({ writer: w, at, data }) => [w, at, data]), [
      [Buffer.from(writer).toString('hex'), 0, 'ls'],
      [Buffer.from(writer).toString('hex'), 2, ' -l\r'],
    ]);
    assert.equal(session.inputs.length, 0, 'nothing went the unacknowledged way');
    const taken = () => c.toViewer.filter((f) => f.type === 'input-taken').map((f) => (f as { total: number }).total);
    // The holder's answers can settle out of order: a lower total after a higher one is not news.
    session.countedInputs[1]!.taken(6);
    session.countedInputs[0]!.taken(2);
    await nextTurn();
    assert.deepEqual(taken(), [6]);
    assert.deepEqual(c.toViewer.filter((f) => f.type === 'input-taken').map((f) => f.channel), [1]);
  });

  test('INPUT_AT the holder never took (it went away) is not an error on the socket', async () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'web', readOnly: false, writer: new Uint8Array(WRITER_ID_BYTES).fill(7) }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'input-at', channel: 1, at: 0, data: utf8('x') }));
    session.countedInputs[0]!.lost();
    await nextTurn();
    assert.deepEqual(c.toViewer.filter((f) => f.type === 'input-taken' || f.type === 'error' || f.type === 'closed'), []);
    assert.equal(c.closed(), null);
  });

  test('INPUT_AT needs a writer in HELLO: a version-1 viewer gets a channel error, and nothing is typed', () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'script', readOnly: false }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'input-at', channel: 1, at: 0, data: utf8('x') }));
    assert.equal(session.countedInputs.length, 0);
    const err = c.toViewer.find((f) => f.type === 'error') as Extract<FrameFromServer, { type: 'error' }>;
    assert.equal(err.code, ViewerErrorCode.NO_WRITER);
    assert.match(err.message, /send INPUT instead/);
    assert.equal(c.closed(), null);
  });

  test('a read-only viewer\'s INPUT_AT is refused as its INPUT is', () => {
    const session = new ServerSession('boot-1');
    const c = connect('boot-1', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'cli', readOnly: true, writer: new Uint8Array(WRITER_ID_BYTES) }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 }));
    c.connection.receive(encodeFrameToServer({ type: 'input-at', channel: 1, at: 0, data: utf8('rm -rf') }));
    assert.equal(session.countedInputs.length, 0);
    assert.ok(c.toViewer.some((f) => f.type === 'error' && f.code === ViewerErrorCode.READ_ONLY));
  });

  test('frames for a channel that is not subscribed get an error, not a closed socket', () => {
    const c = connect('boot-1', new Map());
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: false }));
    c.connection.receive(encodeFrameToServer({ type: 'ack', channel: 9, seq: 1 }));
    assert.ok(c.toViewer.some((f) => f.type === 'error' && f.code === ViewerErrorCode.NOT_SUBSCRIBED && f.channel === 9));
    assert.equal(c.closed(), null);
  });
});

describe('viewers end to end, in process', () => {
  test('two viewers, one stalling and resuming, end with the server screen cell by cell', { timeout: 120_000 }, async () => {
    const session = new ServerSession('boot-1');
    const sessions = new Map([['s1', session]]);
    const a = connect('boot-1', sessions);
    const b = connect('boot-1', sessions);
    session.output(streamChunk(0, 50)); // some history before anyone attaches
    for (const v of [a, b]) {
      v.peer.send({ type: 'hello', protocolVersion: 1, clientKind: 'web', readOnly: false });
      v.peer.send({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 });
    }
    await until('both snapshots', () => a.peer.parsedSeq !== null && b.peer.parsedSeq !== null);

    let line = 50;
    const feed = async (bytes: number) => {
      for (let sent = 0; sent < bytes; ) {
        const chunk = streamChunk(line, 100);
        line += 100;
        session.output(chunk);
        sent += chunk.length;
        await nextTurn();
      }
    };
    await feed(100 * 1024);
    b.peer.stall();
    await feed(1536 * 1024);
    assert.equal(session.viewers.pausedViewerCount, 1, 'the stalled viewer is paused');
    b.peer.resume();
    await feed(300 * 1024);

    const end = session.viewers.log.endSeq;
    await session.parsed();
    await until('both viewers caught up', () => a.peer.parsedSeq === end && b.peer.parsedSeq === end);
    assert.deepEqual(a.peer.problems, []);
    assert.deepEqual(b.peer.problems, []);
    const want = describeCells(session.screen);
    assert.deepEqual(describeCells(a.peer.terminal), want);
    assert.deepEqual(describeCells(b.peer.terminal), want);
    assert.equal(a.peer.received.filter((f) => f.type === 'snapshot').length, 1, 'the quick viewer never needed a second snapshot');
    assert.equal(b.peer.received.filter((f) => f.type === 'snapshot').length, 2, 'the stalled viewer got one fresh snapshot');
  });

  test('a viewer that reconnects owing a little is replayed into its own screen, which then equals the server', { timeout: 60_000 }, async () => {
    const session = new ServerSession('boot-1');
    const sessions = new Map([['s1', session]]);
    const first = connect('boot-1', sessions);
    session.output(streamChunk(0, 30));
    first.peer.send({ type: 'hello', protocolVersion: 1, clientKind: 'cli', readOnly: false });
    first.peer.send({ type: 'subscribe', channel: 1, sessionId: 's1', cols: 80, rows: 24 });
    await until('snapshot', () => first.peer.parsedSeq === session.viewers.log.endSeq);
    // The socket drops; output goes on.
    first.connection.dispose();
    session.output(streamChunk(30, 40));
    // A new socket, the same terminal: resume from what it has parsed.
    const second = connect('boot-1', sessions, first.peer);
    const peer = second.peer;
    assert.ok(second.resume);
    peer.send({ type: 'hello', protocolVersion: 1, clientKind: 'cli', readOnly: false });
    peer.send({ type: 'subscribe', channel: 1, sessionId: 's1', resume: second.resume, cols: 80, rows: 24 });
    const end = session.viewers.log.endSeq;
    await session.parsed();
    await until('replay parsed', () => peer.parsedSeq === end);
    assert.equal(second.toViewer.filter((f) => f.type === 'snapshot').length, 0, 'replayed, not reset');
    assert.deepEqual(peer.problems, []);
    assert.deepEqual(describeCells(peer.terminal), describeCells(session.screen));
  });

  test('after a server restart the old seq gets a snapshot of the new boot', { timeout: 60_000 }, async () => {
    const session = new ServerSession('boot-2');
    session.output(streamChunk(0, 10));
    const c = connect('boot-2', new Map([['s1', session]]));
    c.connection.receive(encodeFrameToServer({ type: 'hello', protocolVersion: 1, clientKind: 'cli', readOnly: false }));
    c.connection.receive(encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's1', resume: { boot: 'boot-1', seq: 12 }, cols: 80, rows: 24 }));
    await until('snapshot', () => c.toViewer.some((f) => f.type === 'snapshot'));
    const snap = c.toViewer.find((f) => f.type === 'snapshot') as Extract<FrameFromServer, { type: 'snapshot' }>;
    assert.equal(snap.boot, 'boot-2');
    assert.equal(snap.seq, session.viewers.log.endSeq);
  });
});
