// A one-time link in a real browser: Chromium (playwright-core, Debian's
// build) opens https-less http://box.test:PORT/login#t=TOKEN through a real
// reverse proxy on this machine that forwards for another address, so the
// server sees a remote caller at an allowed Host. The login page's own
// script (pinned by its hash in the Content-Security-Policy) reads the
// fragment, exchanges it, and goes to the dashboard; the page then lists the
// session and opens its terminal over the WebSocket, all with the cookie the
// exchange set, which the page's scripts cannot read (HttpOnly).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/harness.js';
import { CHROMIUM_PATH, browserUnavailable, debugPanes, ensureWebBuilt, paneText } from '../web/web-harness.js';
import { waitFor } from '../support/wait-for.js';
import { startReverseProxy, type ReverseProxy } from './reverse-proxy.js';

const TEST_TIMEOUT_MS = 180_000;
const HOST = 'box.test';
const MARK = 'signed-in-by-link';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let server: TestServer;
let proxy: ReverseProxy;
let browser: Browser;

async function tend(args: string[]): Promise<string> {
  const r = await server.cli(args);
  assert.equal(r.code, 0, `tend ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('signing in with a one-time link in Chromium', { timeout: TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  before(async () => {
    await ensureWebBuilt();
    server = startTestServer();
    await tend(['server', 'start']);
    const port = (await server.api<{ port: number }>('GET', '/v1/health')).body.port;
    // Plain HTTP between the browser and the proxy: the cookie is then not Secure, as it must not be.
    proxy = await startReverseProxy({ targetPort: port, forwardedFor: '192.0.2.44', proto: 'http' });
    await tend(['remote', 'enable']);
    await tend(['remote', 'allow', HOST]);
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${HOST} 127.0.0.1`] });
  });

  after(async () => {
    await browser?.close();
    await proxy?.dispose();
    await server?.dispose();
  });

  test('the link signs the browser in; the dashboard lists the session and its terminal opens through the gate', async () => {
    const made = await server.api<{ id: string }>('POST', '/v1/sessions', { argv: ['sh', '-c', `echo ${MARK}; exec cat`], name: 'remote' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    const origin = `http://${HOST}:${proxy.port}`;

    // Before signing in, the app's page is the login page.
    await page.goto(`${origin}/`);
    await page.getByRole('heading', { name: 'Sign in to tend' }).waitFor();

    const link = JSON.parse(await tend(['remote', 'link', '--host', `${HOST}:${proxy.port}`, '--json'])) as { url: string };
    const fragment = link.url.slice(link.url.indexOf('#'));
    await page.goto(`${origin}/login${fragment}`);
    await page.waitForURL(`${origin}/`);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.locator(`tr[data-session="${made.body.id}"]`).waitFor();

    const cookies = await context.cookies(origin);
    const login = cookies.find((c) => c.name === 'tend_login');
    assert.ok(login, `the login cookie is set: ${JSON.stringify(cookies.map((c) => c.name))}`);
    assert.equal(login.httpOnly, true);
    assert.equal(login.sameSite, 'Lax');
    assert.equal(login.secure, false, 'over plain HTTP the cookie is not Secure');
    assert.equal(await page.evaluate(() => document.cookie), '', 'no script of the page can read the cookie');

    await page.goto(`${origin}/w/${made.body.id}`);
    await waitFor(async () => (await paneText(page, made.body.id))?.includes(MARK), { what: 'the terminal, through the gate' });
    const pane = (await debugPanes(page)).find((p) => p.sessionId === made.body.id);
    assert.equal(pane?.status, 'live');

    // A second use of the same link is refused, and the page says so.
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(`${origin}/login${fragment}`);
    await waitFor(async () => /did not sign you in: this login link was used already/.test((await second.locator('#state').textContent()) ?? ''), { what: 'the page to say the link was used' });
    assert.equal(new URL(second.url()).hash, '', 'the token is taken out of the address bar');
    await other.close();

    // Revoked while the terminal is open: its socket is cut, and the page goes to the login page
    // rather than saying "reconnecting…" for ever.
    await tend(['remote', 'revoke', '--all']);
    await page.waitForURL(`${origin}/login`);
    await page.getByRole('heading', { name: 'Sign in to tend' }).waitFor();
    await context.close();
    assert.deepEqual(problems.filter((p) => /Content Security Policy/i.test(p)), [], 'the login script ran under its CSP');
  });
});
