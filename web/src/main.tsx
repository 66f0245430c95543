// Entry point: one viewer socket for the page (every terminal is a channel on
// it), the page's record of agents, the debug hook, and the React tree.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { ViewerSocket, viewerSocketUrl } from './connection/viewer-socket.js';
import { registerDebugSocket, reportProblem } from './debug-hook.js';
import { App } from './App.js';
import { AgentStore } from './agents/agent-store.js';
import { followVisibleViewport } from './layout/visible-viewport.js';

const socket = new ViewerSocket({ url: viewerSocketUrl(location), onProblem: reportProblem });
registerDebugSocket(socket);
// Coming back to a hidden tab or a network: try at once rather than wait out the backoff.
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) socket.retryNow();
});
window.addEventListener('online', () => socket.retryNow());
// An on-screen keyboard's room taken from the page: the layout fits what is left.
followVisibleViewport();

// Every session's agent, for every view of the page (and its notifications).
const agents = new AgentStore();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App socket={socket} agents={agents} />
  </StrictMode>,
);
