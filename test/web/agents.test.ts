// Agents in a real browser against a real server: the agent's state is driven
// the way an agent's hooks drive it (POST …/agent/events with Claude's own
// payloads), and the page shows it: a badge in the dashboard's row and card
// and in the pane's header, cards ordered by who needs a person, a live
// preview of each session's screen, and a browser notification per
// permission request and per finished turn (counted by wrapping the page's
// own window.Notification; the browser context grants the permission).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { RESULTS_DIR, SESSION_ENV, WEB_TEST_TIMEOUT_MS, browserUnavailable, paneText, startWebHarness, typeInto, waitForLivePane, type WebHarness } from './web-harness.js';
import { installFakeAgents } from '../support/fake-agent/install-fake-agents.js';
import type { AgentInfo } from '../../src/protocol/api/index.js';

/** Claude Code's payload fields (its hooks' stdin), as the research notes give them. */
const CLAUDE = { session_id: 'b7c1e0de-0000-4000-8000-000000000001', cwd: '/home/u/project', transcript_path: '/home/u/.claude/projects/-home-u-project/t.jsonl' };

async function hook(h: WebHarness, sessionId: string, event: string, fields: Record<string, unknown> = {}): Promise<void> {
  const res = await h.server.api('POST', `/v1/sessions/${sessionId}/agent/events?agent=claude&event=${event}`, { ...CLAUDE, hook_event_name: event, ...fields });
  assert.equal(res.status, 200, `${event}: ${JSON.stringify(res.body)}`);
}

const prompt = (h: WebHarness, id: string, text = 'hi') => hook(h, id, 'UserPromptSubmit', { prompt: text });
const askBash = (h: WebHarness, id: string, command = 'ls') => hook(h, id, 'PermissionRequest', { tool_name: 'Bash', tool_input: { command } });
const stop = (h: WebHarness, id: string, answer = 'done') => hook(h, id, 'Stop', { stop_hook_active: false, last_assistant_message: answer, background_tasks: [] });

async function agentState(h: WebHarness, id: string): Promise<string | null> {
  return (await h.server.api<{ agent: { state: string } | null }>('GET', `/v1/sessions/${id}`)).body.agent?.state ?? null;
}

