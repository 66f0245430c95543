import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowsAResizeMayAdd } from './scrollback-tap.js';
import { randomStream, seededRandom } from '../../../test/support/random-stream.js';
import { Screen } from './screen.js';
import { ParseScheduler } from './parse-scheduler.js';

const scheduler = new ParseScheduler();

// The screen gives xterm's buffer this much room before a resize so that its
// reflow never drops a row unseen: the bound must hold for any content (wide
// characters at the edge, wrapped lines, the cursor's line) and any size.
test('rowsAResizeMayAdd is never less than the rows a resize adds to a buffer with room for all of them', async () => {
  let resizes = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const random = seededRandom(seed);
    // A screen that keeps every row live (with xterm's bug guards): nothing it adds is trimmed.
    const screen = new Screen({ cols: 40, rows: 10, scrollbackRows: 1_000_000, liveScrollbackRows: 1_000_000, scheduler });
    try {
      screen.write(randomStream(random, 600, 40, 10), { live: false });
      await screen.flush();
      for (let k = 0; k < 6; k++) {
        const cols = 1 + Math.floor(random() * 60);
        const rows = 1 + Math.floor(random() * 30);
        const bound = rowsAResizeMayAdd(screen.terminal, cols, rows);
        const before = screen.terminal.buffer.normal.length;
        screen.resize(cols, rows);
        await screen.flush();
        const added = screen.terminal.buffer.normal.length - before;
        assert.ok(added <= bound, `seed ${seed}: ${before} rows, resized to ${cols}x${rows}, added ${added} > ${bound}`);
        resizes++;
      }
    } finally {
      screen.dispose();
    }
  }
  assert.equal(resizes, 240);
});
