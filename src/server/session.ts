// One terminal session as the server sees it: the holder that owns its PTY,
// the headless screen fed every byte the holder read, and the bookkeeping that
// lets a later server pick it up exactly where this one left off (the holder's
// generation and the byte offset the screen covers).
import { DisposableBase, toDisposable, type Disposable } from '../common/lifecycle.js';
import { HolderConnection, spawnHolder } from '../holder-client/index.js';
import type { HolderLauncher } from '../holder-client/spawn-holder.js';
import { DEFAULT_LIVE_SCROLLBACK_ROWS, VIEWER_SNAPSHOT_SCROLLBACK_ROWS, type ScreenSnapshot } from './screen/index.js';
import { rowsMissing, type HistoryState } from './screen/history/history.js';
import type { HostedCommands, HostedScreen, ScreenHost } from './screen-host/index.js';
import type { HostedScreenOptions } from './screen-host/messages.js';
import { StoreError, type JournalledSizeChange, type SessionRecord, type Store } from './store/index.js';
import type { Checkpoint, CheckpointWriter } from './checkpoint/index.js';
import type { Logger } from './log.js';
import { CheckpointSchedule } from './checkpoint-schedule.js';
import { checkpointWarning } from './checkpoint-warning.js';
import { SessionViewers } from './viewers/session-viewers.js';
import { RowMarks } from './viewers/window-rows.js';
import type { WindowSizePolicy } from './viewers/size-policy.js';
import type { TerminalModes } from './screen/index.js';
import type { Snapshot, SnapshotRequest } from './viewers/viewer-channel.js';
import { CloseReason } from '../protocol/viewer-frames.js';
import { TYPIST_PROTOCOL_VERSION } from '../protocol/holder-frames.js';
import { REPLAY_MAX_BYTES } from './viewers/flow-limits.js';
import { injectShellIntegration } from '../shell-integration/index.js';
import { exitStatusOf } from '../protocol/exit-status.js';
import { DurableInput } from './input/durable-input.js';
import { reconnectAfterHandover, type HandOverResult } from './holder-handover.js';
import { releaseAtOnce, type HolderRelease } from './holder-release.js';

import type { AgentInfo, SessionInfo, SessionStatus } from '../protocol/api/index.js';
export type { SessionInfo, SessionStatus };

/**
 * What a session asks of the agent in it (server/agents/ sets it): its state
 * for the session's info, and a gate input waits at while the agent sleeps or
 * wakes (the wake starts then, and the input reaches the agent once it is
 * ready, in the order it came).
 */
export interface SessionAgentLink {
  info(): AgentInfo;
  /** Null: input goes now. Else input waits for the promise (which starts a wake); a rejection drops it. */
  inputGate(): Promise<void> | null;
}

export interface SessionDeps {
  /** The server boot: the viewer stream of a session with no holder to number it is scoped to it. */
  boot: string;
  store: Store;
  log: Logger;
  checkpoints: CheckpointWriter;
  checkpointsDir: string;
  holdersDir: string;
  /** Rows of scrollback per session in all (live and history). */
  scrollbackRows: number;
  /** Of those, rows kept live in xterm (default: the screen's). */
  liveScrollbackRows?: number;
  /** Bytes of history per session (default: the screen's). */
  historyBytes?: number;
  /** Where every session's screen is parsed and kept (a worker thread). */
  screens: ScreenHost;
  holderPath?: string;
  /** Puts each holder somewhere of its own before it starts (under systemd, a scope: holder-scope.ts). */
  holderLauncher?: HolderLauncher;
  ringBytes?: number;
  checkpointQuietMs?: number;
  checkpointMaxIntervalMs?: number;
  /** Where the startup files that load shell integration into bash/zsh/fish are written. */
  shellIntegrationDir: string;
  /** Which viewer's size the PTY takes (TEND_WINDOW_SIZE, tmux's window-size); default latest. */
  windowSize?: WindowSizePolicy;
  /** The server's unix socket, given to programs as TEND_SOCKET: agents' hooks report there. */
  serverSocket?: string;
  /** When a holder whose program ended may go (held while an upgrade checks this server); default: at once. */
  holderRelease?: HolderRelease;
}

/** Output as it arrives; `bytes` are good only during the call (the holder read buffer is reused). */
export interface OutputListener {
  (bytes: Uint8Array): void;
}

// While this many bytes are handed to the screen but not yet parsed, stop
// reading the holder's socket: the holder then stops reading the PTY and the
// kernel holds the program back, instead of the server buffering without bound.
// Below the output log's cap (viewers/output-log.ts) with a frame to spare:
// a viewer's snapshot is cut at the parse point, which the log must still hold.
// Small on purpose: at a flood's fair share of parse time (~1 MB/s with 20
// flooding) 512 KiB is half a second of lag between the program and its
// screen, and bytes that wait longer outlive the young generation and are
// garbage for the costly collector. Measured (docs/performance.md): 4 MiB
// gave no more throughput, and a longer loop-delay tail under floods.
// Reading resumes while a good part of that is still unparsed: the host
// reports what it parsed up to PARSED_REPORT_MS late, and fresh bytes take a
// read, a copy into the lane and a post to reach it. Resumed at 128 KiB (~4 ms
// of a flood's parse) the host ran dry between refills, idle ~12 % of a text
// flood; at 384 KiB a lone flood parses 5-16 % faster (docs/performance.md).
const PARSE_BACKLOG_PAUSE_BYTES = 512 * 1024;
const PARSE_BACKLOG_RESUME_BYTES = 384 * 1024;
const HOLDER_CONNECT_TIMEOUT_MS = 5000;
/**
 * Every holder connection reads into this one buffer instead of into a new
 * one per read (Node's way): under floods those buffers were most of the
 * loop's garbage. feed() copies what it keeps (the viewers' log, the screen
 * host's byte lane) before the next read reuses it.
 */
const HOLDER_READ_BUFFER = new Uint8Array(64 * 1024);
const KILL_WAIT_MS = 8000;
/** How long a hand-over waits for durable input already sent to be acknowledged. */
const HANDOVER_INPUT_WAIT_MS = 5000;

const RESTORED_SEPARATOR =
  '\r\n\x1b[0m\x1b[2m── session restored: its process is gone · `tend revive` starts a shell here ──\x1b[0m\r\n';


