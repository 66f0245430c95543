// The browser app on a phone: Chromium at an iPhone-sized viewport (390 x 844
// CSS px, 3 device pixels a px, touch, a mobile viewport). The dashboard
// stacks its sessions without scrolling sideways; a session's page shows its
// screen at the width of the phone; the key row sends what a phone keyboard
// lacks (checked as the bytes a real program read from its PTY); typing into
// xterm's textarea reaches the program; a workspace shows one pane at a time
// with tabs to switch; the layout follows the viewport's height; a desktop
// browser still shows the workspace side by side.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { RESULTS_DIR, SESSION_ENV, WEB_TEST_TIMEOUT_MS, browserUnavailable, paneText, startWebHarness, waitForLivePane, type WebHarness } from './web-harness.js';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true, colorScheme: 'dark' as const };

/**
 * A program that reads its terminal raw and logs every read as hex, one read
 * a line, to a file (and echoes it): what a key really sent. 'a' turns the
 * terminal's application cursor-key mode on, 'n' off, each saying so after.
 */
const BYTE_LOGGER = `
import os, sys, tty
log = open(sys.argv[1], 'a')
tty.setraw(0)
os.write(1, b'ready\\r\\n')
while True:
    data = os.read(0, 4096)
    if not data:
        break
    log.write(data.hex() + '\\n')
    log.flush()
    os.write(1, data.hex().encode() + b'\\r\\n')
    if data == b'a':
        os.write(1, b'\\x1b[?1happ mode\\r\\n')
    elif data == b'n':
        os.write(1, b'\\x1b[?1lnormal mode\\r\\n')
`;

async function phoneContext(h: WebHarness, scope: TestScope): Promise<BrowserContext> {
  const context = await h.browser.newContext(PHONE);
  scope.defer(() => context.close().catch(() => undefined));
  return context;
}

