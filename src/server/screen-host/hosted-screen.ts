// One session's screen as the server's loop sees it: it lives in the screen
// host's thread (screen-table.ts); this handle feeds it, knows what is cheap
// to know here (size, title, cwd, bytes not yet parsed) and asks for the
// rest. Every read but view() waits for the bytes written before it to be parsed.
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import { Emitter } from '../../common/event.js';
import type { ScreenSnapshot, ScreenText, SearchResult, TerminalModes } from '../screen/index.js';
import type { CommandsState, FinishedCommand, HostOp, ScreenCalls, SearchQuery } from './messages.js';

/** What HostedScreen needs of the host (screen-host.ts). */
export interface ScreenHostLink {
  send(op: HostOp): void;
  sendWrite(screen: number, bytes: Uint8Array, live: boolean): void;
  call<T>(op: Omit<Extract<HostOp, { op: 'call' }>, 'call'>, onCut?: () => void): Promise<T>;
  forget(screen: number): void;
}

type Result<N extends keyof ScreenCalls> = ScreenCalls[N]['result'];

export class HostedScreen extends DisposableBase {
  private size: { cols: number; rows: number };
  private currentTitle = '';
  private currentCwd: string | null;
  /** Writes not yet parsed, oldest first: their lengths and callbacks. */
  private readonly unparsed: Array<{ length: number; done: (() => void) | undefined }> = [];
  private parsedCount = 0;
  private writeCount = 0;
  private unparsedBytes = 0;
  private readonly replies = new Emitter<Uint8Array>();
  private readonly titles = new Emitter<string>();
  private readonly parsedTops = new Emitter<number>();
  private readonly finished = new Emitter<FinishedCommand>();
  /** The session's command index, kept beside the screen in the host. */
  readonly commands: HostedCommands;

  constructor(private readonly host: ScreenHostLink, readonly id: number, cols: number, rows: number, cwd: string | null) {
    super();
    this.size = { cols, rows };
    this.currentCwd = cwd;
    this.commands = new HostedCommands(this, this.finished);
    this.register(toDisposable(() => {
      this.replies.dispose();
      this.titles.dispose();
      this.parsedTops.dispose();
      this.finished.dispose();
      this.unparsed.length = 0;
      host.forget(id);
    }));
  }

  /** The size last asked for (the PTY's); the screen takes it once the bytes written before it are parsed. */
  get cols(): number {
    return this.size.cols;
  }
  get rows(): number {
    return this.size.rows;
  }
  get title(): string {
    return this.currentTitle;
  }
  get cwd(): string | null {
    return this.currentCwd;
  }
  /** Bytes written and not yet parsed. */
  get backlogBytes(): number {
    return this.unparsedBytes;
  }

  /**
   * Feeds PTY bytes (copied: the caller may reuse them). `live: false` for
   * replayed bytes, whose queries are not answered. `done` runs once these
   * bytes are parsed.
   */
  write(bytes: Uint8Array | string, options: { live: boolean }, done?: () => void): void {
    if (this.isDisposed) return;
    const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
    this.writeCount++;
    this.unparsed.push({ length: data.length, done });
    this.unparsedBytes += data.length;
    this.host.sendWrite(this.id, data, options.live);
  }

  resize(cols: number, rows: number): void {
    if (this.isDisposed) return;
    this.size = { cols, rows };
    this.host.send({ op: 'resize', screen: this.id, cols, rows });
  }

  /** Resolves once everything written so far is parsed. */
  async flush(): Promise<void> {
    await this.ask('flush', null);
  }

  modes(): Promise<TerminalModes> {
    return this.ask('modes', null);
  }

  /** A snapshot of everything written so far; `onCut` runs here when its picture is fixed (the writes parsed by then are in it). */
  snapshot(options: ScreenCalls['snapshot']['args'], onCut?: () => void): Promise<Result<'snapshot'>> {
    return this.ask('snapshot', options, onCut);
  }

  /**
   * The screen as a `cols` × `rows` terminal shows it (cropped or padded),
   * from what the host has parsed by then (not waiting for every write
   * before it); `onCut` runs when that picture is fixed, as for snapshot().
   */
  view(size: { cols: number; rows: number }, onCut?: () => void): Promise<Result<'view'>> {
    return this.ask('view', size, onCut);
  }

