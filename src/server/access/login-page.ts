// GET /login: the page a one-time link opens (https://HOST/login#t=TOKEN).
// Its one inline script reads the token from the fragment (which the browser
// never sent), takes it out of the address bar and history, posts it to
// POST /v1/remote/exchange, and on success goes to the app at /. Without a
// token it says how to get one. The same page answers any page of the app
// that a browser asks for before it has signed in. The Content-Security-Policy
// lets only this script run (by its hash), fetch only this origin, and the
// page be framed by nobody.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { API_ROUTES, LOGIN_PAGE_PATH } from '../../protocol/api/index.js';

/** A request for the login page itself: GET or HEAD of its path, whatever the query. */
export function isLoginPageRequest(req: IncomingMessage): boolean {
  const method = req.method ?? 'GET';
  return (req.url ?? '/').split('?')[0] === LOGIN_PAGE_PATH && (method === 'GET' || method === 'HEAD');
}

const SCRIPT = `
(function () {
  var say = function (text) { document.getElementById('state').textContent = text; };
  var match = /(?:^#|&)t=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (!match) return;
  history.replaceState(null, '', location.pathname);
  say('Signing in…');
  fetch(${JSON.stringify(API_ROUTES.exchangeLoginLink.path)}, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: match[1] })
  }).then(function (res) {
    return res.json().then(function (body) {
      if (res.ok) { location.replace('/'); return; }
      say('This link did not sign you in: ' + ((body && body.error && body.error.message) || res.status));
    });
  }, function () { say('The tend server could not be reached; try the link again.'); });
})();
`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');

const STYLE = 'body{font:16px/1.5 system-ui,sans-serif;max-width:34em;margin:3em auto;padding:0 1em;color:#222}code{background:#eee;padding:0 .25em;border-radius:3px}';

export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * The login page: the same bytes for every caller (the script reads the
 * token in the browser), so it is put together once.
 */
export const LOGIN_PAGE: { readonly html: string; readonly headers: Readonly<Record<string, string>> } = {
  html: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>tend: sign in</title><style>${STYLE}</style></head>
<body><h1>Sign in to tend</h1>
<p id="state">This browser is not signed in.</p>
<p>On the machine tend runs on, run <code>tend remote link</code> and open the link it prints here. Each link signs in one browser, once, within 10 minutes.</p>
<script>${SCRIPT}</script></body></html>
`,
  headers: {
    ...PAGE_SECURITY_HEADERS,
    'content-security-policy': `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  },
};

/** A plain page for a refused page request: what happened and what to do. */
export function refusalPage(message: string): { html: string; headers: Record<string, string> } {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>tend: not allowed</title><style>${STYLE}</style></head>
<body><h1>tend did not let this browser in</h1><p>${escapeHtml(message)}</p></body></html>
`;
  return { html, headers: { ...PAGE_SECURITY_HEADERS, 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'" } };
}