export class Session extends DisposableBase {
  private holder: HolderConnection | null = null;
  /** The holder connection's listeners: replaced when a hand-over brings a new connection. */
  private holderLink: Disposable | null = null;
  /** While the holder hands over to a new binary: what input and controls wait for (handOverHolder). */
  private handover: Promise<void> | null = null;
  /** Durable writes the holder has not acknowledged yet: a hand-over starts once there are none. */
  private inputsInFlight = 0;
  /** Input acknowledged by the holder that has it (see input/durable-input.ts); null without a holder. */
  private durableInput: DurableInput | null = null;
  private _status: SessionStatus;
  /** Holder offset just past the last byte handed to the screen. */
  private fedOffset = 0;
  /** Bytes handed to the screen whose parse has not finished. */
  private parseBacklog = 0;
  private holderPaused = false;
  /** Set when bytes are known to be missing from the screen (a gap replay). */
  private _degraded = false;
  /** Set when kill() starts: from then on nothing of the session is written to disk again. */
  private forgotten = false;
  /** Replayed bytes are answered only for a session this server just started. */
  private answerReplay = false;
  private readonly schedule: CheckpointSchedule;
  private readonly outputListeners = new Set<OutputListener>();
  private readonly exitWaiters: Array<() => void> = [];
  readonly viewers: SessionViewers;
  private _agent: SessionAgentLink | null = null;
  /**
   * While the session's agent sleeps (server/agents/agent-sleep.ts): the
   * screen as it was when it fell asleep, which viewers and `tend screen` are
   * shown instead of the live one. The live screen still parses every byte
   * (the shell's prompt, the agent's resume), so recovery stays exact.
   */
  private keptScreen: Promise<HostedScreen> | null = null;
  /** The viewer seq the screen has parsed up to (set in each write's parse callback). */
  private parsedSeq: number;
  /** Viewer seqs are the holder's offsets (see alignViewerStream). */
  private streamAligned = false;
  /** The screen's top row at recent parsed seqs: which history rows a viewer streamed up to a seq holds. */
  private readonly rowMarks = new RowMarks();
  /**
   * Journalled resizes a recovery's replay has still to apply, oldest first:
   * each one at its offset, between the bytes before and after it, as the
   * live screen took it (see feed()).
   */
  private pendingSizes: JournalledSizeChange[] = [];

  private constructor(
    private readonly deps: SessionDeps,
    private record: SessionRecord,
    private _screen: HostedScreen,
    status: SessionStatus,
  ) {
    super();
    this._status = status;
    this.register(toDisposable(() => this._screen.dispose()));
    this.viewers = this.register(new SessionViewers({
      boot: deps.boot,
      takeSnapshot: (request) => this.viewerSnapshot(request),
      parsedSeq: () => this.parsedSeq,
      // Older rows than a viewer's snapshot holds: by row number (null: above what a snapshot shows now).
      readScrollback: ({ beforeRow, count }) => this._screen.olderRows(beforeRow ?? null, VIEWER_SNAPSHOT_SCROLLBACK_ROWS, count),
      topRowAt: (seq) => this.rowMarks.topRowAt(seq),
      windowRemembered: () => this.schedule.noteOutput(),
      writeInput: (data) => {
        const gate = this.agent?.inputGate() ?? null;
        if (gate === null) {
          if (this._status === 'running') this.plainInput(data);
          return;
        }
        // Keystrokes to a sleeping agent wake it and reach it once it is ready; the viewer's copy is good only now.
        const copy = data.slice();
        gate.then(() => {
          if (this._status === 'running') this.plainInput(copy);
        }, () => undefined);
      },
      writeInputAt: (writer, at, data) => this.inputAt(writer, at, data),
      holderRoute: () => this.holderRoute(),
      resizePty: ({ cols, rows }) => {
        if (this._status === 'running') this.resize(cols, rows);
      },
      ptySize: () => ({ cols: this._screen.cols, rows: this._screen.rows }),
      windowSize: deps.windowSize,
    }));
    this.parsedSeq = this.viewers.log.endSeq;
    this.schedule = this.register(new CheckpointSchedule(() => void this.checkpoint(), deps.checkpointQuietMs, deps.checkpointMaxIntervalMs));
    this.watchScreen();
  }

  get id(): string {
    return this.record.id;
  }

  /** The AI agent in this session, once one was launched or reported (server/agents/). */
  get agent(): SessionAgentLink | null {
    return this._agent;
  }
  set agent(agent: SessionAgentLink | null) {
    this._agent = agent;
    this.viewers.updateInputRoutes();
  }

  /**
   * Where a lone viewer may type straight to (its holder's socket), or null:
   * its keys must pass the server. Not while a hand-over is under way (input
   * waits for the new holder), not to a holder too old to take typists, and
   * not with an agent in the session: its input passes the agent's gate,
   * which counts it as activity and holds it while the agent sleeps or wakes.
   */
  private holderRoute(): string | null {
    const holder = this.holder;
    if (this._status !== 'running' || holder === null || this.handover !== null || this._agent !== null) return null;
    return holder.version >= TYPIST_PROTOCOL_VERSION ? holder.socketPath : null;
  }
  get name(): string | null {
    return this.record.name;
  }
  get status(): SessionStatus {
    return this._status;
  }
  get screen(): HostedScreen {
    return this._screen;
  }
  /** The screen people are shown: the kept one while the agent sleeps, else the live one. */
  shownScreen(): Promise<HostedScreen> {
    return this.keptScreen ?? Promise.resolve(this._screen);
  }

  /**
   * Viewers are shown `kept` (it may still be being made) and no output
   * until showLiveScreen(). Call it in the same turn as the cut of the
   * screen kept: what viewers were sent up to then is that screen.
   */
  showKeptScreen(kept: Promise<HostedScreen>): void {
    this.keptScreen = kept;
    this.viewers.freeze();
  }

  /** Viewers are repainted from the live screen and sent its output again. The caller disposes the kept screen. */
  showLiveScreen(): void {
    this.keptScreen = null;
    this.viewers.thaw();
  }

  /** Commands the shell's marks (OSC 133/633) delimit, indexed beside the screen. */
  get commands(): HostedCommands {
    return this._screen.commands;
  }
  get degraded(): boolean {
    return this._degraded;
  }
  get offset(): number {
    return this.fedOffset;
  }

