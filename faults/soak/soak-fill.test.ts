// The soak measures memory once screens are at their full size: a session
// still filling its scrollback grows the server as a leak would (a 5-minute
// soak whose answering sessions filled by typing alone measured 4 MiB/min).
// Each soak program fills its scrollback as it starts.
import { after, test } from 'node:test';
import { FaultServer } from '../lib/fault-server.js';
import { SOAK_LIVE_ROWS, SOAK_SCROLLBACK_ROWS, soakProgram, waitScrollbackFull } from './soak-part.js';

/** Far less than the 100 seconds a ticking session takes to fill by its ticks alone. */
const FILL_TIMEOUT_MS = 30_000;

const server = new FaultServer({ TEND_SCROLLBACK_ROWS: SOAK_SCROLLBACK_ROWS, TEND_LIVE_ROWS: SOAK_LIVE_ROWS });
after(() => server.close());

test('both soak programs fill their scrollback before anything is typed', async () => {
  await server.launch();
  for (const ticking of [true, false]) {
    const session = await server.createSession(soakProgram(ticking), { name: ticking ? 'ticking' : 'answering' });
    await waitScrollbackFull(server, session.id, FILL_TIMEOUT_MS);
  }
});
