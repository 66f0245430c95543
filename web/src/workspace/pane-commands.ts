// Commands the workspace hands one pane (the search, history and copy keys
// pressed while the focus is on the page, not in that pane's terminal): a
// window event, so a pane hears them without the workspace holding it.
// paneChannel is that mechanism for any message to one session's pane (the
// phone key row's keys go the same way: pane-keys.ts).

export interface PaneChannel<T> {
  send(sessionId: string, message: T): void;
  /** Hears the messages for one session's pane until the returned function is called. */
  on(sessionId: string, handler: (message: T) => void): () => void;
}

interface PaneMessageDetail<T> {
  sessionId: string;
  message: T;
}

/** Messages to one session's pane as window events named `event`. */
export function paneChannel<T>(event: string): PaneChannel<T> {
  return {
    send(sessionId, message) {
      window.dispatchEvent(new CustomEvent<PaneMessageDetail<T>>(event, { detail: { sessionId, message } }));
    },
    on(sessionId, handler) {
      const listener = (ev: Event) => {
        const detail = (ev as CustomEvent<PaneMessageDetail<T>>).detail;
        if (detail.sessionId === sessionId) handler(detail.message);
      };
      window.addEventListener(event, listener);
      return () => window.removeEventListener(event, listener);
    },
  };
}

export type PaneCommandKind = 'search' | 'history' | 'copy';

const commands = paneChannel<PaneCommandKind>('tend-pane-command');

export const sendPaneCommand = commands.send;
/** Hears the commands for one session's pane until the returned function is called. */
export const onPaneCommand = commands.on;
