// `tend open --app`: the browser app in a window of its own. With a
// Chromium-family browser on PATH, the real Chromium starts in app mode on the
// page's address with tend's own profile (TEND_HOME/browser-profile), and the
// page it shows is the tend app — read over the DevTools protocol, the
// browser made headless with a DevTools port through TEND_APP_BROWSER_ARGS.
// With none on PATH, the default browser's opener gets the address, and the
// verb says so; with no opener either, it says to open the address by hand.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive, killQuietly } from '../support/processes.js';
import { cliWith, startTestServer, type TestServer } from '../server/harness.js';
import { CHROMIUM_PATH, browserUnavailable, ensureWebBuilt } from '../web/web-harness.js';

const TIMEOUT_MS = 120_000;
/** Headless (no display here) with a DevTools port the test reads; the rest as the web tests run Chromium. */
const TEST_BROWSER_ARGS = '--headless=new --remote-debugging-port=0 --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync';

async function startServer(scope: TestScope): Promise<TestServer> {
  await ensureWebBuilt();
  const server = startTestServer();
  scope.defer(() => server.dispose());
  const started = await server.cli(['server', 'start']);
  assert.equal(started.code, 0, started.stderr);
  return server;
}

/** Every process whose command line names the profile directory: the browser and its helpers. */
function pidsUsingProfile(profile: string): number[] {
  const pids: number[] = [];
  for (const entry of readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(profile)) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

function readdir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

describe('tend open --app', { timeout: TIMEOUT_MS, skip: process.platform !== 'linux' ? 'finds browsers on PATH as on Linux' : false }, () => {
  test('starts the Chromium on PATH in app mode on the page, with its own profile; the page it shows is the tend app', { skip: browserUnavailable() ?? false }, async (t) => {
    const scope = useTestScope(t);
    const server = await startServer(scope);
    // Chromium under the first name looked for, whatever the machine calls it.
    const bin = scope.tempDir('tend-open-app-bin-');
    symlinkSync(CHROMIUM_PATH, join(bin, 'chromium'));
    const env = { ...server.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, TEND_APP_BROWSER_ARGS: TEST_BROWSER_ARGS };
    const profile = join(server.home, 'browser-profile');

    // What it would run, without running it.
    const printed = await cliWith(env, ['open', '--app', '--print']);
    assert.equal(printed.code, 0, printed.stderr);
    const [url, described] = printed.stdout.trim().split('\n');
    assert.match(url!, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.match(described!, new RegExp(`^chromium: ${bin}/chromium `));
    const planned = JSON.parse((await cliWith(env, ['open', '--app', '--json'])).stdout) as { url: string; app: { kind: string; browser: string; command: string[]; profileDir: string } };
    assert.equal(planned.url, url);
    assert.equal(planned.app.kind, 'app-window');
    assert.equal(planned.app.browser, 'chromium');
    assert.equal(planned.app.profileDir, profile);
    assert.equal(planned.app.command[0], join(bin, 'chromium'));
    assert.ok(planned.app.command.includes(`--app=${url}`) && planned.app.command.includes(`--user-data-dir=${profile}`), planned.app.command.join(' '));
    assert.equal(existsSync(profile), false, '--print and --json start nothing');

    const opened = await cliWith(env, ['open', '--app']);
    assert.equal(opened.code, 0, opened.stderr);
    assert.equal(opened.stdout.trim(), url);
    // The browser's pid, from the lock Chromium keeps in its profile ("host-PID").
    const pid = await waitFor(
      () => {
        try {
          const n = Number(/-(\d+)$/.exec(readlinkSync(join(profile, 'SingletonLock')))?.[1]);
          return Number.isInteger(n) && n > 0 ? n : null;
        } catch {
          return null;
        }
      },
      { what: 'Chromium to lock its profile' },
    );
    scope.defer(async () => {
      killQuietly(pid, 'SIGTERM');
      await waitFor(() => !isProcessAlive(pid), { what: `the browser ${pid} to exit`, timeoutMs: 10_000 }).catch(() => killQuietly(pid, 'SIGKILL'));
      for (const helper of pidsUsingProfile(profile)) killQuietly(helper, 'SIGKILL');
    });
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.ok(cmdline.includes(`--app=${url}`), `app mode on the page: ${cmdline.join(' ')}`);
    assert.ok(cmdline.includes(`--user-data-dir=${profile}`), `tend's profile: ${cmdline.join(' ')}`);

    // The page in that browser, read over the DevTools protocol: the tend app, at the address.
    const port = await waitFor(
      () => {
        try {
          const n = Number(readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0]);
          return n > 0 ? n : null;
        } catch {
          return null;
        }
      },
      { what: 'the DevTools port' },
    );
    const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
    scope.defer(() => browser.close().catch(() => undefined));
    const page = await waitFor(() => browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === url) ?? null, { what: `a page at ${url}` });
    await page.locator('main.dashboard h1').waitFor();
    assert.equal(await page.locator('main.dashboard h1').innerText(), 'Sessions');
    assert.equal(await page.title(), 'tend');
  });

  test('with no Chromium-family browser on PATH it says so and hands the address to the default browser; with no opener either, to the person', async (t) => {
    const scope = useTestScope(t);
    const server = await startServer(scope);
    // A PATH with the desktop's opener only: a stand-in that records what it was given.
    const bin = scope.tempDir('tend-open-app-opener-');
    const record = join(bin, 'opened');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$@" > '${record}'\n`, { mode: 0o755 });
    const env = { ...server.env, PATH: bin };

    const planned = JSON.parse((await cliWith(env, ['open', '--app', '--json'])).stdout) as { url: string; app: { kind: string; command: string[]; note: string } };
    assert.equal(planned.app.kind, 'default-browser');
    assert.deepEqual(planned.app.command, [join(bin, 'xdg-open'), planned.url]);

    const opened = await cliWith(env, ['open', '--app']);
    assert.equal(opened.code, 0, opened.stderr);
    assert.equal(opened.stdout.trim(), planned.url);
    assert.match(opened.stderr, /no Chromium-family browser found \(looked for chromium, .* on PATH\); opening the default browser instead/);
    const given = await waitFor(() => (existsSync(record) ? readFileSync(record, 'utf8').trim() : null), { what: 'the opener to be run' });
    assert.equal(given, planned.url);

    // Nothing at all on PATH: the address, and what to do with it.
    const bare = await cliWith({ ...server.env, PATH: scope.tempDir('tend-open-app-empty-') }, ['open', '--app']);
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(bare.stdout.trim(), planned.url);
    assert.match(bare.stderr, /no Chromium-family browser found .*and no xdg-open to open the default browser either: open the address yourself/);
  });
});