  info(): SessionInfo {
    const r = this.record;
    return {
      id: r.id,
      name: r.name,
      status: this._status,
      exitCode: r.exitCode,
      exitSignal: r.exitSignal,
      pid: r.childPid,
      holderPid: r.holderPid,
      cwd: this._screen.cwd ?? r.cwd,
      title: this._screen.title,
      cols: this._screen.cols,
      rows: this._screen.rows,
      argv: r.argv,
      createdAt: r.createdAt,
      endedAt: r.endedAt,
      lastOutputAt: r.lastOutputAt,
      viewers: this.viewers.viewerCount,
      generation: r.generation,
      offset: this.fedOffset,
      unparsedBytes: this._screen.backlogBytes,
      degraded: this._degraded,
      ...checkpointWarning(this.deps.checkpoints),
      agent: this.agent?.info() ?? null,
    };
  }

  // ---- creation and recovery -------------------------------------------

  /** Starts a new holder for a record already in the store. */
  static async start(deps: SessionDeps, record: SessionRecord, options: { shellIntegration: boolean }): Promise<Session> {
    const screen = deps.screens.open(screenOptions(deps, record.cols, record.rows));
    const session = new Session(deps, record, screen, 'running');
    try {
      await session.launchHolder(record.argv, record.cwd, record.env, options);
    } catch (err) {
      session.dispose();
      throw err;
    }
    return session;
  }

  /**
   * Picks up a session from the store after a server start: reconnect to its
   * holder and continue from the checkpoint, or show the checkpoint as cold.
   */
  static async recover(deps: SessionDeps, record: SessionRecord): Promise<Session> {
    const loaded = await loadCheckpointScreen(deps, record);
    const session = new Session(deps, record, loaded.screen, record.status === 'exited' ? 'exited' : 'cold');
    // What the saved screen lacked it still lacks: said to viewers (STATE degraded), `tend screen` and the API.
    session._degraded = loaded.degraded;
    const cp = loaded.checkpoint;
    session.fedOffset = cp?.offset ?? 0;
    if (cp) session.viewers.restoreWindows(cp.meta.windows);
    if (record.status === 'cold') return session;
    let holder: HolderConnection;
    try {
      holder = await HolderConnection.connect(record.holderSocket, { timeoutMs: HOLDER_CONNECT_TIMEOUT_MS, readBuffer: HOLDER_READ_BUFFER });
    } catch (err) {
      // An exited session's holder is normally gone: that is the end of its story.
      if (record.status === 'running') {
        deps.log.warn(`session ${record.id}: holder unreachable (${(err as Error).message}); it is cold`);
        session.becomeCold();
      }
      return session;
    }
    try {
      const state = holder.lastState;
      const lease = await holder.acquire();
      if (lease !== 'acquired') {
        deps.log.warn(`session ${record.id}: another server controls its holder (${lease.denied}); leaving it alone`);
        holder.dispose();
        session._status = 'elsewhere';
        return session;
      }
      // A live holder wins over the record: an exit recorded just before a
      // crash may still have output after the checkpoint, and EXIT comes again.
      // The sizes the screen took in this generation, each at the offset it
      // took effect at: the replay applies them where they fell, so rows
      // written at an older width come back as they were.
      const journal = session.journalledSizes(state.generation);
      let from = 0;
      if (cp && cp.generation === state.generation && cp.offset <= state.offset) {
        from = cp.offset;
        // The checkpoint's screen is at its own size; what it covers of the journal is already in it.
        const covered = cp.meta.sizeJournalSeq;
        session.pendingSizes = journal.filter((e) => (typeof covered === 'number' ? e.seq > covered : e.offset > cp.offset));
      } else {
        if (cp) deps.log.info(`session ${record.id}: checkpoint is of another holder generation; replaying the ring`);
        // The ring is replayed from its start at the oldest size the journal kept (at or before that start).
        const first = journal[0];
        session.replaceScreen(deps.screens.open(screenOptions(deps, first?.cols ?? state.cols, first?.rows ?? state.rows)));
        session._degraded = false; // the checkpoint's screen is gone; the replay says if this one lacks bytes
        session.viewers.forgetWindows();
        session.pendingSizes = journal.slice(1);
      }
      // No journal (a store from an older build): the bytes are replayed at the holder's size now.
      if (journal.length === 0 && (session._screen.cols !== state.cols || session._screen.rows !== state.rows)) {
        session._screen.resize(state.cols, state.rows);
      }
      session._status = 'running';
      // The viewers' log starts up to a replay's worth before the checkpoint
      // (what the ring still holds): a viewer that was a little behind the
      // last server's screen is replayed from its own position too.
      // (A ring that has moved past the checkpoint is asked from the checkpoint: the holder then reports the gap.)
      const logFrom = Math.min(from, Math.max(state.ringStart, from - REPLAY_MAX_BYTES, 0));
      session.alignViewerStream(state.generation, logFrom, from);
      session.record = { ...record, status: 'running', generation: state.generation, childPid: state.childPid };
      session.persist('its recovery', (store) => store.updateSession(record.id, { status: 'running', generation: state.generation, childPid: state.childPid }));
      session.attachHolder(holder, from, { answerReplay: false, logFrom });
      await session.waitReplayEnd();
      session.settleSizeAfterReplay(state.cols, state.rows);
      if ((await session._screen.modes()).alternateScreen) holder.redraw(); // second line of defence for TUIs
      return session;
    } catch (err) {
      holder.dispose();
      session.dispose();
      throw err;
    }
  }

  private async launchHolder(argv: string[], cwd: string, env: Record<string, string>, options: { shellIntegration: boolean }): Promise<void> {
    const socketPath = `${this.deps.holdersDir}/${this.record.id}.sock`;
    // A plain bash/zsh/fish gets tend's marks (OSC 133/7), which the command
    // index and `await` need; anything else starts exactly as given.
    const launch = options.shellIntegration
      ? injectShellIntegration(argv, { ...env, ...this.tendEnv() }, this.deps.shellIntegrationDir)
      : { argv, env: { ...env, ...this.tendEnv() } };
    const { holderPid, childPid } = await spawnHolder({
      holderPath: this.deps.holderPath,
      launcher: this.deps.holderLauncher,
      launchName: this.record.id,
      socketPath,
      cols: this._screen.cols,
      rows: this._screen.rows,
      cwd,
      env: launch.env,
      argv: launch.argv,
      ringBytes: this.deps.ringBytes,
    });
    const holder = await HolderConnection.connect(socketPath, { timeoutMs: HOLDER_CONNECT_TIMEOUT_MS, readBuffer: HOLDER_READ_BUFFER });
    const lease = await holder.acquire();
    if (lease !== 'acquired') {
      holder.dispose();
      throw new Error(`the new holder refused its lease: ${lease.denied}`);
    }
    const generation = holder.lastState.generation;
    this.record = { ...this.record, holderSocket: socketPath, holderPid, childPid, generation, cwd };
    this.persist('its new holder', (store) => store.updateSession(this.record.id, { holderSocket: socketPath, holderPid, childPid, generation, status: 'running', cwd }));
    this._status = 'running';
    this.fedOffset = 0;
    this.journalSize(generation, 0, this._screen.cols, this._screen.rows);
    this.alignViewerStream(generation, 0);
    this.attachHolder(holder, 0, { answerReplay: true });
  }

