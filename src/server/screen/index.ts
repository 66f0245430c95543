// The screen model's public face for the rest of the server (and its tests).
export { Screen, DEFAULT_SCROLLBACK_ROWS, DEFAULT_LIVE_SCROLLBACK_ROWS, DEFAULT_HISTORY_BYTES, DEFAULT_SNAPSHOT_SLICE_MS, VIEWER_SNAPSHOT_SCROLLBACK_ROWS } from './screen.js';
export type { ScreenOptions, ScreenSnapshot, ScreenText, SearchMatch, SearchResult, SnapshotOptions, TerminalModes } from './screen.js';
export type { TextOptions } from './screen-text.js';
export { SearchStoppedError, textMatcher, type LineMatcher, type SearchStopReason } from './screen-search.js';
