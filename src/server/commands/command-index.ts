// The commands a session's shell ran, read from the marks its shell
// integration writes (see src/shell-integration/): what was run, where, when,
// with what exit status, and where its output sits in the terminal buffer.
//
// The index listens to the terminal's parser, so a mark is seen at the exact
// point of the byte stream it was written at, and every place is an xterm
// marker that moves with its line, frozen to the row's number when the row
// moves to the history (buffer-position.ts), so output that scrolled far is
// still read exactly. The marks come from whatever runs in the terminal, so
// none is trusted: a mark out of place is ignored (D without C, B/C/E while a
// command runs, marks on the alternate screen), lengths are bounded, and a
// place whose row is no longer held (erased, dropped by a budget) reads as
// null — never as the rows that came after it.
//
// The state machine, per prompt:
//   A   prompt starts   — while a command runs, A also ends it (its D was
//                          lost: the shell died or a nested shell took over),
//                          with exit code null
//   B   input starts
//   E   the command line (OSC 633;E)
//   F   a continuation prompt (OSC 633;F, the shell's PS2) after B: the line
//       sent so far is an unfinished command (an open quote, `do`, a trailing
//       `|`) and the shell waits for the rest, so it is not at its prompt
//       until the next C, D or A
//   C   output starts   — the command is recorded and onCommandStarted fires
//   D   command ends    — exit code, end place, onCommandFinished fires
import type { Terminal } from '@xterm/headless';
import { DisposableBase, toDisposable, type Disposable } from '../../common/lifecycle.js';
import { Emitter } from '../../common/event.js';
import {
  freezeIfLeaving,
  normalCursor,
  positionAtCursor,
  positionAtRow,
  positionRow,
  readBufferText,
  resolvePosition,
  resolveRowOffset,
  terminalRows,
  type BufferCell,
  type BufferPosition,
  type BufferRows,
} from './buffer-position.js';
import {
  COMMAND_INDEX_JSON_VERSION,
  parseCommandIndexJson,
  type CommandIndexJson,
  type SavedPlace,
} from './command-index-json.js';
import { MAX_COMMAND_LINE_CHARS, parseCwdUrl, parseFinalTermMark, parseVsCodeMark, type ShellMark } from './shell-marks.js';

/** The index forgets the oldest commands beyond this many (their numbers are not reused). */
export const MAX_COMMANDS_KEPT = 10_000;

const OSC_CWD = 7;
const OSC_FINAL_TERM = 133;
const OSC_VS_CODE = 633;

export interface IndexedCommand {
  /** 1-based, in the order the commands started, per session. */
  readonly number: number;
  /** From OSC 633;E when the shell sent it, else read off the screen between B and C ('' if neither). */
  readonly commandLine: string;
  /** The cwd last reported before the command started, or null if none was. */
  readonly cwd: string | null;
  /** Milliseconds since the epoch, at C and at D. */
  readonly startedAt: number;
  readonly endedAt: number | null;
  /** null while running, or when the shell reported none (or an absurd one). */
  readonly exitCode: number | null;
  readonly promptStart: BufferPosition | null;
  readonly outputStart: BufferPosition | null;
  readonly outputEnd: BufferPosition | null;
}

export interface CommandOutput {
  text: string;
  /** False while the command is still running (the text then runs up to the cursor). */
  complete: boolean;
}

/** The index's mutable view of a command; handed out as IndexedCommand. */
interface CommandEntry {
  number: number;
  commandLine: string;
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  promptStart: BufferPosition | null;
  outputStart: BufferPosition | null;
  outputEnd: BufferPosition | null;
}

/** What is known of the prompt being edited, before its C. */
interface PendingPrompt {
  promptStart: BufferPosition | null;
  inputStart: BufferPosition | null;
  commandLine: string | null;
  /** A continuation prompt followed this prompt's B: the shell waits for the rest of a command. */
  continuation: boolean;
}

interface UnplacedPlaces {
  commands: Map<number, { promptStart: SavedPlace | null; outputStart: SavedPlace | null; outputEnd: SavedPlace | null }>;
  pending: { promptStart: SavedPlace | null; inputStart: SavedPlace | null };
}

