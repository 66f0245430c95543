// The screen host's side: every session's Screen and CommandIndex, fed and
// read by the operations the server's loop sends (messages.ts). Parsing, the
// fair parse scheduler and the server-wide history budget all live here, in
// one thread, so the server's loop only moves bytes: a key typed in a quiet
// session never waits behind twenty floods being parsed.
import { Screen, SearchStoppedError, textMatcher, type ScreenSnapshot } from '../screen/index.js';
import { openPatternThread } from './pattern-thread.js';
import { SEARCH_TIME_BUDGET_MS } from '../screen/screen-search.js';
import { HistoryBudget } from '../screen/history/budget.js';
import type { HistoryCheckpoint } from '../screen/history/history.js';
import { CommandIndex, commandInfo } from '../commands/index.js';
import { sharedBlock } from '../screen/history/shared-block.js';
import { renderView } from '../screen/view-render.js';
import { LaneReader, type ByteLane } from './byte-lane.js';
import { CopySlabs } from './copy-slabs.js';
import { PaintedWarmer } from './painted-warmer.js';
import {
  PARSED_REPORT_EAGER_BYTES,
  PARSED_REPORT_IDLE_MS,
  PARSED_REPORT_MS,
  STATS_INTERVAL_MS,
  type CallName,
  type HostBatch,
  type HostEvent,
  type HostOp,
  type HostStats,
  type RestoreSpec,
  type ScreenCalls,
} from './messages.js';

interface Entry {
  screen: Screen;
  commands: CommandIndex;
  /** Writes parsed so far (the count the server's side matches its callbacks to). */
  parsed: number;
  /** The screen's top row when its last parsed write was (what "parsed" reports with the count). */
  parsedTopRow: number;
  /** Whether finished commands go out with their output (an await is watching). */
  watched: boolean;
  /** Whether the screen keeps painted lines (once a viewer attached), and paints new ones when output is quiet. */
  warmer: PaintedWarmer;
}

export class ScreenTable {
  private readonly screens = new Map<number, Entry>();
  private readonly budget: HistoryBudget;
  private events: HostEvent[] = [];
  /** "parsed" counts not yet in events, by screen: one event per screen per turn, however many writes. */
  private readonly parsedSince = new Map<number, number>();
  /** Bytes those writes held, all screens together: they set how long the counts may wait. */
  private parsedSinceBytes = 0;
  private posting = false;
  /** Counts wait for this to go alone (see schedulePost), until parsedDue. */
  private parsedTimer: NodeJS.Timeout | null = null;
  private parsedDue = 0;
  /** The history bytes last reported, and the timer that reports a change. */
  private reportedBytes = 0;
  private statsTimer: NodeJS.Timeout | null = null;

  private readonly lane: LaneReader;
  private readonly slabs = new CopySlabs();

  constructor(options: { historyBudgetBytes: number; lane: ByteLane }, private readonly post: (events: HostEvent[]) => void) {
    this.budget = new HistoryBudget(options.historyBudgetBytes);
    this.lane = new LaneReader(options.lane);
  }

  /** Runs one batch from the server's loop, in order. */
  receive(batch: HostBatch): void {
    let laneEnd = -1;
    for (const op of batch.ops) {
      try {
        if (op.op === 'write' && op.lane) laneEnd = op.end;
        this.apply(op, batch.bytes);
      } catch (err) {
        if ('call' in op) this.push(failedEvent(op.call, err));
        else throw err;
      }
    }
    // Every write of the batch is copied out (or its screen is gone): the loop may reuse the space.
    if (laneEnd >= 0) this.lane.release(laneEnd);
  }

  get stats(): HostStats {
    return { historyBytes: this.budget.bytes, historyBudgetBytes: this.budget.limitBytes };
  }

  private apply(op: HostOp, bytes: ArrayBuffer | null): void {
    switch (op.op) {
      case 'open':
        this.add(op.screen, new Screen({ ...op.options, budget: this.budget }), null);
        return;
      case 'restore':
        this.answer(op.call, this.restore(op.screen, op.spec));
        return;
      case 'write': {
        const entry = this.screens.get(op.screen);
        if (entry === undefined) return; // closed meanwhile
        entry.warmer.wrote();
        const data = op.lane ? this.lane.copy(op.start, op.end, this.slabs.take(op.end - op.start)) : new Uint8Array(bytes!, op.start, op.end - op.start);
        entry.screen.write(data, { live: op.live }, () => {
          // Parsed: the terminal keeps none of the bytes it was given.
          if (op.lane) this.slabs.give(data);
          entry.parsed++;
          entry.parsedTopRow = entry.screen.screenTopRow;
          this.parsedSince.set(op.screen, entry.parsed);
          this.parsedSinceBytes += op.end - op.start;
          this.schedulePost();
        });
        return;
      }
      case 'resize':
        this.screens.get(op.screen)?.screen.resize(op.cols, op.rows);
        return;
      case 'watchCommands': {
        const entry = this.screens.get(op.screen);
        if (entry !== undefined) entry.watched = op.watch;
        return;
      }
      case 'close':
        this.close(op.screen);
        return;
      case 'call': {
        const entry = this.screens.get(op.screen);
        if (entry === undefined) throw new Error('the screen is closed');
        this.answer(op.call, this.run(entry, op.call, op.name, op.args));
        return;
      }
    }
  }