  /** What a program in the session (and an agent's hooks) needs to reach tend: the session's id and the server's socket. */
  private tendEnv(): Record<string, string> {
    return { TEND_SESSION: this.record.id, ...(this.deps.serverSocket !== undefined ? { TEND_SOCKET: this.deps.serverSocket } : {}) };
  }

  /** Settles when the holder's replay has ended, or the holder has gone. */
  private replayDone: Promise<void> = Promise.resolve();
  /** Lets the holder of the ended program go now, if it still waits (HolderRelease); a no-op once it went. */
  private letHolderGo: (() => void) | null = null;

  private waitReplayEnd(): Promise<void> {
    return this.replayDone;
  }

  private attachHolder(holder: HolderConnection, from: number, opts: { answerReplay: boolean; logFrom?: number }): void {
    this.holderLink?.dispose(); // the connection a hand-over replaced
    this.holder = holder;
    this.viewers.updateInputRoutes();
    const durableInput = new DurableInput(holder);
    this.durableInput = durableInput;
    this.answerReplay = opts.answerReplay;
    this.fedOffset = from;
    const subs: Disposable[] = [
      holder.onReplay((f) => {
        // Bytes before `from` are on the screen already (the checkpoint): they go to the viewers' log alone.
        const logOnly = f.offset < from ? Math.min(f.bytes.length, from - f.offset) : 0;
        if (logOnly > 0) this.appendLogOnly(f.offset, f.bytes.subarray(0, logOnly));
        if (logOnly === f.bytes.length && f.offset + logOnly <= from) return;
        if (f.gap && f.offset > from) {
          if (!this._degraded) {
            this._degraded = true;
            this.deps.log.warn(`session ${this.id}: bytes ${from}..${f.offset} left the holder's ring; the screen is incomplete`);
          }
          this.fedOffset = f.offset; // said above: not a jump for feed() to report again as an error
          this.skipViewerStream(f.offset);
        }
        if (f.bytes.length > logOnly) this.feed(f.offset + logOnly, f.bytes.subarray(logOnly), this.answerReplay);
      }),
      holder.onOutput((f) => this.feed(f.offset, f.bytes, true)),
      holder.onExit((e) => void this.handleExit(e.code, e.signal)),
      holder.onClose(() => this.handleHolderClosed(holder)),
    ];
    this.holderLink = this.register(toDisposable(() => {
      for (const s of subs) s.dispose();
      durableInput.dispose();
      holder.dispose();
    }));
    this.replayDone = holder.dumpSince(opts.logFrom ?? from).then(
      () => undefined,
      () => undefined, // a holder gone mid-replay is reported by onClose
    );
  }

  // ---- output ---------------------------------------------------------------

  /**
   * `bytes` are a view of the holder read buffer: whatever keeps them copies them.
   * A journalled resize falling inside them (a recovery's replay) splits them:
   * the screen takes it after the bytes before its offset, as the live one did.
   */
  private feed(offset: number, bytes: Uint8Array, live: boolean): void {
    while (this.pendingSizes.length > 0) {
      const next = this.pendingSizes[0]!;
      const before = next.offset - offset;
      if (before >= bytes.length) break; // at or past the end of these bytes: the next bytes (or the replay's end) apply it
      if (before > 0) {
        this.feedScreen(offset, bytes.subarray(0, before), live);
        offset += before;
        bytes = bytes.subarray(before);
      }
      this.pendingSizes.shift();
      this.resizeScreenOnly(next.cols, next.rows);
    }
    if (bytes.length > 0) this.feedScreen(offset, bytes, live);
  }

  private feedScreen(offset: number, bytes: Uint8Array, live: boolean): void {
    if (offset !== this.fedOffset) {
      // The client checks continuity too; this guards the screen's own account.
      this.deps.log.error(`session ${this.id}: stream jumped from ${this.fedOffset} to ${offset}`);
      this._degraded = true;
    }
    if (this.streamAligned && offset !== this.viewers.log.endSeq) this.skipViewerStream(offset);
    this.fedOffset = offset + bytes.length;
    this.parseBacklog += bytes.length;
    if (!this.holderPaused && this.parseBacklog > PARSE_BACKLOG_PAUSE_BYTES) {
      this.holderPaused = true;
      this.holder?.pause();
    }
    const length = bytes.length;
    // Every byte the screen gets goes to the viewers' log too, replayed ones
    // included: the log must equal the screen's input for snapshot seqs to be exact.
    const seqAfter = this.viewers.append(bytes);
    this._screen.write(bytes, { live }, () => {
      this.parsedSeq = seqAfter;
      this.parseBacklog -= length;
      if (this.holderPaused && this.parseBacklog < PARSE_BACKLOG_RESUME_BYTES) {
        this.holderPaused = false;
        this.holder?.resume();
      }
    });
    this.record.lastOutputAt = Date.now();
    this.schedule.noteOutput();
    for (const l of this.outputListeners) l(bytes);
  }

  /**
   * A viewer's snapshot and the exact seq it shows. The snapshot is cut
   * when the screen has parsed everything written before the request (its
   * step in the parse queue), and parsing waits while it is serialized in
   * slices, so the screen is exactly the bytes up to parsedSeq (each write's
   * callback set it) — at least every seq already sent to a viewer, as the
   * protocol requires — and no attach holds the loop for the whole paint.
   */
  private async viewerSnapshot(request: SnapshotRequest): Promise<Snapshot> {
    if (this.keptScreen !== null) {
      const kept = this.keptScreen;
      try {
        return await this.keptSnapshot(await kept, request);
      } catch (err) {
        // Thawed meanwhile, and the kept screen disposed under the render: the live screen is the one to show.
        if (this.keptScreen === kept) throw err;
      }
    }
    if (request.view !== undefined) return this.viewerView(request.view, request.atLeastSeq);
    let seq = this.parsedSeq;
    const scrollbackRows = request.screenOnly === true ? 0 : VIEWER_SNAPSHOT_SCROLLBACK_ROWS;
    const after = request.historyAfterRow !== undefined ? { historyAfterRow: request.historyAfterRow } : {};
    const { snapshot: snap, modes: m } = await this._screen.snapshot({ scrollbackRows, viewer: true, ...after }, () => (seq = this.parsedSeq));
    return {
      seq,
      cols: snap.cols,
      rows: snap.rows,
      data: snap.data,
      title: snap.title || undefined,
      firstRow: snap.firstRow,
      ...(this._degraded ? { degraded: true } : {}),
      ...(this.agent !== null ? { agent: this.agent.info() } : {}),
      modes: viewerModes(m, snap.cursor),
    };
  }

