import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Screen, VIEWER_SNAPSHOT_SCROLLBACK_ROWS } from '../screen/index.js';
import { PaintedWarmer } from './painted-warmer.js';
import { waitFor } from '../../../test/support/wait-for.js';

function rows(from: number, count: number): string {
  let out = '';
  for (let i = from; i < from + count; i++) out += `\x1b[3${i % 8}mrow ${i} \x1b[44m${'x'.repeat(i % 50)}\x1b[0m\r\n`;
  return out;
}

describe('PaintedWarmer', { timeout: 60_000 }, () => {
  test('once a viewer attached, the rows that scroll off are painted when output is quiet, before the next attach asks', async () => {
    const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 10_000 });
    const warmer = new PaintedWarmer(screen);
    try {
      screen.write(rows(0, 3_000), { live: true });
      warmer.wrote();
      assert.equal(warmer.keeps, false, 'a screen no viewer attached to keeps nothing');
      warmer.attached(); // (the screen table calls it for a viewer's snapshot with scrollback)
      assert.equal(warmer.keeps, true);
      await waitFor(() => screen.painted.size > 900, { what: 'the warm to paint the scrolled-off rows' });
      await screen.flush(); // the warm holds the screen's queue until it is done
      const painted = screen.painted.counts.painted;
      // A first attach now paints only the top of its window; the rest is taken as painted.
      const warm = screen.snapshot({ scrollbackRows: VIEWER_SNAPSHOT_SCROLLBACK_ROWS });
      assert.ok(screen.painted.counts.painted - painted < 40, `${screen.painted.counts.painted - painted} lines painted by the attach`);
      assert.equal(warm.data, screen.snapshot({ scrollbackRows: VIEWER_SNAPSHOT_SCROLLBACK_ROWS, reusePainted: false }).data);
      // More output, and quiet again: the attach after it finds its lines painted too.
      screen.write(rows(3_000, 11), { live: true });
      warmer.wrote();
      const before = screen.painted.counts.painted;
      await waitFor(() => screen.painted.counts.painted > before, { what: 'the new rows to be painted' });
      await screen.flush();
      const warmed = screen.painted.counts.painted;
      const again = screen.snapshot({ scrollbackRows: VIEWER_SNAPSHOT_SCROLLBACK_ROWS });
      assert.ok(screen.painted.counts.painted - warmed < 40, `${screen.painted.counts.painted - warmed} lines painted by the second attach`);
      assert.equal(again.data, screen.snapshot({ scrollbackRows: VIEWER_SNAPSHOT_SCROLLBACK_ROWS, reusePainted: false }).data);
    } finally {
      warmer.dispose();
      screen.dispose();
    }
  });
});
