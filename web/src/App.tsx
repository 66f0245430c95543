// The page: a header (theme, help), the connection banner, and one of two
// views by path — / is the dashboard, /w/<name> a workspace (or a single
// session of that name). The server answers every such path with index.html.
import { useCallback, useEffect, useState } from 'react';
import type { ViewerSocket } from './connection/viewer-socket.js';
import { Dashboard } from './components/Dashboard.js';
import { WorkspaceView } from './components/WorkspaceView.js';
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { resolveTheme, storeThemeChoice, storedThemeChoice, type ThemeChoice } from './theme.js';

type Route = { view: 'dashboard' } | { view: 'workspace'; name: string; focus: string | null };

/** The view a path (with its query: ?focus=SESSION focuses that pane) names. */
function routeOf(path: string): Route {
  const url = new URL(path, location.origin);
  const m = /^\/w\/([^/]+)\/?$/.exec(url.pathname);
  if (m) {
    try {
      return { view: 'workspace', name: decodeURIComponent(m[1]!), focus: url.searchParams.get('focus') };
    } catch {
      /* a broken escape: fall through to the dashboard */
    }
  }
  return { view: 'dashboard' };
}

const here = () => location.pathname + location.search;

const THEME_ORDER: ThemeChoice[] = ['system', 'dark', 'light'];

export function App(props: { socket: ViewerSocket }) {
  const [route, setRoute] = useState<Route>(() => routeOf(here()));
  const [choice, setChoice] = useState<ThemeChoice>(storedThemeChoice);
  const [theme, setTheme] = useState(() => resolveTheme(storedThemeChoice()));

  useEffect(() => {
    const onPop = () => setRoute(routeOf(here()));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: light)');
    const update = () => setTheme(resolveTheme(choice));
    update();
    media.addEventListener('change', update);
    return () => media.removeEventListener('change', update);
  }, [choice]);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.querySelector('meta[name="theme-color"]')?.setAttribute('content', theme === 'dark' ? '#14161b' : '#fbfbf8');
  }, [theme]);

  useEffect(() => {
    document.title = route.view === 'workspace' ? `${route.name} — tend` : 'tend';
  }, [route]);

  const navigate = useCallback((path: string) => {
    if (path !== here()) history.pushState(null, '', path);
    setRoute(routeOf(path));
  }, []);

  const cycleTheme = () => {
    const next = THEME_ORDER[(THEME_ORDER.indexOf(choice) + 1) % THEME_ORDER.length]!;
    storeThemeChoice(next);
    setChoice(next);
  };

  return (
    <div className={`app app-${route.view}`}>
      <header className="app-header">
        <a
          href="/"
          className="brand"
          onClick={(e) => {
            e.preventDefault();
            navigate('/');
          }}
        >
          <img src="/icon.svg" alt="" width={20} height={20} />
          tend
        </a>
        <span className="spacer" />
        <button type="button" className="small ghost" onClick={cycleTheme} aria-label={`theme: ${choice}; change`}>
          Theme: {choice}
        </button>
      </header>
      <ConnectionBanner socket={props.socket} />
      {route.view === 'dashboard' ? (
        <Dashboard navigate={navigate} />
      ) : (
        <WorkspaceView key={route.name} name={route.name} focus={route.focus} socket={props.socket} theme={theme} navigate={navigate} />
      )}
    </div>
  );
}
