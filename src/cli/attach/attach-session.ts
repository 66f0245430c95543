// `tend attach` at work: the user's terminal (the outer terminal) shows one
// session. The snapshot is applied in one write, then the session's bytes are
// written straight through (the outer terminal keeps its own scrollback), and
// the bytes are acked once their write to the terminal has completed: with
// the next keystroke, once 32 KiB are owed, or 50 ms after the write, so a
// key typed wakes the server once, not twice. Keystrokes go to the session as
// INPUT_AT, whole and numbered, and are kept until INPUT_TAKEN says the
// session's holder has them (it outlives the server); the detach key leaves
// the session running. When the server goes away without saying the channel
// is over, the attach reconnects with backoff (starting the server when none
// is running, as every verb does) and resumes from the seq it has written:
// positions belong to the session's holder, so even a new server replays
// exactly the bytes missed, and the outer terminal's scrollback gets every
// row once. Keys not yet taken — typed while the server was away, or written
// into a socket that was already dead — are sent again at their numbers, and
// the holder drops those it has: each arrives once.
//
// The keys after the prefix (prefix-keys.ts) detach, show the keys, or list
// the sessions and switch this attach to another one, over the same socket.
// What the attach draws over the session's screen (screen-overlays.ts) holds
// back the stream until the server repaints the screen (overlay.ts says why).
//
// The native viewer (viewer/, C) hands the panels over to this one mid-attach
// (handoff.ts): this attach then starts where it stood, with its writer id,
// its untaken input, the position written (a resume, not a first paint), and
// shows the panel once its own subscription has begun.
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
  type ClientKind,
  type FrameFromServer,
  type ResumePoint,
} from '../../protocol/viewer-frames.js';
import { UntakenInput, newWriterId } from '../../protocol/untaken-input.js';
import type { AttachEvent, DetachReason, SessionRef } from './attach-events.js';
import type { HandoffState } from './handoff.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { AltScreenTracker, leaveSequence, paintSnapshot, paintView, statusLine } from './outer-modes.js';
import { PrefixKeyFilter, type PrefixCommand } from './prefix-keys.js';
import { DEGRADED_NOTICE, ScreenOverlays } from './screen-overlays.js';
import { sessionLabel, type SessionChoice } from './session-picker.js';
import { ServerLink } from './server-link.js';
import { UTF8_CARRY_FLUSH_MS, Utf8Carry } from './utf8-carry.js';
import { noteServerTend } from '../build-notice.js';
import { TEND_BUILD } from '../../common/version.js';
import { outerWindowKey } from './outer-window.js';

const ESC = 0x1b;
const LEFT_BRACKET = 0x5b;

/**
 * Whether bytes from the terminal hold the start of a mouse report (SGR
 * `CSI <`, or the default `CSI M`): what the server rewrites for a view.
 */
function holdsMouseReport(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(ESC); i >= 0 && i + 2 < bytes.length; i = bytes.indexOf(ESC, i + 1)) {
    if (bytes[i + 1] === LEFT_BRACKET && (bytes[i + 2] === 0x3c || bytes[i + 2] === 0x4d)) return true;
  }
  return false;
}

/** Focus in or out (`CSI I`, `CSI O`), which a terminal sends while a program has focus reporting on. */
function isFocusReport(bytes: Uint8Array): boolean {
  return bytes.length === 3 && bytes[0] === ESC && bytes[1] === LEFT_BRACKET && (bytes[2] === 0x49 || bytes[2] === 0x4f);
}

/** The channel a CLI viewer subscribes on; a repaint on the same socket moves it to the other one. */
const CHANNELS = [1, 2] as const;
/**
 * Stop reading the terminal while this much typed input is not yet taken by
 * the session's holder (a paste outrunning the program, or the server away):
 * the terminal then holds the rest of a paste, and nothing is lost. Four
 * INPUT_AT frames in flight keep the holder busy; more would only be resent.
 */
const INPUT_PAUSE_BYTES = 256 * 1024;
/** ...and read again below this. */
const INPUT_RESUME_BYTES = 64 * 1024;
/**
 * Typed input kept until the holder has taken it; past this it is refused out
 * loud (a bell and the status line). Reading pauses at INPUT_PAUSE_BYTES, so
 * only what the terminal handed over before the pause took effect can come
 * this far: the bound is there so that memory stays bounded whatever the
 * input stream does, not as a limit a person typing can meet.
 */