  private answer(call: number, result: Promise<unknown>): void {
    result.then(
      (value) => this.push({ ev: 'result', call, value }),
      (err: unknown) => this.push(failedEvent(call, err)),
    );
  }

  private add(id: number, screen: Screen, restored: CommandIndex | null): Entry {
    const entry: Entry = { screen, commands: restored ?? new CommandIndex(screen), parsed: 0, parsedTopRow: screen.screenTopRow, watched: false, warmer: new PaintedWarmer(screen) };
    this.screens.set(id, entry);
    screen.onReply((bytes) => this.push({ ev: 'reply', screen: id, bytes }));
    screen.onTitle((title) => this.push({ ev: 'title', screen: id, title }));
    screen.onCwd((cwd) => this.push({ ev: 'cwd', screen: id, cwd }));
    const commands = entry.commands;
    // Only while an await watches: reading the output costs, and most commands have no one waiting.
    commands.onCommandFinished((command) => {
      if (entry.watched) this.push({ ev: 'finished', screen: id, command: { ...commandInfo(command), output: commands.output(command.number)?.text ?? null } });
    });
    return entry;
  }

  private close(id: number): void {
    const entry = this.screens.get(id);
    if (entry === undefined) return;
    this.screens.delete(id);
    this.parsedSince.delete(id);
    entry.warmer.dispose();
    entry.commands.dispose();
    entry.screen.dispose();
  }

  private async restore(id: number, spec: RestoreSpec): Promise<{ epoch: number; title: string }> {
    const screen = Screen.fromSnapshot(spec.snapshot, { ...spec.options, budget: this.budget, archive: spec.archive });
    try {
      await screen.flush();
      if (spec.history !== null) screen.history.restore(spec.history.blocks.map(sharedBlock), spec.history.state);
      // Before any later byte: the saved rows must mean this buffer's rows.
      const commands = CommandIndex.restore(screen, spec.commands, { rowsDropped: 0 });
      this.add(id, screen, commands);
      // The snapshot's title fired before anyone listened: the loop's handle learns it here.
      return { epoch: screen.history.epoch, title: screen.title };
    } catch (err) {
      screen.dispose();
      throw err;
    }
  }

  private async run(entry: Entry, call: number, name: CallName, args: unknown): Promise<unknown> {
    const { screen, commands } = entry;
    // The server's side runs its own cut callback when this event arrives:
    // every "parsed" before it is of a write the picture holds, none after.
    const cut = (): void => this.push({ ev: 'cut', call });
    switch (name) {
      case 'flush':
        await screen.flush();
        return null;
      case 'modes':
        await screen.flush();
        return screen.modes;
      case 'snapshot': {
        const { scrollbackRows, history, viewer, historyAfterRow } = args as ScreenCalls['snapshot']['args'];
        let at: Omit<ScreenCalls['snapshot']['result'], 'snapshot'> | null = null;
        // (not for `tend screen` or an agent's sleep: a session no viewer attaches to keeps nothing)
        if (viewer === true && scrollbackRows !== 0) entry.warmer.attached();
        const snapshot = await screen.snapshotAsync({
          scrollbackRows,
          history,
          historyAfterRow,
          reusePainted: entry.warmer.keeps,
          onCut: () => {
            cut();
            at = { modes: screen.modes, scrollback: screen.scrollbackShown(screen.scrollbackWanted({ scrollbackRows: scrollbackRows ?? 0, historyAfterRow })) };
          },
        });
        return { snapshot, ...at! };
      }
      case 'view': {
        const size = args as ScreenCalls['view']['args'];
        // From what is parsed now, not after the bytes queued before the call
        // (a flood's parse backlog would hold every repaint back by it): the
        // channel repaints until a view shows the last byte. A screen's worth
        // of cells, so in one go.
        cut();
        return { ...renderView(screen.terminal, size), modes: screen.modes, title: screen.title };
      }
      case 'checkpoint': {
        let commandsJson: unknown = null;
        let history: HistoryCheckpoint | null = null;
        // The live rows only: the history goes to its own file.
        const snapshot: ScreenSnapshot = await screen.snapshotAsync({
          history: false,
          reusePainted: entry.warmer.keeps,
          onCut: () => {
            cut();
            commandsJson = commands.toJSON();
            history = screen.history.checkpoint();
          },
        });
        const h = history as HistoryCheckpoint | null;
        if (h === null) throw new Error('the checkpoint was not cut');
        // Sealed blocks live in shared memory: posting them shares, never copies.
        const blocks = h.blocks.map(({ firstRow, rows, data, starts, links }) => ({ firstRow, rows, data, starts, links }));
        return { snapshot, commands: commandsJson, history: { epoch: h.epoch, state: h.state, blocks } };
      }
      case 'text': {
        const { scrollbackRows, ansi } = args as ScreenCalls['text']['args'];
        const { text, scrollback } = await screen.textAsync({ scrollbackRows, ansi });
        return { text, scrollback, cursor: screen.cursor, cols: screen.cols, rows: screen.rows };
      }
      case 'search': {
        const { query, max, budgetMs } = args as ScreenCalls['search']['args'];
        // A caller's budget counts from now (waiting for a pattern thread spends it too), and can only shorten the screen's own.
        const deadline = budgetMs === undefined ? null : performance.now() + Math.min(budgetMs, SEARCH_TIME_BUDGET_MS);
        const timeLeft = () => (deadline === null ? {} : { budgetMs: Math.max(0, deadline - performance.now()) });
        if (!query.regex) return screen.search(textMatcher(query.pattern, query.ignoreCase), max, timeLeft());
        const pattern = await openPatternThread(query.pattern, query.ignoreCase ? 'iu' : 'u');
        try {
          return await screen.search(pattern, max, timeLeft());
        } finally {
          pattern.dispose();
        }
      }
      case 'olderRows': {
        const { before, snapshotRows, count } = args as ScreenCalls['olderRows']['args'];
        return screen.olderRowsText(before ?? screen.snapshotTopRow(snapshotRows), count);
      }
      case 'commands': {
        await screen.flush(); // the index has then seen every mark written before the call
        const running = commands.current();
        return { commands: commands.list().map(commandInfo), running: running?.number ?? null, atPrompt: commands.atPrompt, continuation: commands.atContinuation };
      }
      case 'commandOutput': {
        await screen.flush();
        return commands.output((args as ScreenCalls['commandOutput']['args']).number);
      }
    }
  }

