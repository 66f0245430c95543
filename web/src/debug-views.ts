// The shapes window.__tendDebug hands out (debug-hook.ts), in a file with no
// DOM or xterm types, so the browser tests read them from here instead of
// keeping copies.

/** What an open history view shows (components/HistoryPanel.tsx). */
export interface DebugHistoryView {
  loading: boolean;
  waiting: boolean;
  oldest: boolean;
  dropped: number;
  problem: string | null;
  canRetry: boolean;
  connection: string;
  /** Rows received, and the row number of the oldest (null before the first page). */
  loadedRows: number;
  firstRow: number | null;
  /** The pages' version, and the one the panel's terminal has finished parsing. */
  version: number;
  renderedVersion: number;
  /** The panel's first line ("start of history", "N older rows were dropped …"). */
  header: string;
  /** The panel's last line (where the pane's own scrollback takes over). */
  footer: string;
  /** The history rows the panel shows, oldest first: one per server row, trailing blanks trimmed (empty unless asked for). */
  rows: string[];
  /** Whether the pane had trimmed rows of its own since its snapshot when the panel last rendered. */
  gap: boolean;
}