const UNTAKEN_MAX_BYTES = 1024 * 1024;
/** After the server said it is stopping, give whoever restarts it this long before starting one ourselves. */
const RESTART_GRACE_MS = 5000;
const RECONNECTING_TEXT = 'tend: reconnecting… (the session keeps running; what you type is sent when it is back)';
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
  | { kind: 'detached'; reason: Exclude<DetachReason, 'signal'> }
  | { kind: 'exited'; code: number | null; signal: number | null }
  | { kind: 'lost'; why: string }
  /** `code`: the API's code for the same error (no_session), when there is one. */
  | { kind: 'error'; message: string; code?: string }
  | { kind: 'signal'; signal: NodeJS.Signals };

/** What the attach draws on: the outer terminal, or nothing (a watcher, `tend attach --json` without a terminal). */
export interface AttachOutput {
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
  write(data: Uint8Array | string, done?: () => void): boolean;
  on(event: 'resize', listener: () => void): unknown;
  off(event: 'resize', listener: () => void): unknown;
}

export interface AttachSessionOptions {
  /** The server's socket, asked at each connection: a restarted server may listen elsewhere (it says where in TEND_HOME's lock). */
  socketPath: () => string;
  sessionId: string;
  /** The session's name, for the hint and the markers (null: it has none; its id is shown). */
  sessionName: string | null;
  readOnly: boolean;
  detachPrefix: number;
  /** The keyboard; absent for a watcher, which reads nothing and leaves the terminal's modes alone. */
  input?: NodeJS.ReadStream;
  output: AttachOutput;
  /** Where "reconnecting…" goes when the output is not a terminal. */
  errors: { write(text: string): unknown };
  /** A view for the terminal's size (cli, the default), or the session's stream whatever its size (script). */
  clientKind?: ClientKind;
  /** The session's size as looked up (for the events until a snapshot or RESIZE says another). */
  sessionSize?: { cols: number; rows: number };
  /** Told when the attach is shown a session, loses the server, gets it back, or switches (`tend attach --json`). */
  events?: (event: AttachEvent) => void;
  backoff?: BackoffOptions;
  /** Starts the server if none is running (what every verb does on first use); rejects when it cannot. */
  ensureServer?: () => Promise<void>;
  /** The sessions for `prefix s` (GET /v1/sessions); without it the key does nothing. */
  listSessions?: () => Promise<SessionChoice[]>;
  /** The session this terminal runs in (TEND_SESSION): the list refuses to show it inside itself. */
  selfSessionId?: string;
  /**
   * Go on from where the native viewer stood (handoff.ts): its writer id,
   * input and position, no first paint, and the command it was asked for
   * once the new subscription's first frame is in.
   */
  handoff?: HandoffState;
}

