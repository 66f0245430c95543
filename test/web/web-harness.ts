// What the browser tests share: a real tend server (its own TEND_HOME), the
// built web app served on 127.0.0.1, and Debian's Chromium driven by
// playwright-core. Pages are read through window.__tendDebug (the terminals'
// own buffers) and the DOM; the server is read through its API, so each test
// compares what the page shows with what the server holds.
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot, startTestServer, type TestServer } from '../server/harness.js';
import type { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { startLoopbackBridge } from './loopback-bridge.js';

/** Generous: a browser, a server and a burst of output on a loaded 2-core machine. */
export const WEB_TEST_TIMEOUT_MS = 180_000;
export const CHROMIUM_PATH = process.env.TEND_CHROMIUM ?? '/usr/bin/chromium';
export const WEB_DIST_DIR = join(repoRoot, 'web', 'dist');
export const RESULTS_DIR = join(repoRoot, 'test-results');

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Why the browser tests cannot run here, or null. */
export function browserUnavailable(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set TEND_CHROMIUM)`;
}

/**
 * Builds web/dist when it is missing (a checkout where `npm run build:web`
 * has not run). A directory is the lock: two test files starting together
 * build once.
 */
export async function ensureWebBuilt(): Promise<void> {
  if (existsSync(join(WEB_DIST_DIR, 'index.html'))) return;
  const lock = join(repoRoot, 'web', '.build-lock');
  let owner = false;
  try {
    mkdirSync(lock);
    owner = true;
  } catch {
    /* another test file is building */
  }
  if (owner) {
    try {
      const r = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(repoRoot, 'web', 'vite.config.ts')], {
        cwd: repoRoot,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`building the web app failed: ${r.stderr || r.stdout}`);
    } finally {
      rmdirSync(lock);
    }
  }
  await waitFor(() => existsSync(join(WEB_DIST_DIR, 'index.html')), { what: 'web/dist/index.html to be built', timeoutMs: 120_000 });
}

async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The window.__tendDebug the page exposes (web/src/debug-hook.ts). */
export interface DebugPaneView {
  sessionId: string;
  status: string;
  cols: number;
  rows: number;
  parsedSeq: number | null;
  ackedSeq: number | null;
  written: { boot: string; seq: number } | null;
  renderer: 'webgl' | 'dom';
  stats: { snapshots: number; dataFrames: number; dataBytes: number; acks: number; resumes: number };
  problems: string[];
  scrollbackLength: number;
}

interface DebugGlobal {
  __tendDebug?: {
    panes(): DebugPaneView[];
    text(sessionId: string, scrollbackRows?: number): string | null;
    socket(): { state: string; boot: string | null; stats: Record<string, number> } | null;
    problems(): string[];
  };
}

export interface WebHarness {
  server: TestServer;
  /** The page's origin, e.g. http://127.0.0.1:41234 */
  url: string;
  browser: Browser;
  newContext(): Promise<BrowserContext>;
  /** A page in a fresh context, at path, with the app loaded. */
  open(path?: string, context?: BrowserContext): Promise<Page>;
  /** A session made through the API, with a plain bash; returns its id. */
  newSession(options?: { name?: string; argv?: string[]; cols?: number; rows?: number }): Promise<string>;
  /** The server's view of a session's screen (text, trailing blanks trimmed). */
  serverText(sessionId: string, scrollbackRows?: number): Promise<string>;
  killServer(): Promise<void>;
  startServer(): Promise<void>;
}

export const BASH = ['bash', '--norc', '--noprofile', '-i'];
export const SESSION_ENV = (home: string) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  PS1: '$ ',
});

/** env: extra settings for the server (e.g. a small history budget). */
export async function startWebHarness(scope: TestScope, options: { env?: Record<string, string> } = {}): Promise<WebHarness> {
  await ensureWebBuilt();
  // A fixed port, so a restarted server that serves the page itself is where the page left it.
  const port = await freePort();
  const server = startTestServer({ ...options.env, TEND_PORT: String(port) });
  scope.defer(() => server.dispose());
  const start = async () => {
    const started = await server.cli(['server', 'start']);
    if (started.code !== 0) throw new Error(`tend server start failed: ${started.stderr}`);
  };
  await start();

  let url = `http://127.0.0.1:${port}`;
  const health = await server.api<{ port?: number | null }>('GET', '/v1/health');
  let servesPage = false;
  if (typeof health.body.port === 'number') {
    try {
      const res = await fetch(`${url}/`);
      servesPage = res.ok && (res.headers.get('content-type') ?? '').startsWith('text/html');
    } catch {
      servesPage = false;
    }
  }
  if (!servesPage) {
    const bridge = await startLoopbackBridge({ socketPath: server.client.paths.serverSocket, webDistDir: WEB_DIST_DIR });
    scope.defer(() => bridge.dispose());
    url = bridge.url;
  }

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  scope.defer(() => browser.close());

  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    scope.defer(() => context.close().catch(() => undefined));
    return context;
  };

  return {
    server,
    url,
    browser,
    newContext,
    async open(path = '/', context?: BrowserContext) {
      const ctx = context ?? (await newContext());
      const page = await ctx.newPage();
      await page.goto(url + path);
      return page;
    },
    async newSession(options = {}) {
      const res = await server.api<{ id: string }>('POST', '/v1/sessions', {
        ...(options.name ? { name: options.name } : {}),
        argv: options.argv ?? BASH,
        cwd: server.home,
        cols: options.cols ?? 80,
        rows: options.rows ?? 24,
        env: SESSION_ENV(server.home),
      });
      if (res.status !== 201) throw new Error(`could not create a session: ${JSON.stringify(res.body)}`);
      return res.body.id;
    },
    async serverText(sessionId, scrollbackRows = 0) {
      const res = await server.api<{ text: string }>('GET', `/v1/sessions/${sessionId}/screen?scrollback=${scrollbackRows}`);
      if (res.status !== 200) throw new Error(`screen of ${sessionId}: ${JSON.stringify(res.body)}`);
      return res.body.text;
    },
    async killServer() {
      const pid = server.serverPid();
      if (pid === null) throw new Error('no server to kill');
      process.kill(pid, 'SIGKILL');
      await waitFor(() => server.serverPid() === null, { what: `server ${pid} to die` });
    },
    startServer: start,
  };
}

