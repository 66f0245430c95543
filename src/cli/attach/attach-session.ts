// `tend attach` at work: the user's terminal (the outer terminal) shows one
// session. The snapshot is applied in one write, then the session's bytes are
// written straight through (the outer terminal keeps its own scrollback), and
// the bytes are acked once their write to the terminal has completed: with
// the next keystroke, once 32 KiB are owed, or 50 ms after the write, so a
// key typed wakes the server once, not twice. Keystrokes go to the session as
// INPUT, whole; the detach key leaves it running. When the server goes away
// without saying the channel is over, the attach reconnects with backoff and
// resumes from the seq it has written.
//
// Nothing here queries the terminal, so it cannot hang inside tmux or over ssh.
import { spawnSync } from 'node:child_process';
import {
  CloseReason,
  MAX_COLS,
  MAX_ROWS,
  VIEWER_PROTOCOL_VERSION,
  ViewerErrorCode,
  splitInput,
  type FrameFromServer,
  type ResumePoint,
} from '../../protocol/viewer-frames.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { DetachKeyFilter } from './detach-key.js';
import { AltScreenTracker, leaveSequence, paintSnapshot, statusLine } from './outer-modes.js';
import { ServerLink } from './server-link.js';
import { UTF8_CARRY_FLUSH_MS, Utf8Carry } from './utf8-carry.js';

/** The one channel a CLI viewer uses on its socket. */
const CHANNEL = 1;
/** Stop reading the terminal while this much pasted input waits for the socket... */
const INPUT_PAUSE_BYTES = 1024 * 1024;
/** ...and read again below this. */
const INPUT_RESUME_BYTES = 256 * 1024;
/** Input typed before the first subscription that is kept for it. */
const TYPE_AHEAD_MAX_BYTES = 64 * 1024;
/** Written bytes that are acked at once (the server stops sending at 256 KiB unacked)... */
const ACK_EAGER_BYTES = 32 * 1024;
/** ...else acked this long after the write, or sooner with the next keystroke. */
const ACK_DELAY_MS = 50;
/** Size sent when the output is not a terminal (a script piping `tend attach`). */
const FALLBACK_SIZE = { cols: 80, rows: 24 };

/** Errors on the socket level that no reconnect would cure. */
const FATAL_ERRORS: ReadonlySet<number> = new Set([
  ViewerErrorCode.VERSION,
  ViewerErrorCode.UNKNOWN_FRAME,
  ViewerErrorCode.TOO_LARGE,
  ViewerErrorCode.BAD_PAYLOAD,
  ViewerErrorCode.NO_HELLO,
]);

export type AttachOutcome =
  | { kind: 'detached' }
  | { kind: 'exited'; code: number | null; signal: number | null }
  | { kind: 'lost'; why: string }
  | { kind: 'error'; message: string }
  | { kind: 'signal'; signal: NodeJS.Signals };

export interface AttachSessionOptions {
  socketPath: string;
  sessionId: string;
  readOnly: boolean;
  detachPrefix: number;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  /** Where "reconnecting…" goes when the output is not a terminal. */
  errors: NodeJS.WriteStream;
  backoff?: BackoffOptions;
}

export class AttachSession {
  private link: ServerLink | null = null;
  private readonly backoff: Backoff;
  private readonly detachKeys: DetachKeyFilter;
  private readonly carry = new Utf8Carry();
  private readonly altScreen = new AltScreenTracker();
  private boot: string | null = null;
  /** The stream position written to the outer terminal, with the boot it belongs to. */
  private written: ResumePoint | null = null;
  private lastAcked: number | null = null;
  /** Written and not yet acked: the seq to ack, the bytes since the last ack, the timer that sends it. */
  private ackOwed: number | null = null;
  private ackOwedBytes = 0;
  private ackTimer: NodeJS.Timeout | null = null;
  private painted = false;
  private statusShown = false;
  private subscribed = false;
  private everSubscribed = false;
  private readonly typedAhead: Uint8Array[] = [];
  private typedAheadBytes = 0;
  private exit: { code: number; signal: number } | null = null;
  private fatalMessage: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private carryTimer: NodeJS.Timeout | null = null;
  private inputPaused = false;
  private finished = false;
  private rawMode = false;
  private resolveOutcome!: (outcome: AttachOutcome) => void;
  readonly outcome: Promise<AttachOutcome>;
  private readonly cleanups: Array<() => void> = [];

  constructor(private readonly options: AttachSessionOptions) {
    this.backoff = new Backoff(options.backoff);
    this.detachKeys = new DetachKeyFilter(options.detachPrefix);
    this.outcome = new Promise((resolve) => (this.resolveOutcome = resolve));
  }

