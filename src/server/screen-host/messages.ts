// What the server's event loop and the screen host (a worker thread that
// parses every session's output into its screen) say to each other. One
// message each way per turn of either loop, holding every operation or
// event of that turn, in order: order is the contract. A write posted before
// a call is parsed before the call runs; a write's "parsed" event comes
// before the result of any call that ran after it.
import type { ByteLane } from './byte-lane.js';
import type { HistoryState } from '../screen/history/history.js';
import type { StoredBlock } from '../checkpoint/history-file.js';
import type { CommandInfo, FinishedCommand } from '../commands/index.js';
import type { ScreenOptions, ScreenSnapshot, ScreenText, SearchResult, SearchStopReason, TerminalModes } from '../screen/index.js';
import type { ScrollbackCount } from '../../protocol/api/index.js';
import type { RenderedView } from '../screen/view-render.js';

/** A screen's options as they cross the thread (no budget or scheduler: the host owns those). */
export type HostedScreenOptions = Omit<ScreenOptions, 'budget' | 'scheduler'>;

/** What a restored screen is made of: a checkpoint's snapshot, history and command index. */
export interface RestoreSpec {
  options: HostedScreenOptions;
  snapshot: ScreenSnapshot;
  /** The snapshot holds its whole scrollback (a checkpoint from before the history): its older rows become history. */
  archive: boolean;
  /** The history the checkpoint recorded and the blocks its file held, or null for none. */
  history: { state: HistoryState; blocks: StoredBlock[] } | null;
  /** The command index as the checkpoint saved it. */
  commands: unknown;
}

export interface CommandsState {
  commands: CommandInfo[];
  /** The running command's number, or null. */
  running: number | null;
  atPrompt: boolean;
  /** At a continuation prompt: the shell waits for the rest of an unfinished command line. */
  continuation: boolean;
}

export type { CommandInfo, FinishedCommand };

export type SearchQuery = { pattern: string; regex: boolean; ignoreCase: boolean };

/** The calls a screen answers, by name: arguments and result. */
export interface ScreenCalls {
  flush: { args: null; result: null };
  modes: { args: null; result: TerminalModes };
  /** A snapshot with the modes at its cut (a viewer's resume, `tend screen --format snapshot`). */
  /** `viewer`: a viewer's snapshot; from the first with scrollback on, the screen keeps its painted lines (painted-warmer.ts). */
  snapshot: { args: { scrollbackRows?: number; history?: boolean; viewer?: boolean; historyAfterRow?: number }; result: { snapshot: ScreenSnapshot; modes: TerminalModes; scrollback: ScrollbackCount } };
  /**
   * The screen as a terminal of another size shows it (a viewer's VIEW
   * snapshot), with the modes at its cut. The one call that does not wait
   * for the writes before it: it shows what is parsed when the host reads
   * the call (its cut says which writes those are).
   */
  view: { args: { cols: number; rows: number }; result: RenderedView & { modes: TerminalModes; title: string } };
  /** The live rows, the command index and the history's blocks at one cut (a checkpoint). */
  checkpoint: { args: null; result: { snapshot: ScreenSnapshot; commands: unknown; history: { epoch: number; state: HistoryState; blocks: StoredBlock[] } } };
  text: { args: { scrollbackRows: number; ansi: boolean }; result: ScreenText & { cursor: { x: number; y: number; visible: boolean }; cols: number; rows: number } };
  /** `budgetMs`: the longest the search may take from when the host reads the call, at most (and by default) the screen's own budget, SEARCH_TIME_BUDGET_MS. */
  search: { args: { query: SearchQuery; max: number; budgetMs?: number }; result: SearchResult };
  olderRows: { args: { before: number | null; snapshotRows: number; count: number }; result: { firstRow: number; rows: number; dropped: number; oldest: boolean; text: string } };
  commands: { args: null; result: CommandsState };
  commandOutput: { args: { number: number }; result: { text: string; complete: boolean } | null };
}

export type CallName = keyof ScreenCalls;

/** Operations the server's loop sends, in the order they happened. */
export type HostOp =
  | { op: 'open'; screen: number; options: HostedScreenOptions }
  | { op: 'restore'; screen: number; call: number; spec: RestoreSpec }
  /** Bytes of one write: positions [start, end) of the byte lane, or (lane false: it was full) of the batch's buffer. */
  | { op: 'write'; screen: number; start: number; end: number; live: boolean; lane: boolean }
  | { op: 'resize'; screen: number; cols: number; rows: number }
  | { op: 'call'; screen: number; call: number; name: CallName; args: unknown }
  /** Finished commands are sent with their output while any await watches the screen. */
  | { op: 'watchCommands'; screen: number; watch: boolean }
  | { op: 'close'; screen: number };

export interface HostBatch {
  ops: HostOp[];
  /** The bytes of writes that found the byte lane full, back to back (transferred, not copied). */
  bytes: ArrayBuffer | null;
}

/** Events the host sends back, in the order they happened. */
export type HostEvent =
  /**
   * The screen has parsed its writes up to (and with) the `count`-th, and its
   * top row was then `topRow` (rows above it had scrolled off: see Screen.screenTopRow).
   */
  | { ev: 'parsed'; screen: number; count: number; topRow: number }
  /** Answers to queries in live output, for the program. */
  | { ev: 'reply'; screen: number; bytes: Uint8Array }
  | { ev: 'title'; screen: number; title: string }
  | { ev: 'cwd'; screen: number; cwd: string }
  | { ev: 'finished'; screen: number; command: FinishedCommand }
  /** A snapshot's picture is fixed: every "parsed" before this event is in it, none after. */
  | { ev: 'cut'; call: number }
  | { ev: 'result'; call: number; value: unknown }
  /** `code`: set when a search gave up (SearchStopReason), so that the API can say why. */
  | { ev: 'failed'; call: number; message: string; code?: SearchStopReason }
  /** The server-wide history budget's use changed (sent at most every STATS_INTERVAL_MS), for /v1/health. */
  | { ev: 'stats'; stats: HostStats };

/** How often, at most, the host says how much history it holds. */
export const STATS_INTERVAL_MS = 200;
/**
 * How long "parsed" counts may wait for other events to go with, once the
 * host has parsed PARSED_REPORT_EAGER_BYTES since it last sent them. The
 * server learns a flood's backlog this late at worst (it resumes a paused
 * holder below 384 KiB, ~12 ms of parsing at a text flood's ~30 MB/s), and
 * nothing a viewer sees waits for them: echo goes out before its bytes even
 * reach the host.
 */
export const PARSED_REPORT_MS = 5;
export const PARSED_REPORT_EAGER_BYTES = 64 * 1024;
/**
 * Counts of less parsing wait this long: they only keep the log's unparsed
 * tail and `unparsedBytes` up to date (a read that needs the parse, or a
 * paused holder, has its answer sent at once or is over the eager mark).
 * Reported within 5 ms, each key typed woke the server's loop a second time;
 * within 100 ms, still once a key for someone typing a key every 150-300 ms
 * (and the host woke for its timer too): ~1 of the loop's ~4 wake-ups a key
 * at 120 ms a key (docs/performance.md). Within a second, typing pays it
 * about once a second.
 */
export const PARSED_REPORT_IDLE_MS = 1000;

export interface HostStats {
  historyBytes: number;
  historyBudgetBytes: number;
}

/** What the host is started with. */
export interface HostWorkerData {
  historyBudgetBytes: number;
  lane: ByteLane;
}