// ------------------------------------------------------------------ pages

/**
 * Every failed load a context's pages see from now on: a response of 400 or above, or an
 * error on the console (the browser logs each failed load there too). A page that only
 * asks what exists should leave it empty.
 */
export function failedLoads(context: BrowserContext): string[] {
  const failed: string[] = [];
  context.on('response', (res) => {
    if (res.status() >= 400) failed.push(`${res.status()} ${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  context.on('console', (msg) => {
    if (msg.type() === 'error') failed.push(`console: ${msg.text()}`);
  });
  return failed;
}

export async function debugPanes(page: Page): Promise<DebugPaneView[]> {
  return page.evaluate(() => (globalThis as unknown as DebugGlobal).__tendDebug?.panes() ?? []);
}

export async function paneText(page: Page, sessionId: string, scrollbackRows = 0): Promise<string | null> {
  return page.evaluate(([id, rows]) => (globalThis as unknown as DebugGlobal).__tendDebug?.text(id as string, rows as number) ?? null, [sessionId, scrollbackRows] as const);
}

export async function socketState(page: Page): Promise<string | null> {
  return page.evaluate(() => (globalThis as unknown as DebugGlobal).__tendDebug?.socket()?.state ?? null);
}

export async function pageProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as DebugGlobal).__tendDebug?.problems() ?? []);
}

/** Waits until the page shows sessionId live (snapshot or replay applied). */
export async function waitForLivePane(page: Page, sessionId: string): Promise<DebugPaneView> {
  return waitFor(
    async () => {
      const pane = (await debugPanes(page)).find((p) => p.sessionId === sessionId);
      return pane && pane.status === 'live' && pane.parsedSeq !== null ? pane : null;
    },
    { what: `a live pane of ${sessionId}` },
  );
}

/** Puts keyboard focus in the session's terminal and types text (then Enter when asked). */
export async function typeInto(page: Page, sessionId: string, text: string, options: { enter?: boolean } = {}): Promise<void> {
  await page.locator(`.pane[data-session="${sessionId}"] .xterm-helper-textarea`).focus();
  await page.keyboard.type(text);
  if (options.enter) await page.keyboard.press('Enter');
}

/** Waits until the page's terminal and the server's screen hold the same text, and returns it. */
export async function waitForSameScreen(harness: WebHarness, page: Page, sessionId: string, scrollbackRows = 0): Promise<string> {
  let last = '';
  return waitFor(
    async () => {
      const [mine, theirs] = await Promise.all([paneText(page, sessionId, scrollbackRows), harness.serverText(sessionId, scrollbackRows)]);
      last = `page:\n${mine}\n--- server:\n${theirs}`;
      return mine !== null && mine === theirs ? mine : null;
    },
    { what: `the page's screen of ${sessionId} to equal the server's`, describe: () => last },
  );
}