export interface RestoreOptions extends CommandIndexOptions {
  /**
   * For an index saved before rows were numbered (version 1): how many of
   * the oldest buffer rows the restored screen left out (0 when it holds the
   * whole scrollback).
   */
  rowsDropped?: number;
}

export interface CommandIndexOptions {
  /** The clock for startedAt/endedAt; Date.now unless a test needs another. */
  now?: () => number;
}

export class CommandIndex extends DisposableBase {
  private readonly onStarted = new Emitter<IndexedCommand>();
  private readonly onFinished = new Emitter<IndexedCommand>();
  private readonly now: () => number;
  private commands: CommandEntry[] = [];
  private running: CommandEntry | null = null;
  private pending: PendingPrompt = emptyPrompt();
  private cwd: string | null = null;
  private lastNumber = 0;
  // Saved places not yet turned into markers: a restore while the alternate
  // screen is active waits for the normal buffer (markers cannot be made
  // there before). Rows are already shifted for the rows the checkpoint dropped.
  private unplaced: UnplacedPlaces | null = null;
  private unplacedWait: Disposable | null = null;
  /** Commands before this index have no live marker left (all frozen or gone). */
  private liveFrom = 0;
  readonly terminal: Terminal;
  private readonly rows: BufferRows;

  /** Indexes a screen's rows (history included), or a bare terminal's. */
  constructor(source: Terminal | BufferRows, options: CommandIndexOptions = {}) {
    super();
    this.rows = 'lineAt' in source ? source : terminalRows(source);
    this.terminal = this.rows.terminal;
    const terminal = this.terminal;
    this.now = options.now ?? Date.now;
    const leaving = this.rows.onRowsLeaving?.((event) => this.freezeLeaving(event));
    if (leaving !== undefined) this.register(leaving);
    // Each handler observes and reports "not handled" only for payloads it
    // could not read, so another handler registered for the same OSC (or
    // xterm's own) still gets those. OSC 7 is passed on always: the cwd is
    // of interest to more than this index.
    const parser = terminal.parser;
    this.register(parser.registerOscHandler(OSC_FINAL_TERM, (data) => this.onMark(parseFinalTermMark(data))));
    this.register(parser.registerOscHandler(OSC_VS_CODE, (data) => this.onMark(parseVsCodeMark(data))));
    this.register(
      parser.registerOscHandler(OSC_CWD, (data) => {
        this.onMark(parseCwdUrl(data));
        return false;
      }),
    );
    // RIS (ESC c) replaces the buffer without disposing its markers: every
    // place would then point into rows that belong to what comes next.
    this.register(
      parser.registerEscHandler({ final: 'c' }, () => {
        this.forgetPlaces();
        return false;
      }),
    );
    this.register(toDisposable(() => this.forgetPlaces()));
    this.register(this.onStarted);
    this.register(this.onFinished);
  }

  /** Fires at C, when a command starts. */
  onCommandStarted(listener: (command: IndexedCommand) => void): Disposable {
    return this.onStarted.on(listener);
  }

  /** Fires at D (or at an A that ends a command whose D was lost). */
  onCommandFinished(listener: (command: IndexedCommand) => void): Disposable {
    return this.onFinished.on(listener);
  }

  /** Oldest first. */
  list(): readonly IndexedCommand[] {
    return [...this.commands];
  }

  get(number: number): IndexedCommand | undefined {
    // Numbers are consecutive, so the entry's index follows from the first one's number.
    const first = this.commands[0];
    if (first === undefined || !Number.isInteger(number)) return undefined;
    const entry = this.commands[number - first.number];
    return entry?.number === number ? entry : undefined;
  }

  last(): IndexedCommand | undefined {
    return this.commands[this.commands.length - 1];
  }

  /** The command running now (after its C, before its D), if any. */
  current(): IndexedCommand | undefined {
    return this.running ?? undefined;
  }

