import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopMonitor } from './loop-monitor.js';
import { waitFor } from '../../test/support/wait-for.js';

test('the loop monitor samples only in a window someone opened, and closes one no one reads', async () => {
  const monitor = new LoopMonitor(200);
  try {
    assert.equal(monitor.read(), null, 'no window until one is asked for');
    assert.equal(monitor.watching, false);
    assert.equal(monitor.read({ reset: true }), null, 'the reading that opens a window has nothing in it yet');
    assert.equal(monitor.watching, true);
    // A stall of the loop shows as lateness of the monitor's timer.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const until = performance.now() + 30;
    while (performance.now() < until) { /* hold the loop */ }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const figures = monitor.read({ reset: true });
    assert.ok(figures !== null && figures.maxMs >= 20, `max ${figures?.maxMs} ms after a 30 ms stall`);
    assert.ok(figures.windowMs >= 60, `window of ${figures.windowMs} ms`);
    const fresh = monitor.read();
    assert.ok(fresh !== null && fresh.maxMs < 20, 'a reset starts the figures again');
    await waitFor(() => !monitor.watching, { what: 'the unread window to close', timeoutMs: 5000 });
    assert.equal(monitor.read(), null);
  } finally {
    monitor.dispose();
  }
});
