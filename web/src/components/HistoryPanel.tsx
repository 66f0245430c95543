// A pane's history beyond what its own terminal holds: a read-only overlay
// inside the pane — a toolbar (summary, Load older, Search, close), the
// loader's problem or the connection's state, the gap notice, and the
// HistoryView's terminal (history/history-view.ts), which holds the rows and
// the keys. This only draws the loader's and the view's state.
import { useEffect, useRef, useState } from 'react';
import type { Terminal } from '@xterm/xterm';
import type { HistoryLoader } from '../terminal/history-loader.js';
import type { ThemeName } from '../theme.js';
import { HistoryView } from '../history/history-view.js';
import { connectionNotice, gapNotice, historySummary } from '../history/history-text.js';
import { useModel } from '../model/use-model.js';
import { SearchBar } from './SearchBar.js';

export interface HistoryPanelProps {
  sessionId: string;
  label: string;
  loader: HistoryLoader;
  /** The pane's live terminal: read (width, font, its scrollback), never written. */
  live: Terminal;
  theme: ThemeName;
  /** Bumped when the search key is pressed for this pane from outside the panel's terminal. */
  searchRequest: number;
  /** Focus moved into the panel (the pane becomes the focused one). */
  onFocus(): void;
  onClose(): void;
}

export function HistoryPanel(props: HistoryPanelProps) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;
  const [view] = useState(
    () => new HistoryView({ sessionId: props.sessionId, loader: props.loader, live: props.live, theme: props.theme, onClose: () => latest.current.onClose() }),
  );
  const state = useModel(props.loader);
  const { searching, search } = useModel(view);

  useEffect(() => view.attach(host.current!), [view]);
  useEffect(() => view.setTheme(props.theme), [view, props.theme]);
  // Only a request made while the panel is open opens its search (the count may be old).
  const searchRequestAtOpen = useRef(props.searchRequest);
  useEffect(() => {
    if (props.searchRequest !== searchRequestAtOpen.current) view.openSearch();
  }, [view, props.searchRequest]);

  const gap = view.gap();
  const notice = state.problem ? null : connectionNotice(state.connection);
  const canLoad = !state.oldest && !state.loading && state.connection === 'live';

  return (
    <div
      className="history-panel"
      role="region"
      aria-label={`older history of ${props.label}`}
      data-session={props.sessionId}
      onFocus={() => props.onFocus()}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !e.defaultPrevented) {
          e.preventDefault();
          props.onClose();
        }
      }}
    >
      <div className="history-toolbar">
        <span className="history-title">History</span>
        <span className="history-summary" aria-live="polite">
          {historySummary(state, gap)}
        </span>
        {/* aria-disabled, not disabled: the button keeps the focus of a keyboard user while a page loads. */}
        <button
          type="button"
          className="small"
          aria-disabled={!canLoad}
          onClick={() => {
            if (canLoad) props.loader.loadOlder();
          }}
          aria-label="load older rows"
        >
          Load older
        </button>
        <button type="button" className="small ghost" onClick={() => view.openSearch()} aria-label="search the loaded history">
          Search
        </button>
        <button type="button" className="small ghost" onClick={props.onClose} aria-label="close the history view">
          ✕
        </button>
      </div>
      {state.problem && (
        <div className="history-problem" role="alert">
          <span>{state.problem.message}</span>
          {state.problem.canRetry && (
            <button
              type="button"
              className="small"
              onClick={() => {
                props.loader.retry();
                // The button goes with the problem: the focus stays in the panel.
                view.focus();
              }}
              aria-label="retry reading the history"
            >
              Retry
            </button>
          )}
        </div>
      )}
      {notice && (
        <div className="history-notice" role="status">
          {notice}
        </div>
      )}
      {gap && (
        <div className="history-notice history-gap" role="note">
          {gapNotice(props.live.options.scrollback ?? 0)}
        </div>
      )}
      {searching && search && <SearchBar search={search} onClose={() => view.closeSearch()} />}
      <div className="history-body" ref={host} />
    </div>
  );
}
