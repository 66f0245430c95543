// History after live output: a page that was open while its session printed
// more rows than the pane keeps (10 000) has dropped its oldest rows since
// its snapshot. Every row the server holds must still be reachable — the
// view's rows and then the pane's own are exactly the server's, oldest
// first — or, where rows cannot be reached, the view must say so (the gap
// notice); never "no older rows" while rows remain. Once with the session at
// the size it was made, once typed in the page (which resizes the session to
// the pane), as a person does; and once where the pane reflowed its rows since
// its snapshot, so its rows cannot be joined to the server's: the gap notice.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { WEB_TEST_TIMEOUT_MS, browserUnavailable, debugPanes, pageProblems, paneText, startWebHarness, typeInto, waitForLivePane, waitForSameScreen } from './web-harness.js';
import { ALL_ROWS, SLOW, lines, loadToStart, runInSession } from './history-helpers.js';

/** Far more than the pane keeps, well within what the server keeps (50 000). */
const LINES = 14_000;

describe('history after live output', { timeout: 3 * WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  for (const typed of [false, true]) {
    const how = typed ? 'typed in the page' : 'sent through the API';
    test(`seq 1 ${LINES} ${how} while the page is open: every row the server holds is reachable`, { timeout: WEB_TEST_TIMEOUT_MS }, async (t) => {
      const scope = useTestScope(t);
      const h = await startWebHarness(scope);
      const id = await h.newSession({ name: 'live' });
      const page = await h.open('/w/live');
      await waitForLivePane(page, id);
      if (typed) {
        await waitFor(async () => /\$ ?$/m.test(await h.serverText(id)), { what: 'the shell prompt' });
        await typeInto(page, id, `seq 1 ${LINES}; echo seq-done`, { enter: true });
        await waitFor(async () => /^seq-done$/m.test(await h.serverText(id)), { ...SLOW, what: "seq-done on the server's screen" });
      } else {
        await runInSession(h, id, `seq 1 ${LINES}`, 'seq-done');
      }
      await waitForSameScreen(h, page, id);

      const screen = await h.server.api<{ scrollback: { available: number; dropped: number } }>('GET', `/v1/sessions/${id}/screen?scrollback=${ALL_ROWS}`);
      const all = lines(await h.serverText(id, ALL_ROWS));
      const mine = lines((await paneText(page, id, ALL_ROWS))!);
      const pane = (await debugPanes(page)).find((p) => p.sessionId === id)!;
      t.diagnostic(`server: ${all.length} rows (${JSON.stringify(screen.body.scrollback)}); pane: ${mine.length} rows from ${mine[0]}; ${pane.cols}x${pane.rows}`);
      assert.equal(screen.body.scrollback.dropped, 0);
      assert.ok(mine.length < all.length, 'the pane has dropped rows the server holds');

      await page.locator(`.pane[data-session="${id}"] button[aria-label="older history from the server"]`).click();
      const view = await loadToStart(page, id);
      const notice = await page.locator('.history-panel .history-gap').count();
      t.diagnostic(`the view: ${view.loadedRows} rows, header "${view.header}", gap ${view.gap}, gap notice ${notice}`);
      assert.equal(view.problem, null);
      if (view.gap) {
        // Unreachable rows must be said, never passed off as the start of the history.
        assert.equal(notice, 1, 'the gap notice');
        assert.doesNotMatch(view.header, /^── no older rows ──$/);
        assert.fail(`rows between the view and the pane could not be read (${all.length - view.loadedRows - mine.length} of ${all.length})`);
      }
      assert.equal(notice, 0);
      assert.match(view.header, /start of history/);
      assert.equal(view.loadedRows + mine.length, all.length, 'the view and the pane together hold every row');
      assert.deepEqual([...view.rows, ...mine], all, "the view's rows and the pane's are the server's, oldest first");
      assert.deepEqual(await pageProblems(page), []);
    });
  }

  test('rows the pane reflowed since its snapshot: no row shows twice or out of order, and rows missing between are said', { timeout: WEB_TEST_TIMEOUT_MS }, async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'wide' });
    const page = await h.open('/w/wide');
    await waitForLivePane(page, id);
    // 100-character lines wrap in two at 80 columns: 12 000 rows, more than the pane keeps.
    await runInSession(h, id, `seq -f '%0100g' 1 6000`, 'seq-done');
    await waitForSameScreen(h, page, id);
    // Typing in the page gives the session the pane's size: both terminals reflow the wrapped rows,
    // the pane all it keeps, the server only its live rows (its history keeps the width it was written at).
    const before = (await h.server.api<{ cols: number }>('GET', `/v1/sessions/${id}`)).body.cols;
    await typeInto(page, id, 'echo typed', { enter: true });
    await waitFor(async () => (await h.server.api<{ cols: number }>('GET', `/v1/sessions/${id}`)).body.cols > before, { what: 'the session to take the pane size' });
    await waitFor(async () => /^typed$/m.test(await h.serverText(id)), { what: 'the echo' });
    await waitForSameScreen(h, page, id);

    await page.locator(`.pane[data-session="${id}"] button[aria-label="older history from the server"]`).click();
    const view = await loadToStart(page, id);
    const mine = lines((await paneText(page, id, ALL_ROWS))!);
    const notice = await page.locator('.history-panel .history-gap').count();
    t.diagnostic(`the view: ${view.loadedRows} rows, header "${view.header}", gap ${view.gap}; the pane ${mine.length} rows from ${mine[0]?.slice(-8)}`);
    assert.equal(view.problem, null);
    // The numbers the view and the pane show, in order: none twice, none out of order.
    const numbers = [...view.rows, ...mine].filter((l) => /^\d{100}$/.test(l)).map(Number);
    numbers.forEach((v, i) => i === 0 || assert.ok(v > numbers[i - 1]!, `row ${v} after ${numbers[i - 1]}`));
    const pieces = [...view.rows, ...mine].filter((l) => /^\d+$/.test(l) && l.length !== 100);
    if (view.gap) {
      assert.equal(notice, 1, 'the gap notice');
      assert.doesNotMatch(view.header, /^── no older rows ──$/);
    } else {
      // Joined: every line from 1 on, whole or in the pieces the server's history keeps.
      assert.equal(notice, 0);
      t.diagnostic(`${numbers.length} whole lines, ${pieces.length} pieces`);
    }
    assert.deepEqual(await pageProblems(page), []);
  });
});