  /**
   * True between a prompt's B and its C: the shell is waiting for a command
   * line (as far as its marks tell), so input typed now is that line.
   */
  get atPrompt(): boolean {
    return this.running === null && this.pending.inputStart !== null && !this.pending.continuation;
  }

  /**
   * True at a continuation prompt: the line typed at the prompt left a
   * command unfinished, so input typed now becomes part of that command.
   */
  get atContinuation(): boolean {
    return this.running === null && this.pending.continuation;
  }

  /** The latest cwd the shell reported. */
  get currentCwd(): string | null {
    return this.cwd;
  }

  /**
   * The command's output exactly as it stands in the buffer between its C and
   * D marks (up to the cursor while it runs); null if the command is unknown
   * or any of its output has left the buffer.
   */
  output(number: number): CommandOutput | null {
    const command = this.get(number);
    if (command === undefined) return null;
    // Before a deferred restore has made its markers, the saved rows are
    // still exact: the normal buffer does not change under the alternate screen.
    const saved = this.unplaced?.commands.get(number);
    const resolve = (place: BufferPosition | null, savedPlace: SavedPlace | null | undefined): BufferCell | null => {
      if (saved !== undefined) return savedPlace ? resolveRowOffset(this.rows, savedPlace.row, savedPlace.offset) : null;
      return place === null ? null : resolvePosition(this.rows, place);
    };
    const from = resolve(command.outputStart, saved?.outputStart);
    if (from === null) return null;
    const isRunning = command === this.running;
    const hasEnd = saved !== undefined ? saved.outputEnd !== null : command.outputEnd !== null;
    let to: BufferCell | null;
    if (hasEnd) to = resolve(command.outputEnd, saved?.outputEnd);
    else if (isRunning) to = normalCursor(this.rows);
    else to = null; // finished where no place could be taken (the alternate screen)
    if (to === null) return null;
    const text = readBufferText(this.rows, from, to);
    return text === null ? null : { text, complete: !isRunning };
  }

  /** The index as plain data for a checkpoint; see command-index-json.ts for what a row means. */
  toJSON(): CommandIndexJson {
    const buffer = this.terminal.buffer.normal;
    const unplaced = this.unplaced;
    const save = (place: BufferPosition | null): SavedPlace | null => {
      const row = place === null ? null : positionRow(this.rows, place);
      return row === null ? null : { row, offset: place!.offset };
    };
    return {
      version: COMMAND_INDEX_JSON_VERSION,
      rowBase: this.rows.rowBase,
      bufferLength: buffer.length,
      baseY: buffer.baseY,
      cwd: this.cwd,
      lastNumber: this.lastNumber,
      commands: this.commands.map((c) => {
        const waiting = unplaced?.commands.get(c.number);
        return {
          number: c.number,
          commandLine: c.commandLine,
          cwd: c.cwd,
          startedAt: c.startedAt,
          endedAt: c.endedAt,
          exitCode: c.exitCode,
          running: c === this.running,
          promptStart: waiting?.promptStart ?? save(c.promptStart),
          outputStart: waiting?.outputStart ?? save(c.outputStart),
          outputEnd: waiting?.outputEnd ?? save(c.outputEnd),
        };
      }),
      pending: {
        promptStart: unplaced?.pending.promptStart ?? save(this.pending.promptStart),
        inputStart: unplaced?.pending.inputStart ?? save(this.pending.inputStart),
        commandLine: this.pending.commandLine,
        continuation: this.pending.continuation,
      },
    };
  }

  /**
   * An index for a terminal restored from the same checkpoint as `json`. Call
   * it right after the saved screen is written into the terminal and before
   * any later bytes are, so saved rows still mean the same rows. Data that is
   * not a saved index gives an empty index (numbering from 1).
   */
  static restore(source: Terminal | BufferRows, json: unknown, options: RestoreOptions = {}): CommandIndex {
    const index = new CommandIndex(source, options);
    const saved = parseCommandIndexJson(json);
    if (saved !== null) index.load(saved, options.rowsDropped ?? 0);
    return index;
  }

