import { test } from 'node:test';
import assert from 'node:assert/strict';
import { penPlan } from './pen-state.js';
import { roundTrip } from '../../../test/support/round-trip-check.js';
import { Screen } from './screen.js';
import { readInternals } from './xterm-private.js';

// What the crash loop's streams reached (varied-stream seed 256, cut down to
// what matters): `CSI 4 m` and DECSC save a pen whose underline flag is on
// and whose record shows; `CSI 0 m` empties the record; leaving the alternate
// screen restores the saved fg and bg over the empty record; entering it
// again keeps that pen. The alternate screen's saved cursor has the flag off,
// so no DECRC the snapshot can order gives the flag back over an empty record.
const FLAG_OVER_EMPTY_RECORD_ALTERNATE = '\x1b[4m\x1b7\x1b[0m\x1b[?1049l\x1b[?1049h';
// The same pen on the normal screen, whose saved cursor has the flag on.
const FLAG_OVER_EMPTY_RECORD_NORMAL = '\x1b[4m\x1b7\x1b[0m\x1b8';

async function planOf(bytes: string): Promise<ReturnType<typeof penPlan>> {
  const screen = new Screen({ cols: 80, rows: 24, scrollbackRows: 100 });
  try {
    screen.write(bytes, { live: false });
    await screen.flush();
    return penPlan(screen.terminal, readInternals(screen.terminal));
  } finally {
    screen.dispose();
  }
}

test('the underline flag over an empty record on the alternate screen is a pen no snapshot can order, and only the pen differs', async () => {
  const plan = await planOf(FLAG_OVER_EMPTY_RECORD_ALTERNATE);
  assert.equal(plan.kind, 'unreachable');
  const result = await roundTrip(FLAG_OVER_EMPTY_RECORD_ALTERNATE, { continuation: 'x\x1b[24my' });
  assert.match(result.unrestorable ?? '', /^pen /);
  assert.equal(result.restored.length, 1);
  assert.match(result.restored[0]!, /^pen: .*"recordShown":true,"underlineStyle":0.* != .*"recordShown":true,"underlineStyle":1/);
  // Printed with either pen, a cell reads as underlined; SGR 24 makes the pens equal again.
  assert.deepEqual(result.continued, []);
});

test('the same pen on the normal screen is made by a DECRC and comes back exactly', async () => {
  const plan = await planOf(FLAG_OVER_EMPTY_RECORD_NORMAL);
  assert.equal(plan.kind, 'decrc');
  const result = await roundTrip(FLAG_OVER_EMPTY_RECORD_NORMAL, { continuation: 'x\x1b7\x1b[0m\x1b8y' });
  assert.equal(result.unrestorable, undefined);
  assert.deepEqual(result.restored, []);
  assert.deepEqual(result.continued, []);
});