  /**
   * The kept screen of a sleeping agent, as a snapshot or a view. It is at
   * the stream's end: the viewer is sent no DATA while it is shown, and a
   * thaw repaints it from the live screen (at a seq at least this one).
   */
  private async keptSnapshot(kept: HostedScreen, request: SnapshotRequest): Promise<Snapshot> {
    const agent = this.agent !== null ? { agent: this.agent.info() } : {};
    if (request.view !== undefined) {
      const v = await kept.view(request.view);
      return {
        seq: this.viewers.log.endSeq,
        cols: request.view.cols,
        rows: request.view.rows,
        data: v.data,
        title: v.title || undefined,
        view: true,
        viewWindow: { originX: v.offsetX, originY: v.offsetY, cols: v.screenCols, rows: v.screenRows },
        modes: viewerModes(v.modes, { x: v.cursorX, y: v.cursorY }),
        ...agent,
      };
    }
    const scrollbackRows = request.screenOnly === true ? 0 : VIEWER_SNAPSHOT_SCROLLBACK_ROWS;
    const after = request.historyAfterRow !== undefined ? { historyAfterRow: request.historyAfterRow } : {};
    const { snapshot: snap, modes: m } = await kept.snapshot({ scrollbackRows, viewer: true, ...after });
    return {
      seq: this.viewers.log.endSeq,
      cols: snap.cols,
      rows: snap.rows,
      data: snap.data,
      title: snap.title || undefined,
      firstRow: snap.firstRow,
      ...agent,
      modes: viewerModes(m, snap.cursor),
    };
  }

  /**
   * The screen as a viewer of another size shows it (cropped around the
   * cursor, or padded), and the seq it shows: cut like a snapshot, rendered
   * in one go (a screen's worth of cells).
   */
  private async viewerView(size: { cols: number; rows: number }, atLeastSeq: number): Promise<Snapshot> {
    // A view shows what the screen has parsed (not waiting for its backlog),
    // but never less than the viewer was sent: a stream viewer turning into a
    // view viewer may have been sent bytes the screen has not parsed yet.
    if (this.parsedSeq < atLeastSeq) await this._screen.flush();
    let seq = this.parsedSeq;
    const v = await this._screen.view(size, () => (seq = this.parsedSeq));
    return {
      seq,
      cols: size.cols,
      rows: size.rows,
      data: v.data,
      title: v.title || undefined,
      view: true,
      viewWindow: { originX: v.offsetX, originY: v.offsetY, cols: v.screenCols, rows: v.screenRows },
      modes: viewerModes(v.modes, { x: v.cursorX, y: v.cursorY }),
    };
  }

  /**
   * Viewer seqs from here on are the holder's byte offsets, in a stream named
   * by its generation: a position a viewer holds outlives this server, and the
   * next one (which replays the holder from its checkpoint into the log)
   * resumes the viewer with exactly the bytes it missed. A session revived
   * under attached viewers keeps numbering as it was (their positions must
   * not go back); its next server aligns it.
   */
  private alignViewerStream(generation: string, offset: number, screenAt = offset): void {
    this.streamAligned = this.viewers.alignStream(generation, offset);
    if (this.streamAligned) {
      this.parsedSeq = screenAt;
      this.rowMarks.clear();
    }
  }

  /** Holder bytes the screen already has (a recovery's checkpoint covers them), for the viewers' log alone. */
  private appendLogOnly(offset: number, bytes: Uint8Array): void {
    if (!this.streamAligned) return;
    this.viewers.skipTo(offset); // nothing when the log is at offset already
    this.viewers.append(bytes);
  }

  /** The holder's stream jumped (bytes lost): the log goes on at the holder's offset. */
  private skipViewerStream(offset: number): void {
    if (!this.streamAligned) return;
    this.viewers.skipTo(offset);
    // Nothing queued to parse: the screen is as far as it will get for the bytes before the hole.
    if (this.parseBacklog === 0) this.parsedSeq = offset;
  }

  onOutput(listener: OutputListener): Disposable {
    this.outputListeners.add(listener);
    return toDisposable(() => this.outputListeners.delete(listener));
  }

  private watchScreen(): void {
    const s = this._screen;
    this.register(s.onReply((bytes: Uint8Array) => this.plainInput(bytes)));
    this.register(s.onTitle((title: string) => this.viewers.broadcast((channel) => ({ type: 'title', channel, title }))));
    // Read after the parsed writes' callbacks: parsedSeq is the seq of the last of them.
    this.register(s.onParsed((topRow: number) => this.rowMarks.note(this.parsedSeq, topRow)));
  }

  private replaceScreen(screen: HostedScreen): void {
    const old = this._screen;
    this._screen = screen;
    old.dispose();
    this.watchScreen();
  }

  /**
   * Saves a change to the store. The running session is the truth and the
   * store its memory across restarts, so a store that cannot be written (read
   * only: reported once when the server started) never fails the session.
   */
  private persist(what: string, write: (store: Store) => void): void {
    try {
      write(this.deps.store);
    } catch (err) {
      if (err instanceof StoreError && err.code === 'READ_ONLY') return;
      this.deps.log.error(`session ${this.id}: could not save ${what}`, err);
    }
  }

  // ---- input and control ---------------------------------------------------

  private requireHolder(): HolderConnection {
    if (this._status !== 'running' || !this.holder) {
      throw new SessionStateError(this, this._status === 'cold'
        ? `session ${this.label} is cold: its process is gone (tend revive starts a new shell)`
        : this._status === 'exited'
          ? `session ${this.label} has exited`
          : `session ${this.label} is controlled by another tend server`);
    }
    return this.holder;
  }

  get label(): string {
    return this.record.name ? `:${this.record.name}` : this.record.id;
  }

  /** Bytes for the program, queued; for the screen's own answers to queries. Scripts and viewers use inputAt(). */
  input(bytes: Uint8Array): void {
    // Copied now, not once the hand-over is done: by then the caller may have reused its buffer.
    const copy = this.handover === null ? bytes : bytes.slice();
    if (this.afterHandover(() => this.input(copy))) return;
    this.requireHolder().input(copy);
  }

