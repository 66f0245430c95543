// The page: a header (agent notifications, theme), the connection banner,
// and one of two views by path — / is the dashboard, /w/<name> a workspace (or a single
// session of that name). The server answers every such path with index.html.
import { useCallback, useEffect, useState } from 'react';
import type { ViewerSocket } from './connection/viewer-socket.js';
import { Dashboard } from './components/Dashboard.js';
import { WorkspaceView } from './components/WorkspaceView.js';
import { ConnectionBanner } from './components/ConnectionBanner.js';
import { resolveTheme, storeThemeChoice, storedThemeChoice, type ThemeChoice } from './theme.js';
import type { AgentStore } from './agents/agent-store.js';
import { AgentNotifier } from './agents/agent-notifier.js';
import { NotificationBell } from './components/NotificationBell.js';
import { agentWantsPerson } from '../../src/protocol/api/index.js';
import { useModel } from './model/use-model.js';
import { useOwnedModel } from './model/use-owned-model.js';

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

/**
 * The tab's title: the view's name, and how many agents wait for a person
 * ("(2) build — tend"). A component of its own, so a change of an agent
 * redraws the title, not the page.
 */
function TabTitle(props: { route: Route; agents: AgentStore }) {
  const { agents } = useModel(props.agents);
  let waiting = 0;
  for (const agent of agents.values()) if (agentWantsPerson(agent.state)) waiting++;
  const title = props.route.view === 'workspace' ? `${props.route.name} — tend` : 'tend';
  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) ${title}` : title;
  }, [title, waiting]);
  return null;
}

export function App(props: { socket: ViewerSocket; agents: AgentStore }) {
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

  const navigate = useCallback((path: string) => {
    if (path !== here()) history.pushState(null, '', path);
    setRoute(routeOf(path));
  }, []);

  // A notification's click: the pane, if the workspace shown holds it, else the session on its own page.
  const notifier = useOwnedModel(
    () =>
      new AgentNotifier({
        agents: props.agents,
        show: (sessionId) => {
          if (props.agents.showIfHere(sessionId)) return;
          navigate(`/w/${encodeURIComponent(props.agents.labelOf(sessionId))}?focus=${encodeURIComponent(sessionId)}`);
        },
      }),
  );

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
        <NotificationBell notifier={notifier} />
        <button type="button" className="small ghost" onClick={cycleTheme} aria-label={`theme: ${choice}; change`}>
          Theme: {choice}
        </button>
      </header>
      <TabTitle route={route} agents={props.agents} />
      <ConnectionBanner socket={props.socket} />
      {route.view === 'dashboard' ? (
        <Dashboard navigate={navigate} agents={props.agents} />
      ) : (
        <WorkspaceView key={route.name} name={route.name} focus={route.focus} socket={props.socket} theme={theme} navigate={navigate} agents={props.agents} />
      )}
    </div>
  );
}
