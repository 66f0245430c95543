// `tend open TARGET` and the page it opens: the workspace that holds the
// target, with the target's pane focused, or the target alone when no
// workspace holds it; and a page that stops asking for a workspace the
// server does not have (a lone session's page, a workspace removed
// elsewhere) instead of polling a route that answers 404 forever, and
// follows one again once it is made elsewhere.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { WEB_TEST_TIMEOUT_MS, browserUnavailable, failedLoads, startWebHarness, waitForLivePane, type WebHarness } from './web-harness.js';

/** Counts the page's GETs of a path, as they go out. */
function countRequests(page: Page, path: string): { readonly count: number } {
  const counter = { count: 0 };
  page.on('request', (r) => {
    if (r.method() === 'GET' && new URL(r.url()).pathname === path) counter.count++;
  });
  return counter;
}

async function tendOpen(h: WebHarness, args: string[]): Promise<string> {
  const r = await h.server.cli(['open', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

describe('tend open and the page it opens', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('opens the workspace that holds the target, focused on it; the target alone when none does', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const a = await h.newSession({ name: 'left' });
    const b = await h.newSession({ name: 'right' });
    const lone = await h.newSession({ name: 'lone' });
    const put = await h.server.api('PUT', '/v1/workspaces/proj', {
      layout: { type: 'split', direction: 'right', ratio: 0.5, first: { type: 'session', sessionId: a }, second: { type: 'session', sessionId: b } },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));

    const url = await tendOpen(h, [':right', '--print']);
    const parsed = new URL(url);
    assert.equal(parsed.hostname, '127.0.0.1');
    assert.equal(`${parsed.pathname}${parsed.search}`, `/w/proj?focus=${b}`);
    const json = JSON.parse(await tendOpen(h, [':right', '--json'])) as { url: string };
    assert.equal(json.url, url);
    assert.equal(new URL(await tendOpen(h, [':lone', '--print'])).pathname, '/w/lone');
    assert.equal(new URL(await tendOpen(h, ['--print'])).pathname, '/');

    // The page at that path: both panes, the target's focused.
    const page = await h.open(`${parsed.pathname}${parsed.search}`);
    await waitForLivePane(page, a);
    await waitForLivePane(page, b);
    await waitFor(async () => (await page.locator('.pane-focused').getAttribute('data-session')) === b, { what: "focus on the target's pane" });

    // The lone session's page: its one pane.
    const alone = await h.open('/w/lone');
    await waitForLivePane(alone, lone);
    assert.equal(await alone.locator('.pane').count(), 1);

    // A session with no name is opened by its id; its page, like the others, asks nothing that fails.
    const unnamed = await h.newSession();
    const unnamedPath = new URL(await tendOpen(h, [unnamed, '--print'])).pathname;
    assert.equal(unnamedPath, `/w/${unnamed}`);
    const context = await h.newContext();
    const failed = failedLoads(context);
    const byId = await h.open(unnamedPath, context);
    await waitForLivePane(byId, unnamed);
    const proj = await h.open(`${parsed.pathname}${parsed.search}`, context);
    await waitForLivePane(proj, b);
    assert.deepEqual(failed, [], 'no request of the pages failed');
  });

  test('the page stops polling a workspace the server answers 404 for, says why, and follows it again once it is made elsewhere', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const lone = await h.newSession({ name: 'lone' });
    const a = await h.newSession({ name: 'one' });
    const b = await h.newSession({ name: 'two' });

    // A lone session's page: the list of workspaces (which always answers) says there is none of
    // its name, so the workspace route, which would answer 404, is never asked.
    const context = await h.newContext();
    const page = await context.newPage();
    const loneAsks = countRequests(page, '/v1/workspaces/lone');
    const sessionPolls = countRequests(page, '/v1/sessions');
    await page.goto(`${h.url}/w/lone`);
    await waitForLivePane(page, lone);
    // Three looks at the session list (every 3 s) span several layout polls (every 2 s).
    await waitFor(() => sessionPolls.count >= 4, { what: 'four session-list requests', timeoutMs: 60_000 });
    t.diagnostic(`lone session: ${loneAsks.count} GETs of its workspace in ${sessionPolls.count} session-list polls`);
    assert.equal(loneAsks.count, 0, 'the workspace route is never asked');

    // A workspace removed elsewhere: the page says so and stops asking.
    const put = await h.server.api('PUT', '/v1/workspaces/pair', {
      layout: { type: 'split', direction: 'down', ratio: 0.5, first: { type: 'session', sessionId: a }, second: { type: 'session', sessionId: b } },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const other = await (await h.newContext()).newPage();
    const pairAsks = countRequests(other, '/v1/workspaces/pair');
    const otherPolls = countRequests(other, '/v1/sessions');
    await other.goto(`${h.url}/w/pair`);
    await waitForLivePane(other, a);
    await waitFor(() => pairAsks.count >= 2, { what: 'the page to poll the workspace', timeoutMs: 30_000 });
    assert.equal((await h.server.api('DELETE', '/v1/workspaces/pair')).status, 200);
    const note = other.locator('.workspace-note[role="status"]');
    await waitFor(async () => /removed elsewhere/.test((await note.count()) > 0 ? await note.innerText() : ''), { what: 'the note that the workspace is gone', timeoutMs: 30_000 });
    const asksAtNote = pairAsks.count;
    const pollsAtNote = otherPolls.count;
    await waitFor(() => otherPolls.count >= pollsAtNote + 3, { what: 'three more session-list polls', timeoutMs: 60_000 });
    assert.equal(pairAsks.count, asksAtNote, 'no GET of the removed workspace after its 404');
    // The panes stay.
    assert.equal(await other.locator('.pane').count(), 2);

    // Made again elsewhere (one pane now): the page follows it again.
    const again = await h.server.api('PUT', '/v1/workspaces/pair', { layout: { type: 'session', sessionId: b } });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    await other.locator(`.pane[data-session="${a}"]`).waitFor({ state: 'detached', timeout: 30_000 });
    await waitFor(async () => (await note.count()) === 0, { what: 'the note to go' });
    await waitFor(() => pairAsks.count > asksAtNote, { what: 'the polling to start again', timeoutMs: 30_000 });
  });
});