  /** Unacknowledged input, when running; during a hand-over it waits for the new holder. */
  private plainInput(bytes: Uint8Array): void {
    const copy = this.handover === null ? bytes : bytes.slice();
    if (this.afterHandover(() => this.plainInput(copy))) return;
    this.holder?.input(copy);
  }

  /**
   * During a hand-over a control waits for the new holder: true when `run` was
   * put off (it then runs only if the session is still running).
   */
  private afterHandover(run: () => void): boolean {
    if (this.handover === null) return false;
    void this.handover.then(() => {
      if (this._status !== 'running') return;
      try {
        run();
      } catch (err) {
        this.deps.log.warn(`session ${this.id}: a control put off by the holder's hand-over failed: ${(err as Error).message}`);
      }
    });
    return true;
  }

  /**
   * A writer's bytes at..at+n-1 for the program (see input/durable-input.ts): resolves
   * with the writer's count the holder has once it covers them; rejects with
   * InputNotTakenError (how much was taken) if the holder goes first, or
   * InputHoleError for a start past what the holder has. While the
   * session's agent sleeps or wakes, the bytes wait for it to be ready.
   */
  inputAt(writer: Uint8Array, at: number, data: Uint8Array, opts: { pastAgentGate?: boolean } = {}): Promise<number> {
    if (this.handover !== null) {
      const copy = data.slice();
      return this.handover.then(() => this.inputAt(writer, at, copy, opts));
    }
    this.requireHolder();
    // The agent's own (re)start is typed past the gate it would otherwise wait at.
    const gate = opts.pastAgentGate === true ? null : this.agent?.inputGate() ?? null;
    if (gate === null) return this.countInFlight(this.durableInput!.write(writer, at, data));
    return gate.then(() => {
      if (this.handover !== null) return this.inputAt(writer, at, data, { pastAgentGate: true });
      this.requireHolder();
      return this.countInFlight(this.durableInput!.write(writer, at, data));
    });
  }

  private countInFlight<T>(write: Promise<T>): Promise<T> {
    this.inputsInFlight++;
    return write.finally(() => this.inputsInFlight--);
  }

  /** How many of a writer's bytes the session's holder has taken. */
  inputTaken(writer: Uint8Array): Promise<number> {
    if (this.handover !== null) return this.handover.then(() => this.inputTaken(writer));
    this.requireHolder();
    return this.durableInput!.takenBy(writer);
  }

  /**
   * Who holds the terminal now, from a fresh holder STATE: the PTY's
   * foreground process group and the session's own process (its shell).
   * `await` types only when they are the same.
   */
  async foreground(): Promise<{ pgid: number; childPid: number }> {
    if (this.handover !== null) await this.handover;
    const state = await this.requireHolder().state();
    return { pgid: state.fgPgid, childPid: state.childPid };
  }

  resize(cols: number, rows: number): void {
    if (this.afterHandover(() => this.resize(cols, rows))) return;
    const holder = this.requireHolder();
    if (cols === this._screen.cols && rows === this._screen.rows) return;
    // Journalled first (synchronous): a server killed any time after the holder
    // is told still knows at which byte the screen changed size.
    if (this.record.generation !== null) this.journalSize(this.record.generation, this.fedOffset, cols, rows);
    this._screen.resize(cols, rows);
    holder.resize(cols, rows);
    this.persist('its size', (store) => store.updateSession(this.id, { cols, rows }));
    // Whoever asked (a viewer through the size policy, or the API): every viewer follows.
    this.viewers.ptyResized();
  }

  signal(signo: number): void {
    if (this.afterHandover(() => this.signal(signo))) return;
    this.requireHolder().signal(signo);
  }

  // ---- the size journal -------------------------------------------------------

  /** Records that the screen takes this size from holder offset `offset` on. */
  private journalSize(generation: string, offset: number, cols: number, rows: number): void {
    if (this.deps.store.readOnly) return;
    this.persist('its size change', (store) => store.sizes.record({ sessionId: this.id, generation, offset, cols, rows }));
  }

  /** This generation's journalled sizes, or none when the store cannot say. */
  private journalledSizes(generation: string): JournalledSizeChange[] {
    try {
      return this.deps.store.sizes.entries(this.id, generation);
    } catch (err) {
      this.deps.log.warn(`session ${this.id}: could not read its size journal (${(err as Error).message}); replaying at the holder's size`);
      return [];
    }
  }

  private resizeScreenOnly(cols: number, rows: number): void {
    if (cols !== this._screen.cols || rows !== this._screen.rows) this._screen.resize(cols, rows);
  }

  /**
   * After a recovery's replay: the journalled sizes that fell at its very end
   * apply now, and a screen still not at the holder's size (a journal that
   * missed a change) takes it here, journalled so the next recovery agrees.
   */
  private settleSizeAfterReplay(cols: number, rows: number): void {
    const rest = this.pendingSizes.splice(0);
    for (const e of rest) this.resizeScreenOnly(e.cols, e.rows);
    if (this._screen.cols === cols && this._screen.rows === rows) return;
    if (this.record.generation !== null) this.journalSize(this.record.generation, this.fedOffset, cols, rows);
    this._screen.resize(cols, rows);
  }

  redraw(): void {
    if (this.afterHandover(() => this.redraw())) return;
    this.requireHolder().redraw();
  }

  rename(name: string | null): void {
    this.persist('its name', (store) => store.updateSession(this.id, { name }));
    this.record = { ...this.record, name };
  }

  /** Ends the program (if running) and forgets the session. */
  async kill(): Promise<void> {
    // First, before any wait: a checkpoint asked for after this (the exit's, a scheduled one, one
    // whose snapshot is still being cut) would write the files the writer is about to remove.
    this.forgotten = true;
    this.schedule.dispose();
    if (this.handover !== null) await this.handover;
    if (this._status === 'running' && this.holder) {
      const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
      this.holder.kill();
      await Promise.race([exited, new Promise((r) => setTimeout(r, KILL_WAIT_MS).unref())]);
    }
    // An ended program's holder still waiting for an upgrade's verdict: nobody will want it now.
    this.letHolderGo?.();
    this.persist('its end', (store) => store.markDisposed(this.id)); // its size journal goes with it
    await this.deps.checkpoints.remove(this.id);
    this.dispose();
  }

