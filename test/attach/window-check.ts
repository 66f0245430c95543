// What a `tend attach` of another size than its session must show, and a
// wait until it does: the server's screen in the window the server chose,
// dots where the session does not reach (a viewer larger than the session).
import { waitFor } from '../support/wait-for.js';
import type { TestServer } from '../server/harness.js';
import { serverScreen, type AttachedTerminal, type ServerScreen } from './attach-harness.js';

/** The server's screen as rows of exactly `cols` characters (ASCII content: one character, one cell). */
function serverRows(screen: ServerScreen): string[] {
  const lines = screen.text.split('\n');
  return Array.from({ length: screen.rows }, (_, y) => (lines[y] ?? '').padEnd(screen.cols, ' '));
}

/** What a viewer of size cols x rows must show: the window at (ox, oy), dots where the session does not reach. */
export function expectedWindow(screen: ServerScreen, view: { cols: number; rows: number }, ox: number, oy: number): string {
  const rows = serverRows(screen);
  const out: string[] = [];
  for (let y = 0; y < view.rows; y++) {
    const source = rows[oy + y];
    const shown = source === undefined ? '' : source.slice(ox, ox + view.cols);
    out.push(shown.padEnd(view.cols, '.').replace(/\s+$/, ''));
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** Waits until the viewer shows its window of the session at the origin `offset` gives, cursor included. */
export async function waitForWindow(viewer: AttachedTerminal, server: TestServer, id: string, view: { cols: number; rows: number }, offset: (s: ServerScreen) => [number, number]): Promise<void> {
  let last: ServerScreen | null = null;
  let expected = '';
  await waitFor(
    async () => {
      if (!viewer.settled) return false;
      last = await serverScreen(server, id);
      const [ox, oy] = offset(last);
      expected = expectedWindow(last, view, ox, oy);
      const cursor = viewer.terminal.buffer.active;
      return viewer.settled && viewer.screen === expected && cursor.cursorX === last.cursor.x - ox && cursor.cursorY === last.cursor.y - oy;
    },
    {
      what: `the ${view.cols}x${view.rows} viewer to show its window of the session`,
      describe: () => `outer:\n${viewer.screen}\nexpected:\n${expected}\nserver ${last?.cols}x${last?.rows} cursor ${JSON.stringify(last?.cursor)}, outer cursor ${viewer.terminal.buffer.active.cursorX},${viewer.terminal.buffer.active.cursorY}`,
    },
  );
}

/** The session's size as the server's screen has it. */
export async function sizeOf(server: TestServer, id: string): Promise<[number, number]> {
  const s = await serverScreen(server, id);
  return [s.cols, s.rows];
}
