// The same screen, whatever happens to the page or the server: a reload
// brings back the screen; a server killed under an open page shows
// "reconnecting…" and, once a new server is up, the page resumes the same
// screen and takes input again.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import {
  WEB_TEST_TIMEOUT_MS,
  browserUnavailable,
  debugPanes,
  paneText,
  pageProblems,
  socketState,
  startWebHarness,
  typeInto,
  waitForLivePane,
  waitForSameScreen,
} from './web-harness.js';

describe('reconnect', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('a reload shows the same screen', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'keep' });
    const page = await h.open('/w/keep');
    await waitForLivePane(page, id);
    await typeInto(page, id, 'for i in 1 2 3; do printf "\\033[3${i}mline $i\\033[0m\\n"; done', { enter: true });
    // The prompt after the output too: a screen still changing cannot be compared across the reload.
    await waitFor(async () => /line 3\n\$ ?$/.test((await paneText(page, id)) ?? ''), { what: 'the coloured lines and the next prompt' });
    const before = await waitForSameScreen(h, page, id);

    await page.reload();
    await waitForLivePane(page, id);
    assert.equal(await waitForSameScreen(h, page, id), before);
  });

  test('the server is killed under the page and restarted: reconnecting…, then the same screen, then input again', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'survivor' });
    const page = await h.open('/w/survivor');
    await waitForLivePane(page, id);
    await typeInto(page, id, 'echo before the crash', { enter: true });
    // The prompt after the output too: the screen must be quiet before it is kept as the one to see again.
    await waitFor(async () => /before the crash\n\$ ?$/.test((await paneText(page, id)) ?? ''), { what: 'output before the crash and the next prompt' });
    const before = await waitForSameScreen(h, page, id);
    const bootBefore = (await h.server.api<{ boot: string }>('GET', '/v1/health')).body.boot;
    const paneBefore = (await debugPanes(page)).find((p) => p.sessionId === id)!;

    await h.killServer();
    const banner = page.locator('.connection-banner[data-state="reconnecting"]');
    await banner.waitFor();
    assert.match(await banner.innerText(), /reconnecting…/);
    await waitFor(async () => (await debugPanes(page)).find((p) => p.sessionId === id)?.status === 'reconnecting', { what: 'the pane to say reconnecting' });
    // The screen stays as it was while the server is away.
    assert.equal(await paneText(page, id), before);

    await h.startServer();
    const bootAfter = (await h.server.api<{ boot: string }>('GET', '/v1/health')).body.boot;
    assert.notEqual(bootAfter, bootBefore);
    await waitFor(async () => (await socketState(page)) === 'open', { what: 'the page to reconnect', timeoutMs: 60_000 });
    await banner.waitFor({ state: 'detached' });
    const pane = await waitForLivePane(page, id);
    // Its position belongs to the session's holder, which outlived the server: it resumed, no snapshot repainted it.
    assert.equal(pane.written?.boot, paneBefore.written?.boot);
    assert.equal(pane.stats.snapshots, paneBefore.stats.snapshots);
    assert.equal(await waitForSameScreen(h, page, id), before);

    await typeInto(page, id, 'echo after the restart', { enter: true });
    await waitFor(async () => (await paneText(page, id))?.includes('after the restart'), { what: 'input after the restart' });
    await waitForSameScreen(h, page, id);
    assert.deepEqual(await pageProblems(page), []);
  });
});
