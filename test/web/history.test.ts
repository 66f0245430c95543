// A pane's history beyond what its terminal holds, in the history view: a
// session prints far more rows than a snapshot carries (1 000), a page opens
// it, and the view reads the older rows from the server page by page until
// the start. What it shows must be exactly the server's rows just above the
// pane's own (compared with the server's screen route), the pane must be
// untouched by it, a history cut by the memory budget must say so, and a
// server restart under an open view must be said and recoverable.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import {
  WEB_TEST_TIMEOUT_MS,
  browserUnavailable,
  debugPanes,
  pageProblems,
  paneText,
  socketState,
  startWebHarness,
  waitForLivePane,
  waitForSameScreen,
} from './web-harness.js';
import { ALL_ROWS, PAGE_ROWS, SLOW, history, lines, loadToStart, runInSession, settledHistory } from './history-helpers.js';

const LINES = 30_000;

describe('history view', { timeout: 3 * WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test(`seq 1 ${LINES}: the view reads every older row exactly as the server holds it, and the pane is untouched`, { timeout: WEB_TEST_TIMEOUT_MS }, async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'deep' });
    // Printed before any page looks: the page's snapshot carries only the newest 1 000 rows.
    await runInSession(h, id, `seq 1 ${LINES}`, 'seq-done');

    const page = await h.open('/w/deep');
    await waitForLivePane(page, id);
    await waitForSameScreen(h, page, id, 1000);
    const paneBefore = (await paneText(page, id, ALL_ROWS))!;
    const paneStateBefore = (await debugPanes(page)).find((p) => p.sessionId === id)!;
    const all = lines(await h.serverText(id, ALL_ROWS));
    const mine = lines(paneBefore);
    assert.ok(mine.length > 1000 && all.length > LINES, `the pane holds ${mine.length} rows, the server ${all.length}`);
    assert.deepEqual(all.slice(all.length - mine.length), mine, "the pane's rows are the server's newest");
    /** The server's rows above the pane's: what the view must show, oldest first. */
    const older = all.slice(0, all.length - mine.length);
    const panel = page.locator(`.history-panel[data-session="${id}"]`);

    // 1. Scrolling the pane to its very top opens the view on the newest page of older rows.
    await page.locator(`.pane[data-session="${id}"] .pane-body`).hover();
    await waitFor(
      async () => {
        if ((await history(page, id)) !== null) return true;
        await page.mouse.wheel(0, -2000);
        return false;
      },
      { ...SLOW, intervalMs: 50, what: 'the view to open at the top of the pane' },
    );
    // Wheels sent while the view was mounting land in it at its top, and a wheel at the top of
    // the view loads the next older page, by design: on a slow machine the view may hold more
    // than one page by now, but always whole pages, newest first, exactly the server's rows.
    let view = await settledHistory(page, id, 'the first page after scrolling to the top', true);
    assert.equal(view.problem, null);
    assert.ok(view.loadedRows >= PAGE_ROWS, `at least the first page (${view.loadedRows} rows)`);
    if (!view.oldest) assert.equal(view.loadedRows % PAGE_ROWS, 0, `whole pages (${view.loadedRows} rows)`);
    assert.deepEqual(view.rows, older.slice(-view.loadedRows), 'the first pages are the rows just above the pane');
    assert.match(view.header, view.oldest ? /start of history/ : /not loaded yet/);
    assert.match(view.footer, /the pane's own scrollback continues below/);
    assert.equal(view.gap, false);
    // Escape closes it (focus is in the view).
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.equal(await history(page, id), null);

    // 2. The toolbar button; "Load older" to the start of the history.
    await page.locator(`.pane[data-session="${id}"] button[aria-label="older history from the server"]`).click();
    await panel.waitFor();
    view = await loadToStart(page, id);
    t.diagnostic(`${view.loadedRows} older rows in ${Math.ceil(view.loadedRows / PAGE_ROWS)} pages; the pane holds ${mine.length}`);
    assert.equal(view.problem, null);
    assert.equal(view.dropped, 0);
    assert.match(view.header, /start of history/);
    assert.equal(view.loadedRows, older.length);
    assert.equal(view.rows.length, older.length);
    assert.deepEqual(view.rows, older, "the view's rows are exactly the server's rows above the pane's");
    // In numbers: 1 and every line after it, up to where the pane's rows begin.
    const numbers = view.rows.filter((l) => /^\d+$/.test(l)).map(Number);
    assert.equal(numbers[0], 1);
    numbers.forEach((v, i) => assert.equal(v, i + 1, `history row ${i} is ${v}`));
    assert.equal(Number(mine[0]), numbers[numbers.length - 1]! + 1, "the pane's first row follows the view's last");

    // Search in the loaded rows: the search key, from the view's button, finds the oldest lines.
    await page.keyboard.press('Control+Shift+F');
    const searchInput = panel.locator('input[type="search"]');
    await searchInput.waitFor();
    await searchInput.fill('777');
    await searchInput.press('Enter');
    await waitFor(async () => (await panel.locator('.search-result').innerText()) === '', { what: 'a match' });
    await searchInput.fill('no such line anywhere');
    await searchInput.press('Enter');
    await waitFor(async () => (await panel.locator('.search-result').innerText()) === 'no match', { what: '"no match"' });
    await searchInput.press('Escape');
    await searchInput.waitFor({ state: 'detached' });
    assert.notEqual(await history(page, id), null, 'Escape in the search closes the search, not the view');

    // The close button.
    await panel.locator('button[aria-label="close the history view"]').click();
    await panel.waitFor({ state: 'detached' });

    // 3. The keyboard: Ctrl+Shift+L from the pane's terminal opens it, Escape closes it.
    await page.locator(`.pane[data-session="${id}"] .xterm-helper-textarea`).focus();
    await page.keyboard.press('Control+Shift+L');
    view = await settledHistory(page, id, 'the first page after Ctrl+Shift+L', true);
    assert.deepEqual(view.rows, older.slice(-PAGE_ROWS));
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });

    // The pane is exactly as it was: same rows, nothing re-sent, nothing reset, nothing wrong.
    assert.equal(await paneText(page, id, ALL_ROWS), paneBefore);
    const paneStateAfter = (await debugPanes(page)).find((p) => p.sessionId === id)!;
    assert.equal(paneStateAfter.status, 'live');
    assert.equal(paneStateAfter.scrollbackLength, paneStateBefore.scrollbackLength);
    assert.equal(paneStateAfter.parsedSeq, paneStateBefore.parsedSeq);
    assert.equal(paneStateAfter.stats.snapshots, paneStateBefore.stats.snapshots);
    assert.deepEqual(paneStateAfter.problems, []);
    assert.deepEqual(await pageProblems(page), []);
    await waitForSameScreen(h, page, id, 1000);
  });

  test('no older rows says so; a history cut by the memory budget says how many rows were dropped', { timeout: WEB_TEST_TIMEOUT_MS }, async (t) => {
    const scope = useTestScope(t);
    // A history of at most 64 KiB per session: far less than the rows printed below.
    const h = await startWebHarness(scope, { env: { TEND_SCROLLBACK_ROWS: '60000', TEND_HISTORY_BYTES: String(64 * 1024) } });

    const short = await h.newSession({ name: 'short' });
    await runInSession(h, short, 'echo a few rows', 'short-done');
    const page = await h.open('/w/short');
    await waitForLivePane(page, short);
    const shortBefore = await waitForSameScreen(h, page, short);
    await page.locator(`.pane[data-session="${short}"] button[aria-label="older history from the server"]`).click();
    let view = await settledHistory(page, short, 'the answer for a short session', true);
    assert.equal(view.problem, null);
    assert.equal(view.oldest, true);
    assert.equal(view.loadedRows, 0);
    assert.deepEqual(view.rows, []);
    assert.match(view.header, /^── no older rows ──$/);
    await page.keyboard.press('Escape');
    await page.locator('.history-panel').waitFor({ state: 'detached' });
    assert.equal(await paneText(page, short), shortBefore);

    const budget = await h.newSession({ name: 'budget' });
    await runInSession(h, budget, `seq -f 'row %g of a history over its budget' 1 20000`, 'budget-done');
    const screen = await h.server.api<{ scrollback: { shown: number; available: number; dropped: number } }>('GET', `/v1/sessions/${budget}/screen?scrollback=${ALL_ROWS}`);
    const dropped = screen.body.scrollback.dropped;
    assert.ok(dropped > 0, `the server dropped rows (${JSON.stringify(screen.body.scrollback)})`);
    await page.goto(`${h.url}/w/budget`);
    await waitForLivePane(page, budget);
    await waitForSameScreen(h, page, budget, 1000);
    const mine = lines((await paneText(page, budget, ALL_ROWS))!);
    const all = lines(await h.serverText(budget, ALL_ROWS));
    const older = all.slice(0, all.length - mine.length);
    await page.locator(`.pane[data-session="${budget}"] .xterm-helper-textarea`).focus();
    await page.keyboard.press('Control+Shift+L');
    view = await loadToStart(page, budget);
    t.diagnostic(`${view.loadedRows} rows held, ${view.dropped} dropped`);
    assert.equal(view.problem, null);
    assert.equal(view.dropped, dropped);
    assert.equal(view.header, `── ${new Intl.NumberFormat('en').format(dropped)} older rows were dropped (server memory budget) ──`);
    assert.deepEqual(view.rows, older, 'the rows that are held, exactly');
    assert.doesNotMatch(view.rows[0] ?? '', /row 1 of/, 'the first rows are gone, not shown');
    const summary = await page.locator('.history-summary').innerText();
    assert.match(summary, /dropped/);
    assert.deepEqual(await pageProblems(page), []);
  });

  test('the server restarts under an open view: it says so, keeps its rows, and reads again on retry', { timeout: WEB_TEST_TIMEOUT_MS }, async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope, { env: { TEND_CHECKPOINT_QUIET_MS: '200' } });
    const id = await h.newSession({ name: 'restart' });
    await runInSession(h, id, 'seq 1 8000', 'restart-done');
    const page = await h.open('/w/restart');
    await waitForLivePane(page, id);
    await waitForSameScreen(h, page, id, 1000);
    await page.locator(`.pane[data-session="${id}"] button[aria-label="older history from the server"]`).click();
    const first = await settledHistory(page, id, 'the first page', true);
    assert.equal(first.loadedRows, PAGE_ROWS);

    await h.killServer();
    const notice = page.locator('.history-panel .history-notice:not(.history-gap)');
    await notice.waitFor();
    assert.match(await notice.innerText(), /reconnecting/);
    assert.equal((await history(page, id, true))?.rows.length, PAGE_ROWS, 'the rows read stay while the server is away');
    assert.equal(await page.locator('.history-panel button[aria-label="load older rows"]').getAttribute('aria-disabled'), 'true');

    await h.startServer();
    await waitFor(async () => (await socketState(page)) === 'open', { what: 'the page to reconnect', timeoutMs: 60_000 });
    await waitForLivePane(page, id);
    // Row numbers are the old server's: the view says so and offers to read again.
    const restarted = await waitFor(async () => {
      const v = await history(page, id);
      return v?.problem && v.canRetry ? v : null;
    }, { ...SLOW, what: 'the view to say the server restarted' });
    assert.match(restarted.problem!, /server restarted/);
    await page.locator('.history-panel button[aria-label="retry reading the history"]').click();
    await waitFor(async () => (await history(page, id))?.problem === null, { what: 'the retry to start' });
    const again = await settledHistory(page, id, 'the first page from the new server', true);
    assert.equal(again.problem, null);
    await waitForSameScreen(h, page, id, 1000);
    const mine = lines((await paneText(page, id, ALL_ROWS))!);
    const all = lines(await h.serverText(id, ALL_ROWS));
    const older = all.slice(0, all.length - mine.length);
    t.diagnostic(`after the restart: ${again.loadedRows} rows in the view, ${older.length} above the pane on the server`);
    assert.deepEqual(again.rows, older.slice(-again.loadedRows));
    assert.equal(again.loadedRows, Math.min(PAGE_ROWS, older.length));
    await page.keyboard.press('Escape');
    await page.locator('.history-panel').waitFor({ state: 'detached' });
  });
});
