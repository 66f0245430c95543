import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomStream, seededRandom } from '../../../test/support/random-stream.js';
import { roundTrip } from '../../../test/support/round-trip-check.js';

const CASES = 300;
const SIZES: [number, number][] = [[10, 5], [20, 6], [13, 4], [80, 24]];
// Known: a few streams still differ (styled blanks at the last column of soft-wrapped rows and
// similar corners, listed in screen.ts). This bound keeps regressions visible while they are fixed.
const MAX_FAILING_SHARE = 0.05;
// Streams that leave xterm in a state the snapshot does not rebuild (unrestorableState: a pen that
// only DECRCs no stream can order make, a cell pointing at a forgotten link) are counted apart:
// 1–2 of 300 (before pens made by DECRC were rebuilt, 48).
const MAX_UNRESTORABLE_SHARE = 0.02;

describe('random streams round-trip through a snapshot', () => {
  test(`${CASES} seeded streams restore cell for cell and continue alike`, { timeout: 240_000 }, async () => {
    const failing: string[] = [];
    let unrestorable = 0;
    let exact = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const random = seededRandom(seed);
      const [cols, rows] = SIZES[seed % SIZES.length]!;
      const input = randomStream(random, 10 + Math.floor(random() * 60), cols, rows);
      const continuation = randomStream(random, 8, cols, rows);
      const result = await roundTrip(input, { cols, rows, continuation, scrollbackRows: 50 });
      if (result.unrestorable !== undefined) unrestorable++;
      else if (result.restored.length === 0 && result.continued.length === 0) exact++;
      else failing.push(`seed ${seed} ${cols}x${rows}: ${[...result.restored, ...result.continued][0]}`);
    }
    console.log(`random round trips: ${exact} exact, ${unrestorable} not rebuilt by the writer, ${failing.length} differing`);
    for (const line of failing) console.log(`  ${line}`);
    assert.ok(exact > CASES / 2, `only ${exact} of ${CASES} exact`);
    assert.ok(failing.length <= CASES * MAX_FAILING_SHARE, `${failing.length} differing:\n${failing.join('\n')}`);
    assert.ok(unrestorable <= CASES * MAX_UNRESTORABLE_SHARE, `${unrestorable} unrestorable`);
  });

  test('sliced snapshots give the same text as one-shot ones', { timeout: 60_000 }, async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const input = randomStream(random, 60, 20, 6);
      const whole = await roundTrip(input, { cols: 20, rows: 6 });
      const sliced = await roundTrip(input, { cols: 20, rows: 6, sliced: true });
      assert.equal(sliced.snapshot.data, whole.snapshot.data, `seed ${seed}`);
    }
  });
});
