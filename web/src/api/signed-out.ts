// A page reached from another machine loses its sign-in when the login cookie
// expires, is revoked (`tend remote revoke`) or remote access is turned off:
// from then on every API call is refused with `forbidden` and the terminal
// socket's upgrade too. Rather than a dashboard that stays empty and panes
// that say "reconnecting…" for ever, the page goes to the login page, which
// says how to sign in again (or why this caller cannot). A page on this
// machine (127.0.0.1 or localhost) is let in without a cookie, so it never
// leaves for this reason.

import { API_ROUTES, LOGIN_PAGE_PATH } from '../../../src/protocol/api/index.js';

function isLocalPage(): boolean {
  const host = window.location.hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

let leaving = false;

/** Goes to the login page when an API answer says this remote page is no longer let in; true when it did. */
export function leaveWhenSignedOut(status: number, code: string): boolean {
  if (status !== 403 || code !== 'forbidden' || isLocalPage() || leaving) return leaving;
  leaving = true;
  window.location.assign(LOGIN_PAGE_PATH);
  return true;
}

/**
 * A terminal socket that could not open says nothing about why (a browser
 * hides the refused upgrade's answer): ask the API once, whose answer does.
 */
export async function checkSignedIn(): Promise<void> {
  if (isLocalPage() || leaving) return;
  try {
    const res = await fetch(API_ROUTES.health.path, { headers: { accept: 'application/json' } });
    if (res.status !== 403) return;
    const body = (await res.json()) as { error?: { code?: string } };
    leaveWhenSignedOut(res.status, body.error?.code ?? '');
  } catch {
    // The server is not answering at all: the socket's own retries cover that.
  }
}