  /** Takes over the terminal and connects; resolves `outcome` when the attach ends. */
  start(): Promise<AttachOutcome> {
    this.enterRawMode();
    const onData = (chunk: Buffer) => this.typed(chunk);
    const onResize = () => this.outerResized();
    this.options.input.on('data', onData);
    this.options.output.on('resize', onResize);
    this.cleanups.push(() => {
      this.options.input.off('data', onData);
      this.options.output.off('resize', onResize);
      this.options.input.pause();
    });
    for (const signal of ['SIGHUP', 'SIGTERM'] as const) {
      const onSignal = () => this.finish({ kind: 'signal', signal });
      process.on(signal, onSignal);
      this.cleanups.push(() => process.off(signal, onSignal));
    }
    this.options.input.resume();
    this.connect();
    return this.outcome;
  }

  // ---- the terminal ----------------------------------------------------------

  private enterRawMode(): void {
    const input = this.options.input;
    if (!input.isTTY) return;
    input.setRawMode(true);
    this.rawMode = true;
    // Node's raw mode leaves output processing on (LF becomes CR LF), which
    // would garble a program that moves the cursor down with a bare LF; turn
    // it off too, as tmux does. setRawMode(false) restores the saved settings.
    spawnSync('stty', ['-opost'], { stdio: [input, 'ignore', 'ignore'] });
  }

  private outerSize(): { cols: number; rows: number } {
    const out = this.options.output;
    if (!out.isTTY || !out.columns || !out.rows) return FALLBACK_SIZE;
    return { cols: clamp(out.columns, 1, MAX_COLS), rows: clamp(out.rows, 1, MAX_ROWS) };
  }

  private typed(chunk: Buffer): void {
    if (this.finished) return;
    const { forward, detach } = this.detachKeys.feed(chunk);
    if (forward.length > 0 && !this.options.readOnly) this.sendInput(this.carry.push(forward));
    if (detach) {
      if (this.carry.holding) this.sendInput(this.carry.take());
      this.finish({ kind: 'detached' });
      return;
    }
    if (this.carry.holding && this.carryTimer === null) {
      this.carryTimer = setTimeout(() => {
        this.carryTimer = null;
        this.sendInput(this.carry.take());
      }, UTF8_CARRY_FLUSH_MS);
    }
  }

  private sendInput(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const link = this.link;
    if (!link || !this.subscribed) {
      // Typed ahead of the first subscription (the user types as the attach
      // starts): kept and sent once subscribed. Typing while a lost server is
      // away goes nowhere: the program is not reading it either.
      if (!this.everSubscribed && this.typedAheadBytes + bytes.length <= TYPE_AHEAD_MAX_BYTES) {
        this.typedAhead.push(bytes.slice());
        this.typedAheadBytes += bytes.length;
      }
      return;
    }
    // The ack rides along: the server reads both in the wakeup the key causes.
    this.sendAck();
    for (const piece of splitInput(bytes)) {
      link.send({ type: 'input', channel: CHANNEL, data: piece }, () => this.inputWritten(link));
    }
    if (!this.inputPaused && link.unsentInputBytes > INPUT_PAUSE_BYTES) {
      this.inputPaused = true;
      this.options.input.pause();
    }
  }

  private inputWritten(link: ServerLink): void {
    if (this.inputPaused && !this.finished && (link !== this.link || link.unsentInputBytes < INPUT_RESUME_BYTES)) {
      this.inputPaused = false;
      this.options.input.resume();
    }
  }

  private outerResized(): void {
    if (this.options.readOnly || !this.subscribed) return;
    this.link?.send({ type: 'resize-request', channel: CHANNEL, ...this.outerSize() });
  }

  // ---- the server ------------------------------------------------------------