  private load(saved: CommandIndexJson, rowsDropped: number): void {
    // Version 2 saves row numbers; version 1 saved rows counted from the top
    // of the buffer, which restored is the first row held.
    const shift = saved.version === 1
      ? (place: SavedPlace | null): SavedPlace | null =>
        place === null || place.row < rowsDropped ? null : { row: place.row - rowsDropped + this.rows.firstRow, offset: place.offset }
      : (place: SavedPlace | null): SavedPlace | null => place;
    const kept = saved.commands.slice(-MAX_COMMANDS_KEPT);
    this.lastNumber = saved.lastNumber;
    this.cwd = saved.cwd;
    this.unplaced = {
      commands: new Map(
        kept.map((c) => [c.number, { promptStart: shift(c.promptStart), outputStart: shift(c.outputStart), outputEnd: shift(c.outputEnd) }]),
      ),
      pending: { promptStart: shift(saved.pending.promptStart), inputStart: shift(saved.pending.inputStart) },
    };
    this.commands = kept.map((c) => ({
      number: c.number,
      commandLine: c.commandLine,
      cwd: c.cwd,
      startedAt: c.startedAt,
      endedAt: c.endedAt,
      exitCode: c.exitCode,
      promptStart: null,
      outputStart: null,
      outputEnd: null,
    }));
    const last = kept[kept.length - 1];
    this.running = last?.running === true ? this.commands[this.commands.length - 1]! : null;
    this.pending = { promptStart: null, inputStart: null, commandLine: saved.pending.commandLine, continuation: saved.pending.continuation === true };
    if (this.terminal.buffer.active.type === 'normal') {
      this.placeSaved();
      return;
    }
    const wait = this.terminal.buffer.onBufferChange((buffer) => {
      if (buffer.type === 'normal') this.placeSaved();
    });
    this.unplacedWait = this.register(toDisposable(() => wait.dispose()));
  }

  private placeSaved(): void {
    const unplaced = this.unplaced;
    this.unplaced = null;
    this.unplacedWait?.dispose();
    this.unplacedWait = null;
    if (unplaced === null) return;
    const place = (saved: SavedPlace | null): BufferPosition | null =>
      saved === null ? null : positionAtRow(this.rows, saved.row, saved.offset);
    for (const entry of this.commands) {
      const saved = unplaced.commands.get(entry.number);
      if (saved === undefined) continue;
      entry.promptStart = place(saved.promptStart);
      entry.outputStart = place(saved.outputStart);
      entry.outputEnd = place(saved.outputEnd);
    }
    this.pending.promptStart = place(unplaced.pending.promptStart);
    this.pending.inputStart = place(unplaced.pending.inputStart);
  }

  /** Returns true when the mark was read (so the OSC counts as handled). */
  private onMark(mark: ShellMark | null): boolean {
    if (mark === null || this.isDisposed) return false;
    // Places can only be taken in the normal buffer, and a prompt drawn on
    // the alternate screen is not the session's shell prompt. A D is still
    // honoured, so a command that ends there is not left running.
    const onAlternate = this.terminal.buffer.active.type === 'alternate';
    if (onAlternate && (mark.kind === 'prompt-start' || mark.kind === 'input-start' || mark.kind === 'output-start' || mark.kind === 'continuation-start')) return true;
    switch (mark.kind) {
      case 'prompt-start':
        if (this.running !== null) this.finish(null);
        this.replacePending({ promptStart: positionAtCursor(this.rows), inputStart: null, commandLine: null, continuation: false });
        break;
      case 'input-start':
        if (this.running !== null) break;
        this.pending.inputStart?.marker?.dispose();
        this.pending.inputStart = positionAtCursor(this.rows);
        break;
      case 'command-line':
        if (this.running === null) this.pending.commandLine = mark.commandLine;
        break;
      case 'continuation-start':
        // Only a prompt's own continuation counts: one without a B before it is not the shell's.
        if (this.running === null && this.pending.inputStart !== null) this.pending.continuation = true;
        break;
      case 'continuation-end':
        break; // the rest of the command is typed after it; nothing to record
      case 'output-start':
        if (this.running === null) this.start();
        break;
      case 'command-finished':
        if (this.running !== null) this.finish(mark.exitCode);
        else this.pending.continuation = false; // the unfinished command was given up (C-c)
        break;
      case 'cwd':
        this.cwd = mark.cwd;
        break;
    }
    return true;
  }

