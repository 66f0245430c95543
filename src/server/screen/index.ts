// The screen model's public face for the rest of the server (and its tests).
import xtermHeadless from '@xterm/headless';
import type { Terminal } from '@xterm/headless';
import { DEFAULT_SCROLLBACK_ROWS, type ScreenSnapshot } from './screen.js';

export { Screen, DEFAULT_SCROLLBACK_ROWS, DEFAULT_LIVE_SCROLLBACK_ROWS, DEFAULT_HISTORY_BYTES, DEFAULT_SNAPSHOT_SLICE_MS } from './screen.js';
export type { ScreenOptions, ScreenSnapshot, ScreenText, ScrollbackShown, SearchMatch, SearchResult, SnapshotOptions, TerminalModes } from './screen.js';
export { diffTerminals, type DiffOptions } from './terminal-diff.js';
export type { TextOptions } from './screen-text.js';
export { SearchStoppedError, textMatcher, type LineMatcher, type SearchStopReason } from './screen-search.js';

/** What a viewer does with a snapshot: a fresh headless terminal of its size, the data written and parsed. */
export async function terminalFromSnapshot(snapshot: ScreenSnapshot): Promise<Terminal> {
  const terminal = new xtermHeadless.Terminal({
    cols: snapshot.cols,
    rows: snapshot.rows,
    scrollback: Math.max(DEFAULT_SCROLLBACK_ROWS, snapshot.scrollbackRows),
    allowProposedApi: true,
  });
  await new Promise<void>((resolve) => terminal.write(snapshot.data, resolve));
  return terminal;
}
