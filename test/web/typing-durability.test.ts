// Typing in the browser across a server crash reaches the program once: keys
// the page sent to a server that then died (SIGSTOPped, so they were still
// in its socket, then SIGKILLed), and keys typed while the page was
// reconnecting. The page keeps what it typed until the session's holder has
// it and sends it again to the next server; the holder drops what it has.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useTestScope } from '../support/test-scope.js';
import { recordedText as recorded, recorderProgram as recorder } from '../support/recorder.js';
import { waitFor } from '../support/wait-for.js';
import { killQuietly } from '../support/processes.js';
import { WEB_TEST_TIMEOUT_MS, browserUnavailable, pageProblems, socketState, startWebHarness, typeInto, waitForLivePane } from './web-harness.js';


async function framesSent(page: Page): Promise<number> {
  return page.evaluate(() => {
    const hook = (globalThis as unknown as { __tendDebug?: { socket(): { stats: Record<string, number> } | null } }).__tendDebug;
    return hook?.socket()?.stats.framesOut ?? 0;
  });
}

describe('typing across a server crash', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('keys sent to a server that then died, and keys typed while the page reconnected, arrive once', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const file = join(h.server.home, 'typed.txt');
    const id = await h.newSession({ name: 'typist', argv: recorder(file) });
    await waitFor(async () => (await h.serverText(id)).includes('ready'), { what: 'the recorder to be ready' });
    const page = await h.open('/w/typist');
    await waitForLivePane(page, id);
    await typeInto(page, id, 'before ');
    await waitFor(() => recorded(file) === 'before ', { what: 'the keys typed before', describe: () => JSON.stringify(recorded(file)) });

    // The server stops reading: the page's keys go out on its socket and stay there, and die with the server.
    const pid = h.server.serverPid()!;
    process.kill(pid, 'SIGSTOP');
    scope.defer(() => killQuietly(pid));
    const sent = await framesSent(page);
    const intoTheDead = 'into-a-dead-socket ';
    await typeInto(page, id, intoTheDead);
    await waitFor(async () => (await framesSent(page)) >= sent + intoTheDead.length, { what: 'the page to send the keys' });
    await h.killServer();
    await waitFor(async () => (await socketState(page)) === 'reconnecting', { what: 'the page to see the server gone' });
    await typeInto(page, id, 'while-away ');

    await h.startServer();
    await waitFor(async () => (await socketState(page)) === 'open', { what: 'the page to reconnect', timeoutMs: 60_000 });
    const want = 'before ' + intoTheDead + 'while-away ';
    await waitFor(() => recorded(file) === want, { what: 'every key typed', timeoutMs: 30_000, describe: () => JSON.stringify(recorded(file)) });
    // A last key: whatever came before it has arrived by the time it does, doubles included.
    await typeInto(page, id, '#');
    await waitFor(() => recorded(file).endsWith('#'), { what: 'the end mark', describe: () => JSON.stringify(recorded(file)) });
    assert.equal(recorded(file), want + '#', 'every key once, in order');
    assert.deepEqual(await pageProblems(page), []);
  });
});