/** Elements of the page that reach past the screen's right edge, and the page's own scroll width. */
async function sidewaysOverflow(page: Page): Promise<{ page: number; overflowing: string[] }> {
  return page.evaluate(() => {
    const overflowing = Array.from(document.querySelectorAll('.app *'))
      // Kept for screen readers only (clipped to a pixel), hidden, or inside something that scrolls on its own.
      .filter((e) => e.closest('thead, .visually-hidden, .pane-tabs, .xterm') === null && (e as HTMLElement).offsetParent !== null)
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName.toLowerCase()}.${String(e.className)}`);
    return { page: document.scrollingElement!.scrollWidth, overflowing };
  });
}

/** Which element has the focus: xterm's textarea is where the on-screen keyboard types. */
async function focusedClass(page: Page): Promise<string> {
  return page.evaluate(() => String(document.activeElement?.className ?? ''));
}

describe('the browser app on a phone', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('dashboard without sideways scrolling; a session fitted to the width; the key row and the textarea send the right bytes', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const script = join(h.server.home, 'byte-logger.py');
    const log = join(h.server.home, 'bytes.log');
    writeFileSync(script, BYTE_LOGGER);
    writeFileSync(log, '');
    const made = await h.server.api<{ id: string }>('POST', '/v1/sessions', {
      name: 'keys',
      argv: ['python3', script, log],
      cwd: h.server.home,
      cols: 100,
      rows: 30,
      env: SESSION_ENV(h.server.home),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const keys = made.body.id;
    const other = await h.newSession({ name: 'a-second-session-with-a-long-name-for-a-phone' });

    const page = await h.open('/', await phoneContext(h, scope));
    // The dashboard: both sessions, one card under the other, nothing past the right edge.
    const cards = [page.locator(`tr[data-session="${keys}"]`), page.locator(`tr[data-session="${other}"]`)];
    for (const card of cards) await card.waitFor();
    const [first, second] = [(await cards[0]!.boundingBox())!, (await cards[1]!.boundingBox())!];
    assert.ok(first.width <= 390 && second.width <= 390, `cards ${first.width} and ${second.width} px wide`);
    assert.ok(Math.abs(first.x - second.x) < 1 && (second.y >= first.y + first.height - 1 || first.y >= second.y + second.height - 1), 'the cards are stacked');
    const dashboard = await sidewaysOverflow(page);
    t.diagnostic(`dashboard: ${JSON.stringify(dashboard)}`);
    assert.ok(dashboard.page <= 390, `the page is ${dashboard.page} px wide`);
    assert.deepEqual(dashboard.overflowing, []);
    const fontPx = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('.session-name')!).fontSize));
    assert.ok(fontPx >= 14, `session names in ${fontPx} px type`);
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: join(RESULTS_DIR, 'phone-dashboard.png') });

    // Open the session with a tap: its screen, the key row under it, the page's header given way.
    await page.getByRole('button', { name: 'open keys' }).tap();
    await waitForLivePane(page, keys);
    await waitFor(async () => /^ready$/m.test((await paneText(page, keys)) ?? ''), { what: 'the program to be ready' });
    const row = page.getByRole('toolbar', { name: 'keys the on-screen keyboard lacks' });
    await row.waitFor();
    assert.equal(await page.locator('.app-header').isVisible(), false, "the page's header gives its room to the terminal");

    // A tap on the terminal focuses xterm's textarea: the on-screen keyboard's target.
    await page.locator(`.pane[data-session="${keys}"] .pane-body`).tap();
    await waitFor(async () => (await focusedClass(page)).includes('xterm-helper-textarea'), { what: "xterm's textarea to have the focus after a tap" });

    let logged = '';
    const received = () => readFileSync(log, 'utf8').split('\n').join('');
    const expectBytes = async (hex: string, what: string) => {
      logged += hex;
      await waitFor(() => received() === logged, { what: `${what}: the program to read ${hex}`, describe: () => `it read ${received()}` });
    };
    const tapKey = async (name: string) => {
      await row.getByRole('button', { name, exact: true }).tap();
      // The key took no focus: the keyboard would stay open.
      assert.match(await focusedClass(page), /xterm-helper-textarea/, `the focus after ${name}`);
    };

    // Typing on the keyboard, through the textarea: keys, and text an input method commits whole.
    await page.keyboard.type('hi');
    await expectBytes('6869', 'typed "hi"');
    await page.keyboard.insertText('é');
    await expectBytes('c3a9', 'an input method\'s "é"');

    // The terminal takes the phone's width once this page types: fewer columns than the 100 it had, none cut off.
    const cols = await waitFor(
      async () => {
        const c = (await h.server.api<{ cols: number }>('GET', `/v1/sessions/${keys}`)).body.cols;
        return c < 100 ? c : null;
      },
      { what: "the session to take the phone's width" },
    );
    const fit = await page.evaluate((id) => {
      const body = document.querySelector(`.pane[data-session="${id}"] .pane-body`) as HTMLElement;
      return { screen: body.querySelector('.xterm-screen')!.getBoundingClientRect().width, body: body.clientWidth, scroll: body.scrollWidth };
    }, keys);
    t.diagnostic(`fitted: ${cols} columns, ${JSON.stringify(fit)}`);
    assert.ok(cols >= 30 && cols <= 60, `${cols} columns on a 390-px screen`);
    await waitFor(async () => {
      const now = await page.evaluate((id) => {
        const body = document.querySelector(`.pane[data-session="${id}"] .pane-body`) as HTMLElement;
        return body.scrollWidth <= body.clientWidth;
      }, keys);
      return now;
    }, { what: 'the terminal to fit the pane without scrolling sideways' });

    // The key row, key by key: what a terminal's keyboard sends for each.
    await tapKey('Escape');
    await expectBytes('1b', 'Esc');
    await tapKey('Tab');
    await expectBytes('09', 'Tab');
    await tapKey('up arrow');
    await expectBytes('1b5b41', 'up (normal cursor keys)');
    await tapKey('down arrow');
    await expectBytes('1b5b42', 'down');
    await tapKey('right arrow');
    await expectBytes('1b5b43', 'right');
    await tapKey('left arrow');
    await expectBytes('1b5b44', 'left');
    await tapKey('Control C');
    await expectBytes('03', 'Ctrl-C');
    await tapKey('vertical bar');
    await expectBytes('7c', '|');
    await tapKey('tilde');
    await expectBytes('7e', '~');
    await tapKey('slash');
    await expectBytes('2f', '/');

    // Ctrl is sticky: tapped, it holds for the next key — the keyboard's or the row's — then lets go.
    const ctrl = row.getByRole('button', { name: 'Control: held for the next key' });
    await tapKey('Control: held for the next key');
    assert.equal(await ctrl.getAttribute('aria-pressed'), 'true');
    await page.keyboard.type('d');
    await expectBytes('04', 'Ctrl then d on the keyboard');
    assert.equal(await ctrl.getAttribute('aria-pressed'), 'false', 'Ctrl lets go after one key');
    await tapKey('Control: held for the next key');
    await tapKey('left arrow');
    await expectBytes('1b5b313b3544', 'Ctrl then left');

    // Application cursor-key mode (as vim or less set it): the arrows follow it.
    await page.keyboard.type('a');
    await expectBytes('61', 'a');
    await waitFor(async () => /^app mode$/m.test((await paneText(page, keys)) ?? ''), { what: 'application cursor mode on' });
    await tapKey('up arrow');
    await expectBytes('1b4f41', 'up (application cursor keys)');
    await tapKey('left arrow');
    await expectBytes('1b4f44', 'left (application cursor keys)');
    await page.keyboard.type('n');
    await expectBytes('6e', 'n');
    await waitFor(async () => /^normal mode$/m.test((await paneText(page, keys)) ?? ''), { what: 'application cursor mode off' });
    await tapKey('up arrow');
    await expectBytes('1b5b41', 'up (normal again)');

    const workspace = await sidewaysOverflow(page);
    t.diagnostic(`session page: ${JSON.stringify(workspace)}`);
    assert.ok(workspace.page <= 390, `the page is ${workspace.page} px wide`);
    assert.deepEqual(workspace.overflowing, []);
    await page.screenshot({ path: join(RESULTS_DIR, 'phone-session.png') });
  });

  test('a workspace shows one pane at a time with tabs to switch and fits a viewport a keyboard made shorter; a desktop browser still shows it side by side', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const a = await h.newSession({ name: 'left' });
    const b = await h.newSession({ name: 'right' });
    const layout = { type: 'split', direction: 'right', ratio: 0.5, first: { type: 'session', sessionId: a }, second: { type: 'session', sessionId: b } };
    const put = await h.server.api('PUT', '/v1/workspaces/proj', { layout });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    for (const [id, word] of [
      [a, 'alpha'],
      [b, 'bravo'],
    ] as const) {
      const sent = await h.server.api('POST', `/v1/sessions/${id}/input`, { text: `echo ${word}-$((6 * 7))\n` });
      assert.ok(sent.status < 300, JSON.stringify(sent.body));
    }

    const page = await h.open('/w/proj', await phoneContext(h, scope));
    await waitForLivePane(page, a);
    await waitForLivePane(page, b);
    const visiblePanes = async () => {
      const shown: string[] = [];
      for (const pane of await page.locator('.pane').all()) if (await pane.isVisible()) shown.push((await pane.getAttribute('data-session'))!);
      return shown;
    };
    const tabs = page.getByRole('tablist', { name: 'panes' });
    await tabs.waitFor();
    assert.deepEqual(await visiblePanes(), [a], 'one pane, the focused one');
    const paneBox = (await page.locator(`.pane[data-session="${a}"]`).boundingBox())!;
    assert.ok(paneBox.width >= 380 && paneBox.x >= 0 && paneBox.x + paneBox.width <= 390.5, `the pane spans the width (${JSON.stringify(paneBox)})`);
    await waitFor(async () => /^alpha-42$/m.test((await paneText(page, a)) ?? ''), { what: "the left pane's output" });

    // Switch with the tabs: the other pane alone; the workspace on the server is still split.
    await tabs.getByRole('tab', { name: 'right' }).tap();
    await waitFor(async () => (await visiblePanes()).join() === b, { what: 'the right pane alone' });
    assert.equal(await tabs.getByRole('tab', { name: 'right' }).getAttribute('aria-selected'), 'true');
    await waitFor(async () => /^bravo-42$/m.test((await paneText(page, b)) ?? ''), { what: "the right pane's output" });
    const saved = await h.server.api<{ layout: { type: string } }>('GET', '/v1/workspaces/proj');
    assert.equal(saved.body.layout.type, 'split');
    await page.screenshot({ path: join(RESULTS_DIR, 'phone-workspace.png') });

    // An on-screen keyboard takes the bottom of the screen (Chrome on Android
    // shrinks the viewport, as index.html asks): the key row stays in sight
    // above it, the pane above the row, and the PTY takes fewer rows.
    await page.locator(`.pane[data-session="${b}"] .pane-body`).tap();
    await page.keyboard.type('echo typed');
    await page.keyboard.press('Enter');
    const tallRows = await waitFor(
      async () => {
        const s = (await h.server.api<{ rows: number; cols: number }>('GET', `/v1/sessions/${b}`)).body;
        return s.cols < 80 ? s.rows : null;
      },
      { what: "the right session to take the phone's size" },
    );
    const KEYBOARD_OPEN_HEIGHT_PX = 450;
    await page.setViewportSize({ width: 390, height: KEYBOARD_OPEN_HEIGHT_PX });
    await waitFor(async () => (await page.evaluate(() => document.documentElement.style.getPropertyValue('--visible-height'))) === `${KEYBOARD_OPEN_HEIGHT_PX}px`, {
      what: 'the visible height to follow the viewport',
    });
    const row = page.getByRole('toolbar', { name: 'keys the on-screen keyboard lacks' });
    const rowBox = await waitFor(
      async () => {
        const box = await row.boundingBox();
        return box && box.y + box.height <= KEYBOARD_OPEN_HEIGHT_PX + 0.5 ? box : null;
      },
      { what: 'the key row above the keyboard' },
    );
    const shortPane = (await page.locator(`.pane[data-session="${b}"]`).boundingBox())!;
    assert.ok(shortPane.y + shortPane.height <= rowBox.y + 0.5, `the pane (${JSON.stringify(shortPane)}) ends above the key row (${JSON.stringify(rowBox)})`);
    await page.keyboard.type('echo shorter');
    await page.keyboard.press('Enter');
    const shortRows = await waitFor(
      async () => {
        const r = (await h.server.api<{ rows: number }>('GET', `/v1/sessions/${b}`)).body.rows;
        return r < tallRows ? r : null;
      },
      { what: 'the PTY to take fewer rows' },
    );
    t.diagnostic(`rows with the keyboard closed ${tallRows}, open ${shortRows}`);
    await page.screenshot({ path: join(RESULTS_DIR, 'phone-workspace-keyboard.png') });

    // The same workspace in a desktop browser: side by side as before, no tabs, no key row.
    const desktop = await h.open('/w/proj');
    await waitForLivePane(desktop, a);
    await waitForLivePane(desktop, b);
    assert.equal(await desktop.locator(`.pane[data-session="${a}"]`).isVisible(), true);
    assert.equal(await desktop.locator(`.pane[data-session="${b}"]`).isVisible(), true);
    assert.equal(await desktop.getByRole('tablist', { name: 'panes' }).count(), 0);
    assert.equal(await desktop.getByRole('toolbar', { name: 'keys the on-screen keyboard lacks' }).count(), 0);
    assert.equal(await desktop.locator('.app-header').isVisible(), true);
  });
});
