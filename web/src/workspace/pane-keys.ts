// Keys from the phone key row for one pane: a window event, as the pane
// commands are (pane-commands.ts), so the row reaches the focused pane's
// terminal without the workspace holding it. The pane turns the key into
// bytes itself, since only it knows its terminal's cursor-key mode.
import type { PhoneKey } from '../terminal/phone-keys.js';

const EVENT = 'tend-pane-key';

interface PaneKeyDetail {
  sessionId: string;
  key: PhoneKey;
}

export function sendPaneKey(sessionId: string, key: PhoneKey): void {
  window.dispatchEvent(new CustomEvent<PaneKeyDetail>(EVENT, { detail: { sessionId, key } }));
}

/** Hears the row's keys for one session's pane until the returned function is called. */
export function onPaneKey(sessionId: string, handler: (key: PhoneKey) => void): () => void {
  const listener = (ev: Event) => {
    const detail = (ev as CustomEvent<PaneKeyDetail>).detail;
    if (detail.sessionId === sessionId) handler(detail.key);
  };
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}
