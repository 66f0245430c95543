// Workspaces in a real browser: splitting from the keyboard, dragging a
// divider, focus and maximise, and a second browser that shows the same
// layout and the same screens because both read them from the server.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { repoRoot } from '../server/harness.js';
import {
  RESULTS_DIR,
  WEB_TEST_TIMEOUT_MS,
  browserUnavailable,
  debugPanes,
  failedLoads,
  paneText,
  startWebHarness,
  typeInto,
  waitForLivePane,
  waitForSameScreen,
} from './web-harness.js';

interface WireNode {
  type: 'session' | 'split';
  sessionId?: string;
  direction?: string;
  ratio?: number;
  first?: WireNode;
  second?: WireNode;
}
interface WorkspaceBody {
  name: string;
  layout: WireNode | null;
  sessions: string[];
}

async function dividerValue(page: Page): Promise<string | null> {
  return page.locator('.divider').first().getAttribute('aria-valuenow');
}

describe('workspace', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('split, drag the divider, move focus, maximise; a second browser shows the same layout and screens', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const left = await h.newSession({ name: 'main' });
    // A lone session's page asks nothing the server answers with an error (the browser logs each one).
    const context = await h.newContext();
    const failed = failedLoads(context);
    const page = await h.open('/w/main', context);
    await waitForLivePane(page, left);
    assert.deepEqual(failed, [], 'no request of the page failed');
    await typeInto(page, left, 'printf "\\033]2;left title\\007"; for c in 31 32 33 34 35 36; do printf "\\033[${c}m%s\\033[0m " colour$c; done; echo; echo left pane', { enter: true });
    // The output line itself: the typed command line holds the words too.
    await waitFor(async () => /^left pane$/m.test((await paneText(page, left)) ?? ''), { what: 'the left output' });
    const wideCols = (await h.server.api<{ cols: number }>('GET', `/v1/sessions/${left}`)).body.cols;

    // Split side by side from the keyboard: a new shell to the right, saved on the server.
    await page.keyboard.press('Control+Shift+D');
    const ws = await waitFor(
      async () => {
        const res = await h.server.api<WorkspaceBody>('GET', '/v1/workspaces/main');
        return res.status === 200 && res.body.sessions.length === 2 ? res.body : null;
      },
      { what: 'the split saved as workspace "main"' },
    );
    assert.equal(ws.layout?.type, 'split');
    assert.equal(ws.layout?.direction, 'right');
    const right = ws.sessions.find((s) => s !== left)!;
    await waitForLivePane(page, right);
    await waitFor(async () => (await page.locator('.pane-focused').getAttribute('data-session')) === right, { what: 'focus on the new pane' });
    // A plain prompt in the new shell (it is the user's default shell, with the user's prompt).
    await typeInto(page, right, `PS1='$ '; printf '\\033[H\\033[2J'; echo right pane`, { enter: true });
    await waitFor(async () => /^right pane$/m.test((await paneText(page, right)) ?? ''), { what: 'the right output' });
    // Each pane asked for its own size: half the width, so fewer columns.
    await waitFor(async () => (await h.server.api<{ cols: number }>('GET', `/v1/sessions/${left}`)).body.cols < wideCols * 0.6, { what: 'the left PTY to narrow' });

    // Drag the divider 200 px to the left: the ratio on the server follows.
    const divider = page.locator('.divider');
    const box = (await divider.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 100, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2 - 200, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const ratio = await waitFor(
      async () => {
        const r = (await h.server.api<WorkspaceBody>('GET', '/v1/workspaces/main')).body.layout?.ratio ?? 0.5;
        return r < 0.45 ? r : null;
      },
      { what: 'the dragged ratio on the server' },
    );
    await waitFor(
      async () => {
        const [l, r] = await Promise.all([h.server.api<{ cols: number }>('GET', `/v1/sessions/${left}`), h.server.api<{ cols: number }>('GET', `/v1/sessions/${right}`)]);
        return l.body.cols < r.body.cols;
      },
      { what: 'the PTYs to follow the divider' },
    );

    // Focus moves with the keyboard; a pane can be maximised and restored.
    await page.keyboard.press('Control+Shift+ArrowLeft');
    await waitFor(async () => (await page.locator('.pane-focused').getAttribute('data-session')) === left, { what: 'focus to move left' });
    await page.keyboard.press('Control+Shift+Z');
    await page.locator(`.pane[data-session="${right}"]`).waitFor({ state: 'hidden' });
    await page.keyboard.press('Control+Shift+Z');
    await page.locator(`.pane[data-session="${right}"]`).waitFor({ state: 'visible' });
    // Focus follows the mouse too.
    await page.locator(`.pane[data-session="${right}"] .pane-body`).click();
    await waitFor(async () => (await page.locator('.pane-focused').getAttribute('data-session')) === right, { what: 'focus on the clicked pane' });

    // A second browser: the same layout (divider where the first left it) and the same screens.
    const otherContext = await h.newContext();
    const otherFailed = failedLoads(otherContext);
    const other = await h.open('/w/main', otherContext);
    await waitForLivePane(other, left);
    await waitForLivePane(other, right);
    // A workspace's page asks nothing that fails either (it looks for a session of its name too).
    assert.deepEqual(otherFailed, [], "no request of the workspace's page failed");
    assert.equal(await dividerValue(other), String(Math.round(ratio * 100)));
    assert.equal(await dividerValue(page), String(Math.round(ratio * 100)));
    for (const p of [page, other]) {
      assert.match(await waitForSameScreen(h, p, left), /^left pane$/m);
      assert.match(await waitForSameScreen(h, p, right), /^right pane$/m);
    }
    assert.equal((await debugPanes(other)).length, 2);

    mkdirSync(RESULTS_DIR, { recursive: true });
    const shot = join(RESULTS_DIR, 'workspace.png');
    await page.screenshot({ path: shot });
    // The README's picture: refreshed on request only, so a test run leaves the tree clean.
    if (process.env.TEND_UPDATE_SCREENSHOT === '1') copyFileSync(shot, join(repoRoot, 'docs', 'screenshot.png'));

    // Closing a pane (not the session) collapses the split for both browsers.
    await page.keyboard.press('Control+Shift+W');
    await waitFor(async () => (await h.server.api<WorkspaceBody>('GET', '/v1/workspaces/main')).body.sessions.length === 1, { what: 'the closed pane saved' });
    await other.locator(`.pane[data-session="${right}"]`).waitFor({ state: 'detached' });
    assert.equal((await h.server.api<{ status: string }>('GET', `/v1/sessions/${right}`)).body.status, 'running');
  });

  test("dividers reach the contract's ratio bounds (0.05–0.95) and move the split they belong to, nested ones too", async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const [a, b, c] = [await h.newSession({ name: 'a' }), await h.newSession({ name: 'b' }), await h.newSession({ name: 'c' })];
    // Made elsewhere (as the CLI or a script would), at the very bounds the API accepts.
    const put = await h.server.api('PUT', '/v1/workspaces/edge', {
      layout: {
        type: 'split',
        direction: 'right',
        ratio: 0.05,
        first: { type: 'session', sessionId: a },
        second: { type: 'split', direction: 'down', ratio: 0.95, first: { type: 'session', sessionId: b }, second: { type: 'session', sessionId: c } },
      },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const page = await h.open('/w/edge');
    const outer = page.locator('.divider[aria-orientation="vertical"]');
    const inner = page.locator('.divider[aria-orientation="horizontal"]');
    await inner.waitFor();
    // Shown where the server has them, not pulled in to narrower bounds of the page's own.
    assert.equal(await outer.getAttribute('aria-valuenow'), '5');
    assert.equal(await inner.getAttribute('aria-valuenow'), '95');
    const layoutOnServer = async () => (await h.server.api<WorkspaceBody>('GET', '/v1/workspaces/edge')).body.layout;

    // The nested divider from the keyboard: only its own split (the root's second) moves.
    await inner.focus();
    await page.keyboard.press('ArrowUp');
    const nudged = await waitFor(
      async () => {
        const l = await layoutOnServer();
        return l?.second?.ratio !== 0.95 ? l : null;
      },
      { what: 'the nudged inner ratio on the server' },
    );
    assert.equal(nudged.second?.ratio, 0.93);
    assert.equal(nudged.ratio, 0.05);

    // The outer divider dragged past the right edge stops at the upper bound.
    const box = (await outer.boundingBox())!;
    const width = page.viewportSize()!.width;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(width / 2, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(width - 1, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const dragged = await waitFor(
      async () => {
        const l = await layoutOnServer();
        return l && l.ratio !== 0.05 ? l : null;
      },
      { what: 'the dragged outer ratio on the server' },
    );
    assert.equal(dragged.ratio, 0.95);
    assert.equal(dragged.second?.ratio, 0.93);
    assert.equal(await outer.getAttribute('aria-valuenow'), '95');
  });
});