  private push(event: HostEvent): void {
    // Parsed counts first: whatever happened after a write was parsed comes after its "parsed".
    this.takeCounts();
    this.events.push(event);
    this.schedulePost();
  }

  /** A change in the history's bytes is reported a little later, with whatever else changed by then. */
  private noteStats(): void {
    if (this.statsTimer !== null || this.budget.bytes === this.reportedBytes) return;
    this.statsTimer = setTimeout(() => {
      this.statsTimer = null;
      this.reportedBytes = this.budget.bytes;
      this.push({ ev: 'stats', stats: this.stats });
    }, STATS_INTERVAL_MS);
  }

  /**
   * One message per turn of this thread's loop: posted once the turn's
   * callbacks have run. A turn that only parsed waits for company, up to
   * PARSED_REPORT_MS once a flood's worth was parsed, else up to
   * PARSED_REPORT_IDLE_MS: beside 20 floods a message per turn woke the
   * server's loop ~900 times a second, and in a quiet session once per key
   * typed, for counts nothing was waiting on. Anything else (a call's
   * answer, a cut, a reply) goes at once, with every count before it.
   */
  private schedulePost(): void {
    if (this.posting) return;
    this.posting = true;
    queueMicrotask(() => {
      this.posting = false;
      this.noteStats();
      if (this.events.length === 0) {
        if (this.parsedSince.size > 0) this.postCountsWithin(this.parsedSinceBytes >= PARSED_REPORT_EAGER_BYTES ? PARSED_REPORT_MS : PARSED_REPORT_IDLE_MS);
        return;
      }
      this.flushEvents();
    });
  }

  private postCountsWithin(ms: number): void {
    const due = performance.now() + ms;
    if (this.parsedTimer !== null) {
      if (this.parsedDue <= due) return;
      clearTimeout(this.parsedTimer);
    }
    this.parsedDue = due;
    this.parsedTimer = setTimeout(() => {
      this.parsedTimer = null;
      this.flushEvents();
    }, ms);
  }

  /** Moves the counts waiting into the events, which keeps them before whatever follows. */
  private takeCounts(): void {
    for (const [screen, count] of this.parsedSince) this.events.push({ ev: 'parsed', screen, count, topRow: this.screens.get(screen)?.parsedTopRow ?? 0 });
    this.parsedSince.clear();
    this.parsedSinceBytes = 0;
  }

  private flushEvents(): void {
    if (this.parsedTimer !== null) {
      clearTimeout(this.parsedTimer);
      this.parsedTimer = null;
    }
    this.takeCounts();
    if (this.events.length === 0) return;
    const events = this.events;
    this.events = [];
    this.post(events);
  }
}

/** A call's failure as the server's side learns it; a search that gave up says why, for the API's answer. */
function failedEvent(call: number, err: unknown): HostEvent {
  const message = err instanceof Error ? err.message : String(err);
  return err instanceof SearchStoppedError ? { ev: 'failed', call, message, code: err.reason } : { ev: 'failed', call, message };
}
