// Commands the workspace hands one pane (the search, history and copy keys
// pressed while the focus is on the page, not in that pane's terminal): a
// window event, so a pane hears them without the workspace holding it.
const EVENT = 'tend-pane-command';

export type PaneCommandKind = 'search' | 'history' | 'copy';

interface PaneCommandDetail {
  sessionId: string;
  kind: PaneCommandKind;
}

export function sendPaneCommand(sessionId: string, kind: PaneCommandKind): void {
  window.dispatchEvent(new CustomEvent<PaneCommandDetail>(EVENT, { detail: { sessionId, kind } }));
}

/** Hears the commands for one session's pane until the returned function is called. */
export function onPaneCommand(sessionId: string, handler: (kind: PaneCommandKind) => void): () => void {
  const listener = (ev: Event) => {
    const detail = (ev as CustomEvent<PaneCommandDetail>).detail;
    if (detail.sessionId === sessionId) handler(detail.kind);
  };
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
