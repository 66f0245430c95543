// Search in a terminal's scrollback (the search addon): Enter finds the next
// match upwards (older output), Shift+Enter the one below, Escape closes and gives the
// terminal its focus back.
import { useEffect, useRef, useState } from 'react';
import type { SearchAddon } from '@xterm/addon-search';

const DECORATIONS = {
  matchBackground: '#6b5a1e',
  activeMatchBackground: '#d19a00',
  matchOverviewRuler: '#d19a00',
  activeMatchColorOverviewRuler: '#ff9900',
};

export function SearchBar(props: { search: SearchAddon; onClose(): void }) {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<boolean | null>(null);

  useEffect(() => {
    input.current?.focus();
    const sub = props.search.onDidChangeResults(({ resultCount }) => setFound(resultCount > 0));
    return () => {
      sub.dispose();
      props.search.clearDecorations();
    };
  }, [props.search]);

  /** Downwards is towards the newest output; a search usually starts upwards, into the past. */
  const run = (down: boolean) => {
    if (query === '') return;
    const options = { decorations: DECORATIONS, caseSensitive: false };
    const hit = down ? props.search.findNext(query, options) : props.search.findPrevious(query, options);
    setFound(hit);
  };

  return (
    <div className="search-bar" role="search">
      <input
        ref={input}
        type="search"
        aria-label="search the scrollback"
        placeholder="search scrollback"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            run(e.shiftKey);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            props.onClose();
          }
        }}
      />
      <span className="search-result" aria-live="polite">
        {found === false ? 'no match' : ''}
      </span>
      <button type="button" className="small" onClick={() => run(false)} aria-label="previous match (upwards)">
        ↑
      </button>
      <button type="button" className="small" onClick={() => run(true)} aria-label="next match (downwards)">
        ↓
      </button>
      <button type="button" className="small ghost" onClick={props.onClose} aria-label="close search">
        ✕
      </button>
    </div>
  );
}
