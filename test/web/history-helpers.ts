// What the history tests share: reading a pane's open history view through
// window.__tendDebug, waiting for it to settle, loading it to the start, and
// running a command in a session through the API.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { DebugHistoryView as HistoryView } from '../../web/src/debug-views.js';
import { waitFor } from '../support/wait-for.js';
import type { WebHarness } from './web-harness.js';

export type { HistoryView };

interface HistoryDebug {
  __tendDebug?: { history(sessionId: string, withRows?: boolean): HistoryView | null };
}

/** Rows the view asks for per request (web/src/terminal/history-loader.ts). */
export const PAGE_ROWS = 2000;
/** Everything the server holds: the screen route clamps to what it has. */
export const ALL_ROWS = 1_000_000;
export const SLOW = { timeoutMs: 90_000, intervalMs: 100 };

export async function history(page: Page, sessionId: string, withRows = false): Promise<HistoryView | null> {
  return page.evaluate(([id, rows]) => (globalThis as unknown as HistoryDebug).__tendDebug?.history(id as string, rows as boolean) ?? null, [sessionId, withRows] as const);
}

/** Waits until the open view has no request on its way and its terminal shows the latest pages. */
export async function settledHistory(page: Page, sessionId: string, what: string, withRows = false): Promise<HistoryView> {
  let last: HistoryView | null = null;
  await waitFor(
    async () => {
      last = await history(page, sessionId);
      return last !== null && !last.loading && !last.waiting && last.renderedVersion === last.version && (last.loadedRows > 0 || last.oldest || last.problem !== null);
    },
    { ...SLOW, what, describe: () => JSON.stringify(last) },
  );
  return (await history(page, sessionId, withRows))!;
}

/** Types a command into the session through the API and waits for its marker line on the server's screen. */
export async function runInSession(h: WebHarness, sessionId: string, command: string, marker: string): Promise<void> {
  await waitFor(async () => /\$ ?$/m.test(await h.serverText(sessionId)), { what: 'the shell prompt' });
  const res = await h.server.api('POST', `/v1/sessions/${sessionId}/input`, { text: `${command}; echo ${marker}\r` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const line = new RegExp(`^${marker}$`, 'm');
  await waitFor(async () => line.test(await h.serverText(sessionId)), { ...SLOW, what: `${marker} on the server's screen` });
}

/** Clicks "Load older" until the view says the history starts there. */
export async function loadToStart(page: Page, sessionId: string): Promise<HistoryView> {
  let view = await settledHistory(page, sessionId, 'the first page');
  for (let requests = 1; !view.oldest; requests++) {
    assert.ok(requests < 60, `the start of the history within 60 requests (at ${view.loadedRows} rows)`);
    assert.equal(view.problem, null);
    const before = view.version;
    await page.locator(`.history-panel[data-session="${sessionId}"] button[aria-label="load older rows"]`).click();
    await waitFor(async () => ((await history(page, sessionId))?.version ?? before) > before, { ...SLOW, what: `page ${requests + 1}` });
    view = await settledHistory(page, sessionId, `page ${requests + 1} shown`);
  }
  return (await history(page, sessionId, true))!;
}

export function lines(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}
