// The dashboard in a real browser against a real server: a session created
// from the page runs what is typed into it; rename, kill and revive act on the
// server; every session's status and what it runs is shown, and the page fits
// a phone's 390-px-wide screen without scrolling sideways.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import {
  RESULTS_DIR,
  WEB_TEST_TIMEOUT_MS,
  browserUnavailable,
  failedLoads,
  SESSION_ENV,
  startWebHarness,
  typeInto,
  waitForLivePane,
  waitForSameScreen,
  paneText,
} from './web-harness.js';

const skip = browserUnavailable();

interface SessionRow {
  id: string;
  name: string | null;
  status: string;
  exitCode?: number | null;
}

describe('dashboard', { timeout: WEB_TEST_TIMEOUT_MS, skip: skip ?? false }, () => {
  test('a session created from the page runs a typed command and shows its output, as the server sees it', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const context = await h.newContext();
    const failed = failedLoads(context);
    const page = await h.open('/', context);
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();

    await page.getByLabel('Name').fill('web1');
    await page.getByLabel('Command').fill('bash --norc --noprofile -i');
    await page.getByRole('button', { name: 'New session' }).click();

    // The page opens the new session's workspace.
    await page.waitForURL(/\/w\/web1$/);
    const list = await h.server.api<SessionRow[]>('GET', '/v1/sessions');
    const created = list.body.find((s) => s.name === 'web1');
    assert.ok(created, `the server has the session: ${JSON.stringify(list.body)}`);
    await waitForLivePane(page, created.id);

    await typeInto(page, created.id, 'echo "from the page: $((6 * 7))"', { enter: true });
    await waitFor(async () => (await paneText(page, created.id))?.includes('from the page: 42'), { what: 'the output on the page' });
    const screen = await waitForSameScreen(h, page, created.id);
    assert.match(screen, /^from the page: 42$/m);
    // The dashboard, the form and the new session's page asked nothing that failed.
    assert.deepEqual(failed, [], 'no request of the page failed');
  });

  test('lists every session with its status; rename, kill and revive act on the server', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const running = await h.newSession({ name: 'build' });
    const failing = await h.newSession({ name: 'tests', argv: ['sh', '-c', 'echo failing; exit 3'] });
    await waitFor(async () => (await h.server.api<SessionRow>('GET', `/v1/sessions/${failing}`)).body.status === 'exited', { what: 'the failing session to exit' });

    const page = await h.open('/');
    const row = (id: string) => page.locator(`tr[data-session="${id}"]`);
    await row(running).waitFor();
    await waitFor(async () => (await row(failing).getAttribute('data-status')) === 'exited', { what: 'the exited row' });
    assert.match(await row(running).innerText(), /running/);
    assert.match(await row(failing).innerText(), /exited 3/);

    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: join(RESULTS_DIR, 'dashboard.png') });

    // Rename with the keyboard only: Tab to the button, Enter, type, Enter.
    await page.getByRole('button', { name: 'rename build' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('compile');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await h.server.api<SessionRow>('GET', `/v1/sessions/${running}`)).body.name === 'compile', { what: 'the rename on the server' });
    await page.getByRole('link', { name: 'compile' }).waitFor();

    // Revive the exited one: a new shell in the same session.
    await page.getByRole('button', { name: 'revive tests' }).click();
    await waitFor(async () => (await h.server.api<SessionRow>('GET', `/v1/sessions/${failing}`)).body.status === 'running', { what: 'the revived session' });
    await waitFor(async () => (await row(failing).getAttribute('data-status')) === 'running', { what: 'the row to say running' });

    // Kill takes a second press to confirm.
    await page.getByRole('button', { name: 'kill compile' }).click();
    await page.getByRole('button', { name: 'confirm: kill compile' }).click();
    await waitFor(async () => (await h.server.api<SessionRow>('GET', `/v1/sessions/${running}`)).status === 404, { what: 'the session to be gone' });
    await row(running).waitFor({ state: 'detached' });
  });

  test('on a 390-px-wide screen every session shows what it runs, and nothing scrolls sideways', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    // Long names, a deep directory and long command lines: the worst a row can hold.
    const deep = join(h.server.home, 'a-rather-long-directory-name-for-a-project', 'with', 'nested', 'folders-that-go-on-and-on');
    mkdirSync(deep, { recursive: true });
    const long = 'a-session-name-of-the-longest-kind-allowed-sixty-four-characters';
    const made: Array<{ id: string; shown: RegExp }> = [];
    for (const [name, argv, shown] of [
      [long, ['sh', '-c', 'while true; do sleep 1000; done # and a comment that makes the command line far too long for a phone'], /^while true; do sleep 1000; done # and a comment th.*…$/],
      ['build', ['/usr/bin/env', 'sleep', '1000'], /^env sleep 1000$/],
      ['x', ['sleep', '999999'], /^sleep 999999$/],
    ] as const) {
      const res = await h.server.api<{ id: string }>('POST', '/v1/sessions', { name, argv, cwd: deep, env: SESSION_ENV(h.server.home) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      made.push({ id: res.body.id, shown });
    }

    const context = await h.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' });
    scope.defer(() => context.close().catch(() => undefined));
    const page = await h.open('/', context);
    for (const m of made) {
      const command = page.locator(`tr[data-session="${m.id}"] td.command`);
      await command.waitFor();
      assert.match((await command.innerText()).trim(), m.shown);
    }
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: join(RESULTS_DIR, 'dashboard-390px.png'), fullPage: true });
    const widths = await page.evaluate(() => {
      const dashboard = document.querySelector('main.dashboard')!;
      const overflowing = Array.from(document.querySelectorAll('main.dashboard *'))
        // Headers kept for screen readers only are clipped to a pixel: not on the screen.
        .filter((e) => e.closest('thead, .visually-hidden') === null && e.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
      return { page: document.scrollingElement!.scrollWidth, dashboard: dashboard.scrollWidth, dashboardClient: dashboard.clientWidth, overflowing };
    });
    t.diagnostic(JSON.stringify(widths));
    assert.ok(widths.page <= 390, `the page is ${widths.page} px wide`);
    assert.ok(widths.dashboard <= widths.dashboardClient, `the dashboard scrolls sideways (${widths.dashboard} > ${widths.dashboardClient} px)`);
    assert.deepEqual(widths.overflowing, [], 'elements that reach past the screen');
    // The actions are still there to tap.
    await page.getByRole('button', { name: `kill ${long}` }).waitFor();
  });
});
