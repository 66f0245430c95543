// Joining the first page of history to a pane that has dropped rows since
// its snapshot. The pane's top row is then row S + T (S: the snapshot's top
// row, T: the rows the pane dropped, trim-counter.ts), and the first page is
// asked for up to a few rows below it: those rows are the pane's own top
// rows, and comparing their text proves the numbers meet (a resize that
// reflowed the pane's rows, or a cleared scrollback, would make them differ).
// The checked rows are then cut from the page, which ends where the pane begins.
import type { ScrollbackFrame } from './terminal-link.js';

/** Rows of the pane's top the first page also asks for, to check the join. */
export const JOIN_CHECK_ROWS = 5;

/** What the loader needs of the pane for a join. */
export interface PaneRows {
  /** Rows the pane dropped from its top since its last snapshot (null: not known). */
  trimmedRows(): number | null;
  /** The pane's snapshot count (a new snapshot restarts both numbers). */
  snapshots(): number;
  /** The text of the pane's first `count` rows, trailing blanks trimmed. */
  topRows(count: number): string[];
}

// CSI (SGR and the like) and OSC (hyperlinks) sequences: the server's rows carry them, the pane's text does not.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function plainRow(row: string): string {
  return row.replace(ESCAPES, '').replace(/ +$/, '');
}

export type JoinResult =
  | { kind: 'joined'; page: { firstRow: number; rows: number; text: string } | null; oldest: boolean; dropped: number }
  /** The pane dropped more rows while the page was on its way: ask again. */
  | { kind: 'moved' }
  /** The rows differ: the numbers do not meet, history cannot join the pane. */
  | { kind: 'differs' };

/** The answer to a join request, checked against the pane whose top row is now `paneTop`. */
export function joinPage(frame: ScrollbackFrame, paneTop: number, pane: PaneRows): JoinResult {
  const end = frame.firstRow + frame.rows;
  const overlap = end - paneTop;
  if (overlap <= 0) return { kind: 'moved' };
  if (overlap > frame.rows || overlap > JOIN_CHECK_ROWS) return { kind: 'differs' };
  const rows = frame.text.split('\r\n');
  if (rows.length !== frame.rows) return { kind: 'differs' };
  const theirs = rows.slice(rows.length - overlap).map(plainRow);
  const mine = pane.topRows(overlap);
  if (mine.length !== overlap || mine.some((row, i) => row !== theirs[i])) return { kind: 'differs' };
  const kept = frame.rows - overlap;
  return {
    kind: 'joined',
    page: kept > 0 ? { firstRow: frame.firstRow, rows: kept, text: rows.slice(0, kept).join('\r\n') } : null,
    oldest: frame.oldest,
    dropped: frame.dropped,
  };
}
