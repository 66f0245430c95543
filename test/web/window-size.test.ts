// A browser page opened on a session a terminal is attached to (issue 22,
// defect 3: a page opened on a session attached in a 120x35 terminal set it
// to the page's 157x42 just by opening). Opening a page never takes the
// size: the pane shows the session at the session's size. Typing in the page
// makes it the latest viewer, and the session takes the pane's size; typing
// in the terminal takes it back, and the pane follows.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { AttachedTerminal, serverScreen } from '../attach/attach-harness.js';
import { WEB_TEST_TIMEOUT_MS, browserUnavailable, debugPanes, startWebHarness, typeInto, waitForLivePane, waitForSameScreen } from './web-harness.js';

describe('window size with a browser', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('opening a page does not resize the session; typing in it does; the pane follows the session', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'shared', cols: 120, rows: 35 });
    await waitFor(async () => /\$/.test(await h.serverText(id)), { what: 'the prompt' });
    const term = await AttachedTerminal.start(scope, h.server, [':shared'], { cols: 120, rows: 35 });
    await term.waitForServerScreen(h.server, id);

    const page = await h.open('/w/shared');
    const pane = await waitForLivePane(page, id);
    const size = async () => {
      const s = await serverScreen(h.server, id);
      return `${s.cols}x${s.rows}`;
    };
    assert.equal(await size(), '120x35', 'the page opening left the size alone');
    assert.deepEqual([pane.cols, pane.rows], [120, 35], 'the pane renders the session at its size');
    await waitForSameScreen(h, page, id);

    // Typing in the page makes it the latest viewer: the session takes the pane's size.
    await typeInto(page, id, 'echo from-the-page', { enter: true });
    await waitFor(async () => (await size()) !== '120x35', { what: 'the session to take the page pane\'s size' });
    const paneSize = async () => {
      const p = (await debugPanes(page)).find((d) => d.sessionId === id)!;
      return `${p.cols}x${p.rows}`;
    };
    await waitFor(async () => (await paneSize()) === (await size()), { what: 'the pane to render the new size' });
    await waitForSameScreen(h, page, id);

    // Typing in the terminal takes the size back; the pane follows the RESIZE.
    term.type('echo from-the-terminal\r');
    await waitFor(async () => (await size()) === '120x35', { what: 'the terminal to take the size back' });
    await waitFor(async () => (await paneSize()) === '120x35', { what: 'the pane to follow' });
    await term.waitForServerScreen(h.server, id);
    await waitForSameScreen(h, page, id);
    term.type('\x1cd');
    await term.waitForExit();
  });

  test('a session larger than the pane is shown at its size, scrolled to keep the cursor in view', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'large', cols: 200, rows: 60 });
    await waitFor(async () => /\$/.test(await h.serverText(id)), { what: 'the prompt' });
    await h.server.api('POST', `/v1/sessions/${id}/input`, { text: "for i in $(seq 1 70); do printf 'row %02d %0180d|\\n' $i $i; done\r" });
    await waitFor(async () => /row 70/.test(await h.serverText(id)), { what: 'the rows' });
    const page = await h.open('/w/large');
    const pane = await waitForLivePane(page, id);
    assert.deepEqual([pane.cols, pane.rows], [200, 60], 'the session keeps its size; the pane renders it');
    const cursorRow = (await serverScreen(h.server, id)).cursor.y;
    // The pane (1280x800 page) holds fewer rows than 60: its body scrolls down to the cursor's row.
    await waitFor(
      () =>
        page.evaluate((row) => {
          const body = document.querySelector<HTMLElement>('.pane-body')!;
          const screen = body.querySelector<HTMLElement>('.xterm-screen')!;
          const cell = screen.offsetHeight / 60;
          const rowBottom = screen.getBoundingClientRect().top - body.getBoundingClientRect().top + (row + 1) * cell;
          return body.scrollHeight > body.clientHeight && rowBottom <= body.clientHeight + 1 && rowBottom > 0;
        }, cursorRow),
      { what: "the pane to scroll the cursor's row into view" },
    );
  });
});