export class AttachSession {
  private link: ServerLink | null = null;
  private readonly backoff: Backoff;
  private readonly prefixKeys: PrefixKeyFilter;
  /** The session shown: the one attached to, until `prefix s` switches to another. */
  private sessionId: string;
  private sessionName: string | null;
  /** The session whose history the outer terminal's scrollback holds (from a snapshot painted). */
  private historyOf: string | null = null;
  /** The outer terminal window, named in SUBSCRIBE to a server of this build (older ones refuse the longer frame). */
  private readonly windowKey = outerWindowKey();
  private serverNamesWindows = false;
  private readonly carry = new Utf8Carry();
  private readonly altScreen = new AltScreenTracker();
  private channel: number = CHANNELS[0];
  /** The stream position written to the outer terminal, with the stream (SNAPSHOT's boot) it belongs to. */
  private written: ResumePoint | null = null;
  /** The link reached the server (it was not refused). */
  private linkOpened = false;
  /** The server said it is stopping: until then, wait for whoever restarts it. */
  private restartGraceUntil = 0;
  private startingServer = false;
  /** Typed and not kept (over UNTAKEN_MAX_BYTES). */
  private droppedInputBytes = 0;
  /** This attach's input identity at the holder, the same across its reconnects (HELLO). */
  private readonly writer: Uint8Array;
  /**
   * Per session, typed and not yet known to be with its holder: sent again
   * after a reconnect. Kept for every session shown, since the holder counts
   * this writer's bytes per session: coming back to one goes on at its count.
   */
  private readonly untakenBySession = new Map<string, UntakenInput>();
  /** The session each channel was last subscribed to: INPUT_TAKEN counts for that session. */
  private readonly channelSession = new Map<number, string>();
  /** The link the untaken input was last (re)sent on: a new one is sent it all again. */
  private inputLink: ServerLink | null = null;
  /** The hint, the markers and the panels drawn over the screen. */
  private readonly overlays: ScreenOverlays;
  private noticeGiven = false;
  private lastAcked: number | null = null;
  /** Written and not yet acked: the seq to ack, the bytes since the last ack, the timer that sends it. */
  private ackOwed: number | null = null;
  private ackOwedBytes = 0;
  private ackTimer: NodeJS.Timeout | null = null;
  private painted = false;
  private statusShown = false;
  /** The subscription asked the server to repaint after its replay (something was drawn over the screen), and no snapshot came yet. */
  private repaintComing = false;
  /** The outer terminal shows a view of the session (it is not the session's size), not its stream. */
  private viewShown = false;
  private subscribed = false;
  private exit: { code: number; signal: number } | null = null;
  /** The session's size as last known (looked up, its own snapshot, a RESIZE; never a view's), for the events. */
  private sessionSize: { cols: number; rows: number } | null;
  /** For the events: a session was shown (`attached` said), the server is away (`reconnecting` said), a switch is yet to be shown. */
  private shownOnce = false;
  private away = false;
  private switchedFrom: SessionRef | null = null;
  private fatalMessage: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private carryTimer: NodeJS.Timeout | null = null;
  private inputPaused = false;
  private finished = false;
  private rawMode = false;
  /**
   * Handed over by the native viewer: its command waits for the first frame
   * of this viewer's subscription, and the keys typed meanwhile wait behind
   * it (they were typed after the command's key: the panel is theirs).
   */
  private handoffCommand: { command: HandoffState['command']; typed: Uint8Array[] } | null = null;
  /** The outer terminal's settings before the native viewer made it raw: put back on the way out. */
  private readonly sttyRestore: string | null;
  private resolveOutcome!: (outcome: AttachOutcome) => void;
  readonly outcome: Promise<AttachOutcome>;
  private readonly cleanups: Array<() => void> = [];

  constructor(private readonly options: AttachSessionOptions) {
    this.backoff = new Backoff(options.backoff);
    this.prefixKeys = new PrefixKeyFilter(options.detachPrefix);
    this.sessionId = options.sessionId;
    this.sessionName = options.sessionName;
    this.sessionSize = options.sessionSize ?? null;
    const handoff = options.handoff;
    this.writer = handoff?.writer ?? newWriterId();
    this.sttyRestore = handoff?.stty ?? null;
    if (handoff) {
      // What the outer terminal shows is the native viewer's doing: no first paint, a resume from its position.
      this.untakenBySession.set(handoff.session.id, handoff.untaken);
      this.written = handoff.written;
      this.historyOf = handoff.keepsHistory ? handoff.session.id : null;
      this.painted = handoff.painted;
      this.viewShown = handoff.viewShown;
      this.altScreen.active = handoff.altScreen.active;
      this.altScreen.originMode = handoff.altScreen.originMode;
      // Rows it drew over ask for a repaint, as a status line of this viewer's own does.
      this.statusShown = handoff.covered;
      this.handoffCommand = { command: handoff.command, typed: handoff.typed.length > 0 ? [handoff.typed] : [] };
    }
    this.overlays = new ScreenOverlays(
      {
        size: () => this.outerSize(),
        canDraw: () => this.options.output.isTTY === true && this.painted,
        write: (text) => this.options.output.write(text),
        repaint: () => this.resubscribe(),
        switchTo: (session) => this.switchTo(session),
        typed: (bytes) => this.typed(bytes),
        session: () => this.session,
      },
      {
        readOnly: options.readOnly,
        prefix: options.detachPrefix,
        ...(options.listSessions ? { listSessions: options.listSessions } : {}),
        ...(options.selfSessionId !== undefined ? { selfSessionId: options.selfSessionId } : {}),
      },
    );
    this.outcome = new Promise((resolve) => (this.resolveOutcome = resolve));
  }