  private connect(): void {
    this.retryTimer = null;
    const link: ServerLink = new ServerLink(this.options.socketPath, {
      onOpen: () => link.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'cli', readOnly: this.options.readOnly }),
      onFrame: (frame) => {
        if (link === this.link) this.received(frame);
      },
      onClose: (why) => {
        if (link === this.link) this.linkLost(why);
      },
    });
    this.link = link;
  }

  private received(frame: FrameFromServer): void {
    switch (frame.type) {
      case 'welcome': {
        this.boot = frame.serverBoot;
        // A status line drawn over the screen is repainted by a fresh snapshot;
        // otherwise resume from what was written, and the server replays if it can.
        const resume = this.statusShown ? undefined : (this.written ?? undefined);
        this.link!.send({ type: 'subscribe', channel: CHANNEL, sessionId: this.options.sessionId, ...this.outerSize(), ...(resume ? { resume } : {}) });
        this.subscribed = true;
        this.everSubscribed = true;
        for (const bytes of this.typedAhead.splice(0)) this.sendInput(bytes);
        this.lastAcked = resume && resume.boot === frame.serverBoot ? resume.seq : null;
        return;
      }
      case 'snapshot':
        this.backoff.reset();
        this.statusShown = false;
        // The paint leaves the outer terminal's alternate screen if it is on;
        // the snapshot's data re-enters it if the session is there.
        this.writeOut(paintSnapshot(frame, { outerRows: this.outerSize().rows, inAltScreen: this.altScreen.active, first: !this.painted }), frame.boot, frame.seq);
        this.altScreen.active = frame.modes.altScreen;
        this.painted = true;
        return;
      case 'data':
        this.backoff.reset();
        this.altScreen.feed(frame.data);
        this.writeOut(frame.data, this.boot!, frame.seq);
        return;
      case 'title':
        this.options.output.write(`\x1b]2;${frame.title.replace(/[\x00-\x1f\x7f]/g, '')}\x07`);
        return;
      case 'exit':
        this.exit = { code: frame.code, signal: frame.signal };
        return;
      case 'error':
        if (FATAL_ERRORS.has(frame.code) || frame.code === ViewerErrorCode.NO_SUCH_SESSION) {
          this.fatalMessage = frame.message;
          if (frame.code === ViewerErrorCode.NO_SUCH_SESSION) this.finish({ kind: 'error', message: `the session is gone: ${frame.message}` });
        } else if (frame.code === ViewerErrorCode.BAD_ACK || frame.code === ViewerErrorCode.INTERNAL) {
          this.fatalMessage = frame.message;
        }
        return;
      case 'closed':
        this.channelClosed(frame.reason, frame.message);
        return;
      case 'resize':
      case 'state':
        return;
    }
  }

  private channelClosed(reason: CloseReason, message: string): void {
    switch (reason) {
      case CloseReason.SESSION_ENDED:
        this.finish({ kind: 'exited', code: this.exit ? this.exit.code : null, signal: this.exit && this.exit.signal !== 0 ? this.exit.signal : null });
        return;
      case CloseReason.SERVER_SHUTDOWN:
        // The server is going away on purpose; a new one will pick the session up.
        this.link?.close();
        this.linkLost(message || 'the server is stopping');
        return;
      case CloseReason.UNSUBSCRIBED:
        this.finish({ kind: 'detached' });
        return;
      case CloseReason.PROTOCOL_VIOLATION:
        this.finish({ kind: 'error', message: `the server closed this viewer: ${this.fatalMessage ?? message}` });
        return;
    }
  }

  /** Writes stream bytes (or a snapshot's paint) and owes an ack of their seq once the write is done. */
  private writeOut(bytes: Uint8Array | string, boot: string, seq: number): void {
    const link = this.link!;
    this.written = { boot, seq };
    this.options.output.write(bytes, () => {
      // Acks belong to the socket they answer: after a reconnect the new
      // channel starts from the resume point, and an older ack would go backwards.
      if (link !== this.link || this.finished || !link.isOpen) return;
      this.ackOwed = seq; // writes complete in order
      this.ackOwedBytes += bytes.length;
      if (this.ackOwedBytes >= ACK_EAGER_BYTES) this.sendAck();
      else this.ackTimer ??= setTimeout(() => this.sendAck(), ACK_DELAY_MS);
    });
  }

  private sendAck(): void {
    const seq = this.ackOwed;
    this.dropAck();
    const link = this.link;
    if (seq === null || !link?.isOpen) return;
    if (this.lastAcked !== null && seq <= this.lastAcked) return;
    this.lastAcked = seq;
    link.send({ type: 'ack', channel: CHANNEL, seq });
  }

  /** Forgets an owed ack: it was sent, or its socket is gone. */
  private dropAck(): void {
    if (this.ackTimer !== null) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    this.ackOwed = null;
    this.ackOwedBytes = 0;
  }

  private linkLost(why: string): void {
    if (this.finished) return;
    this.link?.close();
    this.link = null;
    this.subscribed = false;
    this.dropAck();
    if (this.fatalMessage !== null) {
      this.finish({ kind: 'error', message: this.fatalMessage });
      return;
    }
    const delay = this.backoff.next();
    if (delay === null) {
      this.finish({ kind: 'lost', why });
      return;
    }
    // A blip caught by the first retry shows nothing; a longer outage says so.
    if (this.backoff.failures > 1) this.showReconnecting();
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private showReconnecting(): void {
    if (this.statusShown) return;
    const text = 'tend: reconnecting… (the session keeps running)';
    if (this.options.output.isTTY) {
      this.statusShown = true;
      this.options.output.write(statusLine(text, this.outerSize()));
    } else {
      this.options.errors.write(`${text}\n`);
    }
  }

  // ---- the end ---------------------------------------------------------------

  /** Detach now (as the detach key does). */
  detach(): void {
    this.finish({ kind: 'detached' });
  }

  private finish(outcome: AttachOutcome): void {
    if (this.finished) return;
    this.finished = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.carryTimer) clearTimeout(this.carryTimer);
    this.dropAck();
    this.link?.close();
    this.link = null;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    const restore = leaveSequence({ inAltScreen: this.altScreen.active });
    const done = () => {
      if (this.rawMode) this.options.input.setRawMode(false);
      this.resolveOutcome(outcome);
    };
    if (this.painted || this.statusShown) this.options.output.write(restore, done);
    else done();
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, Math.floor(v)));
}