  /** The live rows, the command index and the history at one cut, for a checkpoint. */
  checkpoint(onCut?: () => void): Promise<Result<'checkpoint'>> {
    return this.ask('checkpoint', null, onCut);
  }

  text(options: { scrollbackRows: number; ansi: boolean }): Promise<ScreenText & { cursor: { x: number; y: number; visible: boolean }; cols: number; rows: number }> {
    return this.ask('text', options);
  }

  /** The last `max` lines that match; stops with search_too_long after `budgetMs` (default: the screen's own budget). */
  search(query: SearchQuery, max: number, budgetMs?: number): Promise<SearchResult> {
    return this.ask('search', budgetMs === undefined ? { query, max } : { query, max, budgetMs });
  }

  /** Rows older than `before` (null: older than a snapshot with `snapshotRows` of scrollback shows), as ANSI lines. */
  olderRows(before: number | null, snapshotRows: number, count: number): Promise<Result<'olderRows'>> {
    return this.ask('olderRows', { before, snapshotRows, count });
  }

  onReply(listener: (bytes: Uint8Array) => void): Disposable {
    return this.replies.on(listener);
  }

  onTitle(listener: (title: string) => void): Disposable {
    return this.titles.on(listener);
  }

  /**
   * After the callbacks of writes the host reports parsed: the screen's top
   * row at the last of them (rows above it had scrolled off by its end).
   */
  onParsed(listener: (topRow: number) => void): Disposable {
    return this.parsedTops.on(listener);
  }

  /** For HostedCommands. */
  ask<N extends keyof ScreenCalls>(name: N, args: ScreenCalls[N]['args'], onCut?: () => void): Promise<Result<N>> {
    if (this.isDisposed) return Promise.reject(new Error('tend: screen disposed'));
    return this.host.call<Result<N>>({ op: 'call', screen: this.id, name, args }, onCut);
  }

  /** For HostedCommands. */
  watchCommands(watch: boolean): void {
    if (!this.isDisposed) this.host.send({ op: 'watchCommands', screen: this.id, watch });
  }

  // ---- events from the host ------------------------------------------------

  parsedUpTo(count: number, topRow: number): void {
    const before = this.parsedCount;
    while (this.parsedCount < count && this.unparsed.length > 0) {
      this.parsedCount++;
      const w = this.unparsed.shift()!;
      this.unparsedBytes -= w.length;
      w.done?.();
    }
    if (this.parsedCount === count && this.parsedCount !== before) this.parsedTops.fire(topRow);
  }

  reply(bytes: Uint8Array): void {
    this.replies.fire(bytes);
  }

  titleChanged(title: string): void {
    this.currentTitle = title;
    this.titles.fire(title);
  }

  cwdChanged(cwd: string): void {
    this.currentCwd = cwd;
  }

  commandFinished(command: FinishedCommand): void {
    this.finished.fire(command);
  }
}

/**
 * What the shell ran, from its marks (the CommandIndex beside the screen in
 * the host). Reads wait for the bytes written before them to be parsed.
 */
export class HostedCommands {
  constructor(private readonly screen: HostedScreen, private readonly finished: Emitter<FinishedCommand>) {}

  state(): Promise<CommandsState> {
    return this.screen.ask('commands', null);
  }

  /** The number of the last command started, 0 if none. */
  async lastNumber(): Promise<number> {
    const { commands } = await this.state();
    return commands[commands.length - 1]?.number ?? 0;
  }

  /** The command's output as it stands in the buffer (null: unknown, or scrolled out). */
  output(number: number): Promise<{ text: string; complete: boolean } | null> {
    return this.screen.ask('commandOutput', { number });
  }

  /**
   * Fires at a command's end mark with its output as it stood then. While
   * any listener is subscribed, the host reads each finished command's
   * output; the subscription reaches the host before any byte written after it.
   */
  onCommandFinished(listener: (command: FinishedCommand) => void): Disposable {
    if (this.finished.size === 0) this.screen.watchCommands(true);
    const sub = this.finished.on(listener);
    return toDisposable(() => {
      sub.dispose();
      if (this.finished.size === 0) this.screen.watchCommands(false);
    });
  }
}

export type { ScreenSnapshot };