  /** The session shown now (another than the one attached to after a switch). */
  get session(): { id: string; name: string | null } {
    return { id: this.sessionId, name: this.sessionName };
  }

  /** The typed input of the session shown. */
  private get untaken(): UntakenInput {
    return this.untakenOf(this.sessionId);
  }

  private untakenOf(sessionId: string): UntakenInput {
    let untaken = this.untakenBySession.get(sessionId);
    if (!untaken) this.untakenBySession.set(sessionId, (untaken = new UntakenInput()));
    return untaken;
  }

  /** Takes over the terminal and connects; resolves `outcome` when the attach ends. */
  start(): Promise<AttachOutcome> {
    this.enterRawMode();
    const onData = (chunk: Buffer) => this.typed(chunk);
    const onResize = () => this.outerResized();
    this.options.input?.on('data', onData);
    this.options.output.on('resize', onResize);
    this.cleanups.push(() => {
      this.options.input?.off('data', onData);
      this.options.output.off('resize', onResize);
      this.options.input?.pause();
    });
    // SIGINT too: in raw mode Ctrl-C is typed, not a signal, but a watcher (no keyboard) is stopped by it.
    for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) {
      const onSignal = () => this.finish({ kind: 'signal', signal });
      process.on(signal, onSignal);
      this.cleanups.push(() => process.off(signal, onSignal));
    }
    this.options.input?.resume();
    this.connect();
    return this.outcome;
  }

  // ---- the terminal ----------------------------------------------------------

  private enterRawMode(): void {
    const input = this.options.input;
    if (!input?.isTTY) return;
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

  private typed(chunk: Uint8Array): void {
    if (this.finished) return;
    if (this.handoffCommand !== null) {
      this.handoffCommand.typed.push(Buffer.from(chunk));
      return;
    }
    if (this.overlays.panelShown) {
      this.overlays.panelTyped(chunk);
      return;
    }
    this.overlays.keyTyped();
    const { forward, command, rest } = this.prefixKeys.feed(chunk);
    if (forward.length > 0) {
      // The terminal's own reports (the mouse moving, focus) are not typing: they bring no marker.
      if (this.options.readOnly && !holdsMouseReport(forward) && !isFocusReport(forward)) this.overlays.showReadOnlyMarker();
      else if (!this.options.readOnly) this.sendInput(this.carry.push(forward));
    }
    if (command !== null) {
      if (this.carry.holding) this.sendInput(this.carry.take());
      this.prefixCommand(command, rest);
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
    const live = link !== null && this.subscribed && this.inputLink === link;
    if (live && this.viewShown && holdsMouseReport(bytes)) {
      // Shown a view, the server moves mouse reports from the view's cells to
      // the session's: the program's bytes are not these, and cannot be
      // counted in these numbers. So a chunk with a report goes as INPUT; keys
      // (no report) are counted as ever, so a crash loses no typing.
      this.sendAck();
      for (const piece of splitInput(bytes)) link.send({ type: 'input', channel: this.channel, data: piece }, () => this.resumeInputIfTaken());
      this.pauseInputIfOwed();
      return;
    }
    if (this.untaken.untakenBytes + bytes.length > UNTAKEN_MAX_BYTES) {
      this.droppedInputBytes += bytes.length;
      this.refuseInput();
      return;
    }
    // Kept until the holder has it; when not subscribed (before the first
    // subscription, or while the server is away) it goes with the next one.
    this.untaken.add(bytes);
    if (live) {
      // The ack rides along: the server reads both in the wakeup the key causes.
      this.sendAck();
      this.sendUntaken(link);
    }
    this.pauseInputIfOwed();
  }

  /** Input owed to the session: not yet taken by its holder, or (INPUT) not yet written to the socket. */
  private owedInputBytes(): number {
    return this.untaken.untakenBytes + (this.link?.unsentInputBytes ?? 0);
  }

  private pauseInputIfOwed(): void {
    if (this.inputPaused || this.owedInputBytes() <= INPUT_PAUSE_BYTES) return;
    this.inputPaused = true;
    this.options.input?.pause();
  }

  private resumeInputIfTaken(): void {
    if (!this.inputPaused || this.finished || this.owedInputBytes() >= INPUT_RESUME_BYTES) return;
    this.inputPaused = false;
    this.options.input?.resume();
  }

  /**
   * Sends the input this link has not had, at its numbers: on a new link,
   * everything not yet taken (the holder drops what it has already).
   */
  private sendUntaken(link: ServerLink): void {
    if (this.inputLink !== link) this.untaken.rewind();
    this.inputLink = link;
    for (const piece of this.untaken.unsent()) link.send({ type: 'input-at', channel: this.channel, at: piece.at, data: piece.data });
  }

  private outerResized(): void {
    this.overlays.resized();
    // Read-only too: it never sizes the PTY, but the server renders its view for its size.
    if (!this.subscribed) return;
    this.link?.send({ type: 'resize-request', channel: this.channel, ...this.outerSize() });
  }

  // ---- the keys after the prefix -------------------------------------------

  private prefixCommand(command: PrefixCommand, rest: Uint8Array): void {
    switch (command) {
      case 'detach':
        this.finish({ kind: 'detached', reason: 'detach-key' });
        return;
      case 'keys':
        this.overlays.showKeys();
        break;
      case 'sessions':
        this.overlays.showSessions();
        break;
    }
    if (rest.length > 0) this.typed(rest);
  }

  /**
   * Shows another session in this attach, over the same socket: subscribes
   * to it on the other channel and leaves the old one, as a repaint does. Its
   * snapshot carries its history (the outer scrollback has another session's).
   * Returns why it cannot, or null.
   */
  private switchTo(session: SessionChoice): string | null {
    // Typed input belongs to the session it was typed for: it must be there before the keys go elsewhere.
    if (this.untaken.untakenBytes > 0 || this.carry.holding) return `what you typed has not reached ${sessionLabel(this.session)} yet; try again in a moment`;
    if (!this.link?.isOpen || !this.subscribed) return 'the server is away; try again once it is back';
    this.overlays.sessionChanged();
    this.switchedFrom = this.session;
    this.sessionId = session.id;
    this.sessionName = session.name;
    this.sessionSize = session.cols !== undefined && session.rows !== undefined ? { cols: session.cols, rows: session.rows } : null;
    this.written = null;
    this.exit = null;
    this.noticeGiven = false;
    // The new session's untaken input (if it was shown before) goes again on this link, from what its holder has.
    this.inputLink = null;
    // The window's title named the old session, and the server sends a title only when there is one.
    this.options.output.write('\x1b]2;\x07');
    this.resubscribe();
    return null;
  }

  // ---- the server ------------------------------------------------------------

  private connect(): void {
    this.retryTimer = null;
    this.linkOpened = false;
    const link: ServerLink = new ServerLink(this.options.socketPath(), {
      onOpen: () => {
        if (link === this.link) this.linkOpened = true;
        link.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: this.options.clientKind ?? 'cli', readOnly: this.options.readOnly, writer: this.writer, asksBuild: true });
      },
      onFrame: (frame) => {
        // Frames of a channel left for a repaint are over; what the holder took is news on either.
        if (link === this.link && (frame.type === 'welcome' || frame.type === 'input-taken' || frame.channel === 0 || frame.channel === this.channel)) {
          this.received(frame);
          if (frame.type === 'snapshot' || frame.type === 'data') this.runHandoffCommand();
        }
      },
      onClose: (why) => {
        if (link === this.link) this.linkLost(why);
      },
    });
    this.link = link;
  }

  private received(frame: FrameFromServer): void {
    switch (frame.type) {
      case 'welcome':
        // Another build is no error (the protocol is shared): said once, after the attach (build-notice.ts).
        noteServerTend({ version: frame.serverVersion, build: frame.serverBuild ?? null });
        this.serverNamesWindows = frame.serverBuild === TEND_BUILD && TEND_BUILD !== 'unknown';
        this.subscribe();
        return;
      case 'snapshot':
        this.backoff.reset();
        if (!frame.view) this.sessionSize = { cols: frame.cols, rows: frame.rows };
        this.sayShown();
        // A panel stays until it ends; the repaint then asks for the screen as it is.
        if (this.overlays.panelShown) return;
        this.statusShown = false;
        this.repaintComing = false;
        this.overlays.painted();
        this.historyOf = this.sessionId;
        if (frame.view) {
          this.writeOut(paintView(frame, { inAltScreen: this.altScreen.active }), frame.boot, frame.seq);
          this.altScreen.active = true;
          this.viewShown = this.painted = true;
          this.overlays.afterPaint();
          return;
        }
        this.viewShown = false;
        // The paint leaves the outer terminal's alternate screen if it is on;
        // the snapshot's data re-enters it if the session is there.
        const outer = this.outerSize();
        this.writeOut(paintSnapshot(frame, { outerRows: outer.rows, outerCols: outer.cols, inAltScreen: this.altScreen.active, first: !this.painted }), frame.boot, frame.seq);
        this.altScreen.active = frame.modes.altScreen;
        this.altScreen.originMode = frame.modes.originMode;
        this.painted = true;
        this.overlays.afterPaint();
        return;
      case 'data': {
        this.backoff.reset();
        // A resumed subscription may begin with DATA (the replay), not a SNAPSHOT.
        this.sayShown();
        // While rows are drawn over, output would scroll them into the
        // history. The notice and the panels hold it back (the repaint that
        // ends them replaces it); the hint and the marker give way: their row
        // is blanked, the output written, and the screen repainted after it.
        const covered = this.overlays.coveredRows > 0;
        if (covered && !this.overlays.givesWayToOutput) return;
        if (covered) this.options.output.write(this.overlays.giveWay());
        // A status line ("reconnecting…" as the replay of a reconnect begins,
        // or typing refused) gives way too: left there, the output scrolled it
        // into the history, or wrote over its start (`tick 394connecting…`).
        const status = this.statusShown;
        if (status) {
          this.statusShown = false;
          this.options.output.write(this.overlays.statusGiveWay());
        }
        this.altScreen.feed(frame.data);
        this.writeOut(frame.data, this.written?.boot ?? '', frame.seq);
        // A subscription that asked for a repaint (a reconnect's, after a status line) gets it after its replay: no second one.
        if ((covered || status) && !this.repaintComing) this.resubscribe();
        return;
      }
      case 'title':
        this.options.output.write(`\x1b]2;${frame.title.replace(/[\x00-\x1f\x7f]/g, '')}\x07`);
        return;
      case 'exit':
        this.exit = { code: frame.code, signal: frame.signal };
        return;
      case 'error':
        if (FATAL_ERRORS.has(frame.code) || frame.code === ViewerErrorCode.NO_SUCH_SESSION) {
          this.fatalMessage = frame.message;
          if (frame.code === ViewerErrorCode.NO_SUCH_SESSION) this.finish({ kind: 'error', message: `the session is gone: ${frame.message}`, code: 'no_session' });
        } else if (frame.code === ViewerErrorCode.BAD_ACK || frame.code === ViewerErrorCode.INTERNAL) {
          this.fatalMessage = frame.message;
        }
        return;
      case 'closed':
        this.channelClosed(frame.reason, frame.message);
        return;
      case 'state':
        if (frame.state.degraded === true) this.showNotice();
        return;
      case 'input-taken': {
        const sessionId = this.channelSession.get(frame.channel);
        if (sessionId !== undefined && this.untakenOf(sessionId).take(frame.total)) this.resumeInputIfTaken();
        return;
      }
      case 'resize':
        this.sessionSize = { cols: frame.cols, rows: frame.rows };
        return;
    }
  }

  /** The native viewer's command, once the screen is this viewer's (its subscription has begun); then what was typed after it. */
  private runHandoffCommand(): void {
    const pending = this.handoffCommand;
    if (pending === null || this.finished) return;
    this.handoffCommand = null;
    if (pending.command !== null) this.prefixCommand(pending.command, new Uint8Array(0));
    // Read by read, as they came: a panel takes a read whole, so joining them would let it swallow more.
    for (const chunk of pending.typed) this.typed(chunk);
  }

  /**
   * A subscription's first frame arrived (any later one too: it costs three
   * tests): the events hear what changed since they last heard.
   */
  private sayShown(): void {
    if (this.shownOnce && !this.away && this.switchedFrom === null) return;
    const shown = { ...this.session, ...(this.sessionSize ?? this.outerSize()), readOnly: this.options.readOnly };
    if (!this.shownOnce) this.options.events?.({ event: 'attached', ...shown });
    else if (this.away) this.options.events?.({ event: 'reconnected', ...shown });
    if (this.switchedFrom !== null) this.options.events?.({ event: 'switched', from: this.switchedFrom, ...shown });
    this.shownOnce = true;
    this.away = false;
    this.switchedFrom = null;
  }

  /**
   * Subscribes on the current channel, resuming from what was written: the
   * server replays what the outer terminal lacks, or (too much, or another
   * stream) sends the screen alone, since the outer terminal keeps the
   * history it was sent. Something drawn over the screen (a status line or a
   * notice) asks for a repaint after the replay.
   */
  private subscribe(): void {
    const link = this.link!;
    // After a view the outer screen is not the stream's: a replay would garble it.
    const resume = this.viewShown ? undefined : (this.written ?? undefined);
    const repaint = resume !== undefined && (this.statusShown || this.overlays.repaintOwed);
    this.repaintComing = repaint;
    this.channelSession.set(this.channel, this.sessionId);
    link.send({
      type: 'subscribe',
      channel: this.channel,
      sessionId: this.sessionId,
      ...this.outerSize(),
      // Painted before: the outer terminal's scrollback has the history (even when, after a view, there is no position to resume from).
      keepsHistory: this.historyOf === this.sessionId,
      ...(resume ? { resume, repaint } : {}),
      ...(this.windowKey !== null && this.serverNamesWindows ? { window: this.windowKey } : {}),
    });
    this.subscribed = true;
    this.lastAcked = null;
    // A new socket (a reconnect, or the first one): everything not yet taken goes again. A
    // repaint's new channel on the same socket gets only what is new: the session has the rest.
    this.sendUntaken(link);
  }

  private channelClosed(reason: CloseReason, message: string): void {
    switch (reason) {
      case CloseReason.SESSION_ENDED:
        this.finish({ kind: 'exited', code: this.exit ? this.exit.code : null, signal: this.exit && this.exit.signal !== 0 ? this.exit.signal : null });
        return;
      case CloseReason.SERVER_SHUTDOWN:
        // The server is going away on purpose; a new one will pick the session up.
        this.restartGraceUntil = Date.now() + RESTART_GRACE_MS;
        this.link?.close();
        this.linkLost(message || 'the server is stopping');
        return;
      case CloseReason.UNSUBSCRIBED:
        this.finish({ kind: 'detached', reason: 'server' });
        return;
      case CloseReason.PROTOCOL_VIOLATION:
        this.finish({ kind: 'error', message: `the server closed this viewer: ${this.fatalMessage ?? message}` });
        return;
    }
  }

  /** Writes stream bytes (or a snapshot's paint) and owes an ack of their seq once the write is done. */
  private writeOut(bytes: Uint8Array | string, boot: string, seq: number): void {
    const link = this.link!;
    const channel = this.channel;
    this.written = { boot, seq };
    this.options.output.write(bytes, () => {
      // Acks belong to the socket and channel they answer: after a reconnect
      // or a repaint the new channel starts from the resume point, and an
      // older ack would go backwards.
      if (link !== this.link || channel !== this.channel || this.finished || !link.isOpen) return;
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
    link.send({ type: 'ack', channel: this.channel, seq });
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
    // No first frame to wait for while the server is away: the panel shows now (its keys, the detach key, work as ever).
    this.runHandoffCommand();
    if (this.finished) return;
    const refused = !this.linkOpened;
    this.link?.close();
    this.link = null;
    this.subscribed = false;
    this.dropAck();
    if (this.fatalMessage !== null) {
      this.finish({ kind: 'error', message: this.fatalMessage });
      return;
    }
    // Bytes written to the dead socket are owed no more: they wait in the untaken input.
    this.resumeInputIfTaken();
    const delay = this.backoff.next();
    if (delay === null) {
      const unsent = this.untaken.untakenBytes + this.droppedInputBytes;
      this.finish({ kind: 'lost', why: unsent > 0 ? `${why}; ${unsent} bytes typed may not have reached the session` : why });
      return;
    }
    // A blip caught by the first retry shows nothing; a longer outage says so.
    if (this.backoff.failures > 1) this.showReconnecting();
    // A script is told of every outage, the blip too: once, when the session shown is lost.
    if (this.shownOnce && !this.away) {
      this.away = true;
      this.options.events?.({ event: 'reconnecting', ...this.session, why });
    }
    // No server answers: start one, as any verb would (a crashed server
    // otherwise never comes back) — unless one said it is stopping and is
    // probably being restarted right now.
    if (refused && this.options.ensureServer && Date.now() >= this.restartGraceUntil) this.startServer();
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private startServer(): void {
    if (this.startingServer) return;
    this.startingServer = true;
    this.options.ensureServer!().then(
      () => {
        this.startingServer = false;
        // Up now: no need to sit out the rest of the backoff.
        if (!this.finished && this.link === null && this.retryTimer !== null) {
          clearTimeout(this.retryTimer);
          this.connect();
        }
      },
      () => {
        // Could not start (another start racing, a broken build): the backoff tries again.
        this.startingServer = false;
      },
    );
  }

  private showReconnecting(): void {
    if (this.statusShown) return;
    if (this.options.output.isTTY) {
      this.statusShown = true;
      this.options.output.write(statusLine(RECONNECTING_TEXT, this.outerSize()));
    } else {
      this.options.errors.write(`${RECONNECTING_TEXT}\n`);
    }
  }

  /** Typing past what is kept until the session has it: a bell and the status line say it went nowhere. */
  private refuseInput(): void {
    const text = `tend: the session has not taken ${UNTAKEN_MAX_BYTES / 1024} KiB typed yet; past that typing is not kept: ${this.droppedInputBytes} bytes were not sent`;
    if (this.options.output.isTTY) {
      this.statusShown = true;
      this.options.output.write(`\x07${statusLine(text, this.outerSize())}`);
    } else {
      this.options.errors.write(`${text}\n`);
    }
  }

  /**
   * The screen just painted is incomplete (bytes left the holder's ring while
   * no server read them): a notice on the bottom row, as tmux shows a
   * message, until a key or NOTICE_SHOW_MS; then the screen is repainted.
   */
  private showNotice(): void {
    if (!this.options.output.isTTY) {
      if (!this.noticeGiven) this.options.errors.write(`${DEGRADED_NOTICE}\n`);
      this.noticeGiven = true;
      return;
    }
    // Every snapshot of such a screen says so (the repaint that ends the notice too): once is enough.
    if (this.noticeGiven) return;
    this.noticeGiven = true;
    this.overlays.showNotice();
  }

  /**
   * Repaints the screen from the server: subscribes again on the other
   * channel of the same socket, resuming from what was written with a
   * repaint (the output held back is replayed, then the screen repainted), or
   * to another session after a switch; only then leaves the old channel, so
   * the session never sees this viewer go. With the server away, the next
   * subscription repaints (rows are still covered).
   */
  private resubscribe(): void {
    const link = this.link;
    if (!link?.isOpen || !this.subscribed) return;
    const old = this.channel;
    this.channel = old === CHANNELS[0] ? CHANNELS[1] : CHANNELS[0];
    this.dropAck();
    this.subscribe();
    link.send({ type: 'unsubscribe', channel: old });
  }

  // ---- the end ---------------------------------------------------------------

  /** Detach now (as the detach key does). */
  detach(): void {
    this.finish({ kind: 'detached', reason: 'detach-key' });
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
    const covered = this.overlays.coveredRows > 0;
    const restore = this.overlays.leaving() + leaveSequence({ inAltScreen: this.altScreen.active, originMode: this.altScreen.originMode, ...this.outerSize() });
    const done = () => {
      if (this.rawMode) this.options.input?.setRawMode(false);
      // Node put back what it saw when it went raw, which after a hand-off is the native viewer's raw mode.
      if (this.sttyRestore !== null && this.options.input?.isTTY) spawnSync('stty', [this.sttyRestore], { stdio: [this.options.input, 'ignore', 'ignore'] });
      this.resolveOutcome(outcome);
    };
    if (this.painted || this.statusShown || covered) this.options.output.write(restore, done);
    else done();
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, Math.floor(v)));
}
