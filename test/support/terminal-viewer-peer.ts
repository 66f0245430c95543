// A complete viewer in memory, for tests: it decodes the server's frames with
// the real codec, feeds a real headless terminal, and acks after the terminal
// has parsed (xterm's write callback) — what `tend attach` and the browser do,
// minus the socket. It can be told to stop acking, to play a stalled viewer.

import xtermHeadless from '@xterm/headless';
import {
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
  type ResumePoint,
} from '../../src/protocol/viewer-frames.js';

const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

export interface TerminalViewerPeerOptions {
  channel: number;
  cols: number;
  rows: number;
  /** Where this viewer's encoded frames go (the server side's decoder). */
  sendToServer(bytes: Uint8Array): void;
  scrollback?: number;
}

export class TerminalViewerPeer {
  readonly terminal: HeadlessTerminal;
  /** Every frame received, decoded, in order. */
  readonly received: FrameFromServer[] = [];
  /** Continuity or protocol problems seen; a correct server leaves this empty. */
  readonly problems: string[] = [];
  private boot: string | null = null;
  /** The seq the next DATA frame must start at (null before a start point). */
  private expectedSeq: number | null = null;
  /** The seq the terminal has parsed up to. */
  private parsed: number | null = null;
  private lastAcked: number | null = null;
  private acking = true;
  private waiters: Array<{ seq: number; resolve: () => void }> = [];

  private sendToServer: (bytes: Uint8Array) => void;

  constructor(private readonly options: TerminalViewerPeerOptions) {
    this.sendToServer = options.sendToServer;
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? 1000,
      allowProposedApi: true,
    });
  }

  get parsedSeq(): number | null {
    return this.parsed;
  }

  /** The point to resume from after a reconnect. */
  get resumePoint(): ResumePoint | undefined {
    return this.boot !== null && this.parsed !== null ? { boot: this.boot, seq: this.parsed } : undefined;
  }

  send(frame: FrameFromViewer): void {
    this.sendToServer(encodeFrameToServer(frame));
  }

  /** Stop acking (a stalled viewer); parsing goes on. */
  stall(): void {
    this.acking = false;
  }

  /** Ack again, starting with everything parsed so far. */
  resume(): void {
    this.acking = true;
    this.ackParsed();
  }

  /** One binary message from the server. */
  receive(bytes: Uint8Array): void {
    const frame = decodeFrameFromServer(bytes);
    this.received.push(frame);
    switch (frame.type) {
      case 'snapshot': {
        this.boot = frame.boot;
        this.expectedSeq = frame.seq;
        if (this.terminal.cols !== frame.cols || this.terminal.rows !== frame.rows) this.terminal.resize(frame.cols, frame.rows);
        // Reset + screen in one write, so nothing is ever drawn in between.
        this.terminal.write('\x1bc' + frame.data, () => this.parsedTo(frame.seq));
        break;
      }
      case 'data': {
        if (this.expectedSeq === null) {
          // A replay resume: the first DATA's start is the viewer's own seq.
          this.expectedSeq = frame.seq - frame.data.length;
        }
        if (frame.seq - frame.data.length !== this.expectedSeq) {
          this.problems.push(`DATA starts at ${frame.seq - frame.data.length}, expected ${this.expectedSeq}`);
        }
        this.expectedSeq = frame.seq;
        this.terminal.write(frame.data, () => this.parsedTo(frame.seq));
        break;
      }
      case 'resize':
        // Resized in stream order, like the server's screen.
        this.terminal.write('', () => this.terminal.resize(frame.cols, frame.rows));
        break;
      case 'welcome':
        // The socket's boot is not the stream's: a resume names the stream its last SNAPSHOT named.
        break;
      default:
        break;
    }
  }

  /**
   * A new socket for the same terminal: frames now go to sendToServer, and the
   * next DATA must continue from the parsed seq. Returns the point to resume from.
   */
  reconnect(sendToServer: (bytes: Uint8Array) => void): ResumePoint | undefined {
    this.sendToServer = sendToServer;
    const point = this.resumePoint;
    this.expectedSeq = point ? point.seq : null;
    this.lastAcked = point ? point.seq : null;
    return point;
  }

  /** Resolves once the terminal has parsed up to seq. */
  parsedAtLeast(seq: number): Promise<void> {
    if (this.parsed !== null && this.parsed >= seq) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  dispose(): void {
    this.terminal.dispose();
  }

  private parsedTo(seq: number): void {
    this.parsed = seq;
    this.ackParsed();
    this.waiters = this.waiters.filter((w) => {
      if (seq < w.seq) return true;
      w.resolve();
      return false;
    });
  }

  private ackParsed(): void {
    if (!this.acking || this.parsed === null || this.parsed === this.lastAcked) return;
    this.lastAcked = this.parsed;
    this.send({ type: 'ack', channel: this.options.channel, seq: this.parsed });
  }
}

/** Every cell of a terminal's active buffer (scrollback included) as comparable text. */
export function describeCells(terminal: HeadlessTerminal): string[] {
  const buffer = terminal.buffer.active;
  const out: string[] = [`size ${terminal.cols}x${terminal.rows} buffer ${buffer.type} cursor ${buffer.cursorX},${buffer.cursorY}`];
  for (let y = 0; y < buffer.length; y++) {
    const line = buffer.getLine(y)!;
    const cells: string[] = [];
    for (let x = 0; x < terminal.cols; x++) {
      const c = line.getCell(x)!;
      cells.push(
        `${c.getChars() || ' '}/${c.getWidth()}/${c.getFgColorMode()}:${c.getFgColor()}/${c.getBgColorMode()}:${c.getBgColor()}` +
          `/${c.isBold()}${c.isItalic()}${c.isUnderline()}${c.isInverse()}${c.isDim()}`,
      );
    }
    out.push(`${y}${line.isWrapped ? '+' : ' '}${cells.join('|')}`);
  }
  return out;
}