/** Types into the session through the API (no page involved), so its screen shows `text`'s output. */
async function runInSession(h: WebHarness, id: string, command: string): Promise<void> {
  const res = await h.server.api('POST', `/v1/sessions/${id}/input`, { text: `${command}\r` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

function cardOrder(page: Page): Promise<string[]> {
  return page.locator('.agent-card').evaluateAll((cards) => cards.map((c) => c.getAttribute('data-session') ?? ''));
}

interface PageWithPreviews {
  __tendDebug?: { previews(): Array<{ sessionId: string; shown: string }> };
}

/** The text a card's preview has drawn last (on its canvas), '' while it has none. */
async function previewText(page: Page, id: string): Promise<string> {
  const drawn = await page.evaluate((sessionId) => (globalThis as unknown as PageWithPreviews).__tendDebug?.previews().find((p) => p.sessionId === sessionId)?.shown ?? '', id);
  // The canvas is in the card, drawn at a size it can show.
  const canvas = page.locator(`.agent-card[data-session="${id}"] canvas.preview-canvas`);
  const box = drawn === '' ? null : await canvas.boundingBox();
  return box !== null && box.width > 100 && box.height > 50 ? drawn : '';
}

interface ShownNotification {
  title: string;
  body: string;
}

/**
 * Run in the page before the app loads (the tests compile without the DOM's
 * types, so it is a script): wraps window.Notification so that every
 * construction is recorded, the instance kept for its onclick.
 */
const COUNT_NOTIFICATIONS = `
(() => {
  const Real = window.Notification;
  const shown = [];
  class Counted extends Real {
    constructor(title, options) {
      super(title, options);
      shown.push({ title, body: (options && options.body) || '', instance: this });
    }
  }
  Object.defineProperty(Counted, 'permission', { get: () => Real.permission });
  Object.defineProperty(Counted, 'requestPermission', { value: (...args) => Real.requestPermission(...args) });
  Object.defineProperty(window, 'Notification', { value: Counted, configurable: true, writable: true });
  window.__shown = shown;
})();
`;

interface PageWithNotifications {
  __shown: Array<{ title: string; body: string; instance: { onclick: ((event: unknown) => void) | null } }>;
}

function notifications(page: Page): Promise<ShownNotification[]> {
  return page.evaluate(() => (globalThis as unknown as PageWithNotifications).__shown.map((n) => ({ title: n.title, body: n.body })));
}

/** Two session lists answered to the page after now: any alert a poll would raise has been raised. */
async function twoPolls(page: Page): Promise<void> {
  for (let i = 0; i < 2; i++) await page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/sessions' && r.request().method() === 'GET');
}

async function notifyingContext(h: WebHarness): Promise<BrowserContext> {
  const context = await h.newContext();
  await context.grantPermissions(['notifications'], { origin: h.url });
  await context.addInitScript({ content: COUNT_NOTIFICATIONS });
  return context;
}

describe('agents on the page', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test("a session's agent badge follows its hooks in the dashboard's row and card and in the pane header", async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'coder' });
    const page = await h.open('/');
    const row = page.locator(`tr[data-session="${id}"]`);
    const card = page.locator(`.agent-card[data-session="${id}"]`);
    await row.waitFor();
    assert.equal(await page.locator('.agent-card').count(), 0, 'no card for a session with no agent');

    await prompt(h, id, 'write the tests');
    await waitFor(async () => (await card.getAttribute('data-agent-state')) === 'busy', { what: 'the card to say busy' });
    assert.equal((await row.locator('.agent-badge').innerText()).trim(), 'Claude · busy');
    assert.match(await card.locator('.agent-card-line').innerText(), /working on: write the tests/);

    await askBash(h, id, 'rm -rf build');
    await waitFor(async () => (await card.getAttribute('data-agent-state')) === 'needs-permission', { what: 'the card to say needs permission' });
    const badge = card.locator('.agent-badge');
    assert.equal((await badge.innerText()).trim(), 'Claude · needs permission');
    assert.equal(await badge.getAttribute('title'), 'asks: Bash: rm -rf build');
    await waitFor(async () => (await row.locator('.agent-badge').getAttribute('data-agent-state')) === 'needs-permission', { what: 'the row to say it too' });

    await stop(h, id, 'Built and tested.\nAll 12 pass.');
    await waitFor(async () => (await card.getAttribute('data-agent-state')) === 'idle', { what: 'the card to say idle' });
    assert.equal((await card.locator('.agent-card-line').innerText()).trim(), 'Built and tested.');

    // The pane's header, in the session's own page.
    await card.getByRole('link', { name: 'coder' }).click();
    await page.waitForURL(/\/w\/coder$/);
    await waitForLivePane(page, id);
    const paneBadge = page.locator(`.pane[data-session="${id}"] .pane-header .agent-badge`);
    await waitFor(async () => (await paneBadge.getAttribute('data-agent-state')) === 'idle', { what: 'the pane header to say idle' });
    await prompt(h, id, 'again');
    await waitFor(async () => (await paneBadge.getAttribute('data-agent-state')) === 'busy', { what: 'the pane header to say busy' });
    await askBash(h, id);
    await waitFor(async () => (await paneBadge.innerText()).trim() === 'Claude · needs permission', { what: 'the pane header to say needs permission' });
    // The tab's title counts the agents that wait for a person.
    await waitFor(async () => (await page.title()) === '(1) coder — tend', { what: 'the tab title to count the waiting agent' });
  });

  test('cards list the agents that need a person first, then the busy ones, each with a live preview of its screen', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const names = ['alpha', 'bravo', 'charlie', 'delta'] as const;
    const ids: Record<(typeof names)[number], string> = { alpha: '', bravo: '', charlie: '', delta: '' };
    for (const name of names) {
      ids[name] = await h.newSession({ name });
      // Arithmetic, so the output line differs from the command line that shows it.
      await runInSession(h, ids[name], `echo "screen of $((40 + 2)) ${name}"`);
    }
    // alpha answered (idle), bravo busy, charlie asks, delta has no agent.
    await prompt(h, ids.alpha);
    await stop(h, ids.alpha);
    await prompt(h, ids.bravo);
    await prompt(h, ids.charlie);
    await askBash(h, ids.charlie);

    const page = await h.open('/');
    let shown: string[] = [];
    const named = () => `cards: ${shown.map((id) => names.find((n) => ids[n] === id) ?? id).join(', ')}`;
    await waitFor(async () => (shown = await cardOrder(page)).join(' ') === [ids.charlie, ids.bravo, ids.alpha].join(' '), {
      what: 'the cards in attention order (charlie, bravo, alpha)',
      describe: named,
    });
    for (const name of ['alpha', 'bravo', 'charlie'] as const) {
      await waitFor(async () => (await previewText(page, ids[name])).includes(`screen of 42 ${name}`), {
        what: `the preview of ${name} to show its screen`,
      });
    }
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: join(RESULTS_DIR, 'agents-dashboard.png') });

    // Live: new output reaches the preview without a reload.
    await runInSession(h, ids.alpha, 'echo "later $((6 * 7)) output"');
    await waitFor(async () => (await previewText(page, ids.alpha)).includes('later 42 output'), { what: "alpha's new output in its preview" });

    // charlie's question is answered and its turn ends: it joins the rest, after alpha (their list order).
    await stop(h, ids.charlie);
    await waitFor(async () => (shown = await cardOrder(page)).join(' ') === [ids.bravo, ids.alpha, ids.charlie].join(' '), {
      what: 'charlie to move down (bravo, alpha, charlie)',
      describe: named,
    });

    // The previews only watch: the sessions keep their size and no preview counts as a writer.
    for (const name of ['alpha', 'bravo', 'charlie'] as const) {
      const s = (await h.server.api<{ cols: number; rows: number }>('GET', `/v1/sessions/${ids[name]}`)).body;
      assert.deepEqual([s.cols, s.rows], [80, 24], `${name} keeps its size`);
    }
  });

  test("with the session list's polls failing, the card and the pane follow the viewer socket's STATE frames alone", async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'framed' });
    await prompt(h, id);
    await stop(h, id);
    const page = await h.open('/');
    const card = page.locator(`.agent-card[data-session="${id}"]`);
    await waitFor(async () => (await card.getAttribute('data-agent-state')) === 'idle', { what: 'the card, from the list' });
    // The preview's channel is subscribed (its screen is drawn) before the list is cut off.
    await waitFor(async () => (await previewText(page, id)).includes('$'), { what: 'the preview to show the prompt' });

    let listsRefused = 0;
    await page.route('**/v1/sessions', (route) => {
      listsRefused++;
      return route.abort();
    });
    await prompt(h, id, 'framed work');
    await waitFor(async () => (await card.getAttribute('data-agent-state')) === 'busy', { what: 'the card to say busy, from a STATE frame' });
    await askBash(h, id);
    await waitFor(async () => (await card.getAttribute('data-agent-state')) === 'needs-permission', { what: 'the card to say needs permission, from a STATE frame' });

    await card.getByRole('link', { name: 'framed' }).click();
    await waitForLivePane(page, id);
    const paneBadge = page.locator(`.pane[data-session="${id}"] .agent-badge`);
    await waitFor(async () => (await paneBadge.getAttribute('data-agent-state')) === 'needs-permission', { what: 'the pane header to say needs permission' });
    await stop(h, id, 'framed answer');
    await waitFor(async () => (await paneBadge.getAttribute('data-agent-state')) === 'idle', { what: 'the pane header to say idle, from a STATE frame' });
    assert.ok(listsRefused > 0, 'the page did ask for the list meanwhile (and was refused)');
  });

  test('on a 390-px-wide screen the agent cards stack, their previews drawn, and nothing scrolls sideways', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const long = 'an-agent-session-with-a-name-as-long-as-names-may-be-sixty-four';
    const ids = [await h.newSession({ name: long }), await h.newSession({ name: 'short' })];
    for (const id of ids) {
      await runInSession(h, id, 'echo "phone $((3 * 3))"');
      await prompt(h, id, 'a prompt long enough to be cut with an ellipsis on any phone screen, and then some more words');
    }
    await askBash(h, ids[1]!, 'a command line far too long for a phone: make -j8 all check install DESTDIR=/somewhere/deep');
    const context = await h.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: 'dark' });
    scope.defer(() => context.close().catch(() => undefined));
    const page = await h.open('/', context);
    await waitFor(async () => (await cardOrder(page)).join(' ') === [ids[1], ids[0]].join(' '), { what: 'both cards, the asking one first' });
    for (const id of ids) await waitFor(async () => /^phone 9$/m.test(await previewText(page, id)), { what: `the preview of ${id}` });
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: join(RESULTS_DIR, 'agents-dashboard-390px.png'), fullPage: true });
    const overflow = await page.evaluate(() => {
      const g = globalThis as unknown as { innerWidth: number; document: { scrollingElement: { scrollWidth: number }; querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): { right: number }; className: unknown; tagName: string }> } };
      const cards = Array.from(g.document.querySelectorAll('.agent-cards *'))
        .filter((e) => e.getBoundingClientRect().right > g.innerWidth + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${String(e.className)}`);
      return { page: g.document.scrollingElement.scrollWidth, cards };
    });
    assert.ok(overflow.page <= 390, `the page is ${overflow.page} px wide`);
    assert.deepEqual(overflow.cards, [], 'card parts that reach past the screen');
  });

  test('a notification per permission request and per finished turn, none for what the page found on load or for the pane being looked at', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const worker = await h.newSession({ name: 'worker' });
    const other = await h.newSession({ name: 'other' });
    // Held before the page opens: worker asks, other has answered.
    await prompt(h, worker);
    await askBash(h, worker);
    await prompt(h, other);
    await stop(h, other, 'an old answer');

    const page = await h.open('/', await notifyingContext(h));
    await page.locator('.agent-card').nth(1).waitFor();
    const bell = page.getByRole('button', { name: 'agent notifications: off' });
    await bell.click();
    await page.getByRole('button', { name: 'agent notifications: on' }).waitFor();
    await twoPolls(page);
    assert.deepEqual(await notifications(page), [], 'nothing for the states the page found');

    await stop(h, worker, 'All done.\nDetails follow.');
    await waitFor(async () => (await notifications(page)).length === 1, { what: "the worker's answer notification" });
    await prompt(h, other);
    await askBash(h, other, 'make install');
    await waitFor(async () => (await notifications(page)).length === 2, { what: "other's permission notification" });
    await hook(h, other, 'StopFailure', { error: 'rate_limit', error_details: 'try again in a minute', last_assistant_message: 'API Error' });
    await waitFor(async () => (await notifications(page)).length === 3, { what: "other's failure notification" });
    await twoPolls(page);
    assert.deepEqual(await notifications(page), [
      { title: 'worker', body: 'All done.' },
      { title: 'other', body: 'needs permission: Bash: make install' },
      { title: 'other', body: 'failed: rate_limit: try again in a minute' },
    ]);

    // The setting is remembered: after a reload the bell is still on.
    await page.reload();
    await page.getByRole('button', { name: 'agent notifications: on' }).waitFor();

    // In worker's own page, with its pane focused, its question is not announced; other's answer still is.
    await page.goto(`${h.url}/w/worker`);
    await waitForLivePane(page, worker);
    await waitFor(async () => (await page.locator(`.pane-focused[data-session="${worker}"]`).count()) === 1, { what: "worker's pane to have the focus" });
    await twoPolls(page);
    await prompt(h, worker);
    await askBash(h, worker, 'git push');
    await waitFor(async () => (await page.locator(`.pane[data-session="${worker}"] .agent-badge`).getAttribute('data-agent-state')) === 'needs-permission', {
      what: 'the pane to show the question',
    });
    await prompt(h, other);
    await stop(h, other, 'other finished');
    await waitFor(async () => (await notifications(page)).length === 1, { what: "other's answer, from worker's page" });
    await twoPolls(page);
    assert.deepEqual(await notifications(page), [{ title: 'other', body: 'other finished' }]);

    // Clicking it brings other's session forward.
    await page.evaluate(() => {
      const shown = (globalThis as unknown as PageWithNotifications).__shown;
      shown[shown.length - 1]!.instance.onclick?.({ type: 'click' });
    });
    await page.waitForURL(new RegExp(`/w/other\\?focus=${other}$`));
    await waitForLivePane(page, other);
    await waitFor(async () => (await page.locator(`.pane-focused[data-session="${other}"]`).count()) === 1, { what: "other's pane to have the focus" });
  });

  test('a sleeping agent\'s pane says so over its kept screen; typing wakes it, and what was typed reaches it', async (t) => {
    const scope = useTestScope(t);
    // The fake agent CLI (test/support/fake-agent) under the name claude, started by tend with its hooks.
    const agents = installFakeAgents(scope.tempDir('tend-web-agents-'));
    const h = await startWebHarness(scope, { env: { TEND_AGENT_SLEEP_MINUTES: '0' } });
    const created = await h.server.api<{ id: string }>('POST', '/v1/sessions', {
      name: 'sleepy',
      argv: ['bash', '--norc', '--noprofile', '-i'],
      cwd: h.server.home,
      cols: 100,
      rows: 30,
      env: { ...SESSION_ENV(h.server.home), PATH: agents.env.PATH },
      agent: { kind: 'claude', sleepAfterMs: 0 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const agentNow = async () => (await h.server.api<{ agent: AgentInfo | null }>('GET', `/v1/sessions/${id}`)).body.agent;
    await waitFor(async () => (await agentNow())?.state === 'idle', { what: 'the fake Claude to start', timeoutMs: 60_000 });

    const page = await h.open('/w/sleepy');
    await waitForLivePane(page, id);
    // A first turn (sleep is refused before one), typed into the pane.
    await typeInto(page, id, 'echo first answer', { enter: true });
    await waitFor(async () => (await agentNow())?.lastTurn?.answer === 'first answer', { what: 'the first answer', timeoutMs: 60_000 });
    const pane = page.locator(`.pane[data-session="${id}"]`);
    const note = pane.locator('.pane-agent-note');
    assert.equal(await note.count(), 0, 'no note while the agent is awake');

    const slept = await h.server.api('POST', `/v1/sessions/${id}/agent/sleep`, {});
    assert.equal(slept.status, 200, JSON.stringify(slept.body));
    await waitFor(async () => (await pane.getAttribute('data-agent-state')) === 'sleeping', { what: 'the pane to know it sleeps', timeoutMs: 60_000 });
    assert.equal((await note.innerText()).trim(), 'sleeping — type to wake');
    assert.equal((await pane.locator('.pane-header .agent-badge').innerText()).trim(), 'Claude · sleeping');
    assert.match((await paneText(page, id)) ?? '', /first answer/, 'the kept screen is still shown under the note');
    mkdirSync(RESULTS_DIR, { recursive: true });
    await page.screenshot({ path: join(RESULTS_DIR, 'agents-sleeping-pane.png') });

    // Typing is just input: the server wakes the agent and hands it the keys once it is up.
    await typeInto(page, id, 'echo second answer', { enter: true });
    await waitFor(async () => (await agentNow())?.lastTurn?.answer === 'second answer', { what: 'the woken agent to answer what was typed', timeoutMs: 90_000 });
    await waitFor(async () => (await note.count()) === 0, { what: 'the note to go' });
    assert.equal((await agentNow())?.lastTurn?.prompt, 'echo second answer', 'the typed prompt reached the agent once, whole');
  });
});