  /** Starts a new shell in the last cwd of a cold or exited session, below its old screen. */
  async revive(shellArgv: string[]): Promise<void> {
    if (this._status === 'running') throw new SessionStateError(this, `session ${this.label} is running; nothing to revive`);
    if (this._status === 'elsewhere') throw new SessionStateError(this, `session ${this.label} is controlled by another tend server`);
    const cwd = this._screen.cwd ?? this.record.cwd;
    this.record = { ...this.record, exitCode: null, exitSignal: null, endedAt: null, argv: shellArgv };
    await this.launchHolder(shellArgv, cwd, this.record.env, { shellIntegration: true });
  }

  private async handleExit(holderCode: number | null, holderSignal: number | null): Promise<void> {
    const endedAt = Date.now();
    // The holder says −1 for the code of a signal death: recorded as null, so no one reads it as the program's code.
    const { code, signal } = exitStatusOf(holderCode, holderSignal);
    this.record = { ...this.record, exitCode: code, exitSignal: signal, endedAt };
    this._status = 'exited';
    this.persist('its exit', (store) => store.markExited(this.id, { code, signal, endedAt }));
    await this.checkpoint();
    // Each viewer gets its last output first (one paused for acks, or being sent a snapshot, waits for it), then EXIT.
    this.viewers.endAll((channel) => ({ type: 'exit', channel, code: code ?? -1, signal: signal ?? 0 }), CloseReason.SESSION_ENDED, 'the program exited');
    // Recorded: the holder may go now, or once an upgrade checking this server keeps it (holder-release.ts).
    const holder = this.holder;
    if (holder) {
      const letGo = () => {
        if (!holder.isClosed) holder.kill();
      };
      this.letHolderGo = (this.deps.holderRelease ?? releaseAtOnce).letGo(letGo);
    }
    for (const w of this.exitWaiters.splice(0)) w();
  }

  private handleHolderClosed(holder: HolderConnection): void {
    if (this.holder !== holder || this.handover !== null) return; // a hand-over closes it on purpose
    this.holderGone('its holder went away without an exit status');
  }

  /** The holder is gone and told no exit status (`why`, for the log): a running session is cold. */
  private holderGone(why: string): void {
    this.holder = null;
    this.durableInput = null;
    if (this._status === 'running') {
      this.deps.log.warn(`session ${this.id}: ${why}; the session is cold`);
      this.becomeCold();
      this.viewers.endAll(null, CloseReason.SESSION_ENDED, 'the holder went away');
      void this.checkpoint();
    }
    for (const w of this.exitWaiters.splice(0)) w();
  }

  private becomeCold(): void {
    this._status = 'cold';
    this._screen.write(new TextEncoder().encode(RESTORED_SEPARATOR), { live: false });
    this.persist('that it is cold', (store) => store.markCold(this.id));
  }

  // ---- checkpoints -----------------------------------------------------------

  /** Writes a checkpoint of the screen and the offset it covers. */
  async checkpoint(): Promise<void> {
    if (this.isDisposed || this.forgotten || this.record.generation === null) return;
    const offset = this.fedOffset;
    const generation = this.record.generation;
    // Read in the same turn as the offset: every resize journalled so far is in this checkpoint's screen.
    const sizeJournalSeq = this.lastJournalSeq();
    let cut: Awaited<ReturnType<HostedScreen['checkpoint']>>;
    try {
      // The live rows only: the history goes to its own file, only the blocks sealed since the last checkpoint.
      cut = await this._screen.checkpoint();
    } catch (err) {
      if (this.isDisposed) return;
      this.deps.log.error(`session ${this.id}: snapshot failed`, err);
      return;
    }
    // Killed while the snapshot was cut: the session's files are being removed, and stay removed.
    if (this.isDisposed || this.forgotten) return;
    const { snapshot, commands, history } = cut;
    const cp: Checkpoint = {
      sessionId: this.id,
      generation,
      offset,
      cols: snapshot.cols,
      rows: snapshot.rows,
      createdAt: Date.now(),
      meta: {
        cwd: this._screen.cwd,
        title: this._screen.title,
        degraded: this._degraded,
        commands,
        snapshot: { ...snapshot, data: undefined },
        history: history.state,
        ...(sizeJournalSeq === null ? {} : { sizeJournalSeq }),
        windows: this.viewers.windowsHeld,
      },
      screen: snapshot.data,
    };
    await this.deps.checkpoints.write({ ...cp, history: { epoch: history.epoch, blocks: history.blocks } });
    // The journal rows this checkpoint covers are needed no more, but the size in effect at it.
    if (sizeJournalSeq !== null && !this.deps.store.readOnly) this.persist('its size journal', (store) => store.sizes.prune(this.id, generation, sizeJournalSeq));
    this.persist('its title and cwd', (store) =>
      store.updateSession(this.id, { lastOutputAt: this.record.lastOutputAt, title: this._screen.title, cwd: this._screen.cwd ?? this.record.cwd }));
  }

  /** null when the store cannot say: the checkpoint then names no journal row, and recovery goes by offsets. */
  private lastJournalSeq(): number | null {
    try {
      return this.deps.store.sizes.lastSeq(this.id);
    } catch {
      return null;
    }
  }

