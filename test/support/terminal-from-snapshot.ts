// What a viewer does with a snapshot, for tests, faults and benches that check
// one: a fresh headless terminal of the snapshot's size, the data written and
// parsed. The server itself restores screens with Screen.fromSnapshot.
import xtermHeadless from '@xterm/headless';
import type { Terminal } from '@xterm/headless';
import { DEFAULT_SCROLLBACK_ROWS, type ScreenSnapshot } from '../../src/server/screen/index.js';

export async function terminalFromSnapshot(snapshot: ScreenSnapshot): Promise<Terminal> {
  const terminal = new xtermHeadless.Terminal({
    cols: snapshot.cols,
    rows: snapshot.rows,
    scrollback: Math.max(DEFAULT_SCROLLBACK_ROWS, snapshot.scrollbackRows),
    allowProposedApi: true,
  });
  await new Promise<void>((resolve) => terminal.write(snapshot.data, resolve));
  return terminal;
}