  private start(): void {
    const outputStart = positionAtCursor(this.rows);
    const { promptStart, inputStart, commandLine } = this.pending;
    let line = commandLine;
    if (line === null && inputStart !== null && outputStart !== null) line = this.readCommandLine(inputStart, outputStart);
    inputStart?.marker?.dispose();
    this.pending = emptyPrompt();
    const entry: CommandEntry = {
      number: ++this.lastNumber,
      commandLine: line ?? '',
      cwd: this.cwd,
      startedAt: this.now(),
      endedAt: null,
      exitCode: null,
      promptStart,
      outputStart,
      outputEnd: null,
    };
    this.commands.push(entry);
    this.running = entry;
    while (this.commands.length > MAX_COMMANDS_KEPT) {
      disposeEntry(this.commands.shift()!);
      this.liveFrom = Math.max(0, this.liveFrom - 1);
    }
    this.onStarted.fire(entry);
  }

  private finish(exitCode: number | null): void {
    const entry = this.running!;
    this.running = null;
    entry.outputEnd = positionAtCursor(this.rows);
    entry.endedAt = this.now();
    entry.exitCode = exitCode;
    this.onFinished.fire(entry);
  }

  // The fallback when the shell sent no 633;E: what was typed between the end
  // of the prompt and Enter. Continuation prompts of a multi-line command are
  // part of it, which the 633;E line avoids.
  private readCommandLine(inputStart: BufferPosition, outputStart: BufferPosition): string | null {
    const from = resolvePosition(this.rows, inputStart);
    const to = resolvePosition(this.rows, outputStart);
    if (from === null || to === null) return null;
    return readBufferText(this.rows, from, to)?.trim().slice(0, MAX_COMMAND_LINE_CHARS) ?? null;
  }

  private replacePending(next: PendingPrompt): void {
    this.pending.promptStart?.marker?.dispose();
    this.pending.inputStart?.marker?.dispose();
    this.pending = next;
  }

  /**
   * Rows are moving to the history: places on them become row numbers.
   * Places are in buffer order (commands oldest first, then the prompt being
   * edited), so the walk starts at the oldest command with a live marker
   * and stops at the first place below the leaving rows.
   */
  private freezeLeaving(event: { count: number; firstRow: number }): void {
    // Runs for every row that scrolls off (a flood's hundreds of thousands a second): no allocation here.
    for (let i = this.liveFrom; i < this.commands.length; i++) {
      const entry = this.commands[i]!;
      if (staysLive(entry.promptStart, event) || staysLive(entry.outputStart, event) || staysLive(entry.outputEnd, event)) return;
      // Every place of this command is frozen or gone (a running command gets its end later).
      if (i === this.liveFrom && entry !== this.running) this.liveFrom++;
    }
    if (!staysLive(this.pending.promptStart, event)) staysLive(this.pending.inputStart, event);
  }

  // Drops every place (the records stay): after a reset or at dispose.
  private forgetPlaces(): void {
    this.unplaced = null;
    this.unplacedWait?.dispose();
    this.unplacedWait = null;
    for (const entry of this.commands) disposeEntry(entry);
    this.replacePending(emptyPrompt());
  }
}

/** Freezes `place` if its row is leaving; true if it has a live marker below the leaving rows (the walk stops there). */
function staysLive(place: BufferPosition | null, event: { count: number; firstRow: number }): boolean {
  if (place === null || place.marker === null || place.marker.isDisposed) return false;
  return !freezeIfLeaving(place, event);
}

function emptyPrompt(): PendingPrompt {
  return { promptStart: null, inputStart: null, commandLine: null, continuation: false };
}

function disposeEntry(entry: CommandEntry): void {
  for (const place of [entry.promptStart, entry.outputStart, entry.outputEnd]) place?.marker?.dispose();
  entry.promptStart = null;
  entry.outputStart = null;
  entry.outputEnd = null;
}