  /**
   * Replaces the holder's binary with the one at `holderPath` (build
   * `build`), keeping the terminal: the holder execs it (protocol 3, EXEC),
   * this server connects again to the same socket, and the stream goes on
   * from the byte the screen has. Input and controls wait meanwhile; durable
   * writes already sent are acknowledged first (the new holder has the
   * writers' counts, but not the old connection's unsent answers).
   */
  async handOverHolder(holderPath: string, build: string): Promise<HandOverResult> {
    const holder = this.holder;
    if (this._status !== 'running' || holder === null) return { result: 'skipped', reason: 'not-running', message: `the session is ${this._status}` };
    if (this.handover !== null) return { result: 'failed', message: 'a hand-over of this holder is already under way' };
    if (!holder.speaksExec) return { result: 'skipped', reason: 'too-old', message: `its holder speaks protocol ${holder.version}: too old to hand over; it keeps working as it is` };
    const fromBuild = holder.lastState.build ?? 'unknown';
    if (fromBuild === build) return { result: 'skipped', reason: 'same-build', message: `its holder already runs build ${build}` };
    let release!: () => void;
    this.handover = new Promise<void>((resolve) => (release = resolve));
    // Typists come through the server until the new holder is in place.
    this.viewers.updateInputRoutes();
    try {
      const deadlineMs = performance.now() + HANDOVER_INPUT_WAIT_MS;
      while (this.inputsInFlight > 0 && performance.now() < deadlineMs) await new Promise((r) => setTimeout(r, 10));
      if (this.inputsInFlight > 0) return { result: 'failed', message: 'input sent to it is still waiting for the program to read it; try again later' };
      const startedMs = performance.now();
      const outcome = await holder.exec(holderPath);
      if (outcome.outcome === 'refused') return { result: 'failed', message: outcome.reason };
      const next = await reconnectAfterHandover(holder.socketPath, this.record.generation, { readBuffer: HOLDER_READ_BUFFER, timeoutMs: HOLDER_CONNECT_TIMEOUT_MS });
      if ('error' in next) {
        this.holderGone(next.error);
        return { result: 'failed', message: `${next.error}; the session is ${this._status}` };
      }
      this.attachHolder(next.holder, this.fedOffset, { answerReplay: true });
      if (this.holderPaused) next.holder.pause();
      await this.waitReplayEnd();
      const state = next.holder.lastState;
      if (state.cols !== this._screen.cols || state.rows !== this._screen.rows) next.holder.resize(this._screen.cols, this._screen.rows);
      // A connection closed for another reason than the exec finds the old image, still running: the session goes on.
      if (state.build !== build) return { result: 'failed', message: `the holder still runs build ${state.build ?? 'unknown'} (its connection closed before the hand-over)` };
      this.deps.log.info(`session ${this.id}: its holder handed over from build ${fromBuild} to ${build}`);
      return { result: 'upgraded', fromBuild, toBuild: build, stallMs: Math.round(performance.now() - startedMs) };
    } finally {
      this.handover = null;
      release();
      this.viewers.updateInputRoutes();
    }
  }

  /** Detaches from the holder without touching it: the terminal lives on. */
  async shutdown(): Promise<void> {
    this.schedule.dispose();
    this.viewers.rememberAttachedWindows();
    if (this._status === 'running') await this.checkpoint();
    this.dispose();
  }
}

export class SessionStateError extends Error {
  constructor(readonly session: Session, message: string) {
    super(message);
  }
}

interface LoadedCheckpoint {
  screen: HostedScreen;
  checkpoint: Checkpoint | null;
  /** The screen is known to lack output (a ring gap it was saved with, or rows its history file lost). */
  degraded: boolean;
}

function screenOptions(deps: SessionDeps, cols: number, rows: number): HostedScreenOptions {
  return {
    cols,
    rows,
    scrollbackRows: deps.scrollbackRows,
    liveScrollbackRows: deps.liveScrollbackRows,
    historyBytes: deps.historyBytes,
  };
}

/** The history a checkpoint recorded, or null for one written before there was a history. */
function historyStateOf(meta: Record<string, unknown>): HistoryState | null {
  const h = meta.history as Partial<HistoryState> | undefined;
  const ok = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (h === undefined || h === null || typeof h !== 'object' || !ok(h.firstRow) || !ok(h.endRow) || !ok(h.droppedRows) || h.firstRow > h.endRow) return null;
  return { firstRow: h.firstRow, endRow: h.endRow, droppedRows: h.droppedRows, lostRows: ok(h.lostRows) ? h.lostRows : 0 };
}

async function loadCheckpointScreen(deps: SessionDeps, record: SessionRecord): Promise<LoadedCheckpoint> {
  const options = screenOptions(deps, record.cols, record.rows);
  const loaded = await deps.checkpoints.load(record.id);
  if (!loaded.ok) {
    if (loaded.reason !== 'missing') deps.log.warn(`session ${record.id}: checkpoint ${loaded.reason} (${loaded.detail}); replaying from the holder`);
    return { screen: deps.screens.open(options), checkpoint: null, degraded: false };
  }
  const cp = loaded.checkpoint;
  const meta = (cp.meta.snapshot ?? {}) as Partial<ScreenSnapshot>;
  const snapshot = { ...meta, cols: cp.cols, rows: cp.rows, data: cp.screen } as ScreenSnapshot;
  const historyState = historyStateOf(cp.meta);
  try {
    // A checkpoint from before the history holds its whole scrollback in the snapshot: rows past the live ones become history.
    // One with a history holds only live rows: all of them must fit live again (the setting may have shrunk since).
    const live = Math.max(options.liveScrollbackRows ?? DEFAULT_LIVE_SCROLLBACK_ROWS, historyState === null ? 0 : snapshot.scrollbackRows ?? 0);
    const stored = historyState === null ? null : await deps.checkpoints.loadHistory(record.id, historyState.endRow);
    const lostRows = historyState === null || stored === null ? 0 : rowsMissing(stored.blocks, historyState);
    if (lostRows > 0) {
      deps.log.warn(`session ${record.id}: ${lostRows} rows of its scrollback are lost (${stored!.problem || 'its history file lacks them'}); they are counted as dropped and the session is marked incomplete`);
    } else if (stored !== null && stored.problem !== '') {
      deps.log.info(`session ${record.id}: history file: ${stored.problem}; no row the checkpoint counts was in the damaged part`);
    }
    const { screen, historyEpoch } = await deps.screens.restore({
      options: { ...options, liveScrollbackRows: live, cols: cp.cols, rows: cp.rows },
      snapshot,
      archive: historyState === null,
      history: historyState === null || stored === null ? null : { state: historyState, blocks: stored.blocks },
      commands: cp.meta.commands,
    });
    if (stored !== null) deps.checkpoints.adoptHistory(record.id, historyEpoch, stored);
    return { screen, checkpoint: cp, degraded: cp.meta.degraded === true || lostRows > 0 };
  } catch (err) {
    deps.log.warn(`session ${record.id}: checkpoint could not be restored (${(err as Error).message}); replaying from the holder`);
    return { screen: deps.screens.open(options), checkpoint: null, degraded: false };
  }
}

/** The modes a viewer re-asserts after a SNAPSHOT, with the cursor where that snapshot puts it. */
function viewerModes(m: TerminalModes, cursor: { x: number; y: number }): Snapshot['modes'] {
  return {
    cursorX: cursor.x,
    cursorY: cursor.y,
    cursorHidden: !m.cursorVisible,
    altScreen: m.alternateScreen,
    applicationCursorKeys: m.applicationCursorKeys,
    applicationKeypad: m.applicationKeypad,
    bracketedPaste: m.bracketedPaste,
    sendFocus: m.focusReporting,
    originMode: m.originMode,
    insertMode: m.insertMode,
    wraparound: m.autowrap,
    mouseTracking: m.mouseTracking,
    mouseEncoding: m.mouseEncoding,
  };
}
