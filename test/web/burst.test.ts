// A large burst of output into an open page: acks keep flowing (the server
// keeps sending only as fast as the page parses), the page stays responsive,
// and nothing is lost — the page's buffer ends exactly as the server's
// screen does, with every number of the burst in order.
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
  startWebHarness,
  typeInto,
  waitForLivePane,
  waitForSameScreen,
} from './web-harness.js';

const BURST_LINES = 200_000;
/** Rows of history compared: what a snapshot carries, so the check holds even if the page was sent one. */
const COMPARED_SCROLLBACK_ROWS = 1000;

describe('output burst', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test(`seq 1 ${BURST_LINES}: acks flow, input still works, and the page's buffer equals the server's screen`, async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const id = await h.newSession({ name: 'flood' });
    const page = await h.open('/w/flood');
    const start = await waitForLivePane(page, id);

    await typeInto(page, id, `seq 1 ${BURST_LINES}; echo burst-done`, { enter: true });
    // Acks advance while the burst is still running: the page parses and says so as it goes.
    const ackSamples = new Set<number>();
    let longestRoundTripMs = 0;
    await waitFor(
      async () => {
        const t0 = performance.now();
        const pane = (await debugPanes(page)).find((p) => p.sessionId === id);
        longestRoundTripMs = Math.max(longestRoundTripMs, performance.now() - t0);
        if (pane?.ackedSeq != null) ackSamples.add(pane.ackedSeq);
        // A line of its own: the command line typed above holds the word too, before any output.
        return (await paneText(page, id))?.split('\n').includes('burst-done') ?? false;
      },
      { what: 'the end of the burst on the page', timeoutMs: 120_000, intervalMs: 50 },
    );
    t.diagnostic(`distinct ack positions seen during the burst: ${ackSamples.size}; longest page round trip: ${longestRoundTripMs.toFixed(0)} ms`);

    const screen = await waitForSameScreen(h, page, id, COMPARED_SCROLLBACK_ROWS);
    const numbers = screen.split('\n').filter((line) => /^\d+$/.test(line)).map(Number);
    assert.ok(numbers.length >= COMPARED_SCROLLBACK_ROWS, `the compared rows hold the burst's tail (${numbers.length} numbers; the screen ends ${JSON.stringify(screen.slice(-300))})`);
    assert.equal(numbers[numbers.length - 1], BURST_LINES);
    numbers.forEach((n, i) => assert.equal(n, numbers[0]! + i, `row ${i} of the tail is ${n}, not ${numbers[0]! + i}`));

    const pane = (await debugPanes(page)).find((p) => p.sessionId === id)!;
    assert.equal(pane.ackedSeq, pane.parsedSeq, 'everything parsed is acked');
    // Each snapshot and DATA frame was acked once parsed; the burst (5× the server's
    // 256 KiB window) could not have finished otherwise.
    assert.equal(pane.stats.acks, pane.stats.snapshots + pane.stats.dataFrames);
    assert.ok(pane.parsedSeq! - start.parsedSeq! > BURST_LINES * 6, `the page parsed the whole burst (${pane.parsedSeq! - start.parsedSeq!} bytes)`);
    t.diagnostic(`snapshots ${pane.stats.snapshots}, data frames ${pane.stats.dataFrames}, acks ${pane.stats.acks}, renderer ${pane.renderer}`);
    assert.deepEqual(pane.problems, []);
    assert.deepEqual(await pageProblems(page), []);

    // Still responsive to input after the flood.
    await typeInto(page, id, 'echo still here', { enter: true });
    await waitFor(async () => (await paneText(page, id))?.includes('\nstill here'), { what: 'input after the burst' });
  });
});
