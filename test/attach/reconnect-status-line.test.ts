// The "reconnecting…" line `tend attach` draws over the bottom row while the
// server is away must never reach the outer terminal's history. Once the
// server is back, the replay of what the viewer missed scrolls the screen; a
// status line still on the bottom row then went up with it, or the session's
// output was written over it (a row reading `tick 394connecting…`). Here a
// session prints a line every 10 ms while its server is restarted under the
// attach, several times; afterwards no row of the outer screen or scrollback
// holds any part of the status line, and every tick line is whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, allRows, newSession, serverFor, waitForSessionText } from './attach-harness.js';

const RESTARTS = 3;
/** Pieces of the status line, any of which on a row means the line (or part of it) was left there. */
const STATUS_PIECES = ['tend:', 'reconnect', 'connecting', 'keeps running', 'what you type', 'is back'];

function occurrences(text: string, piece: string): number {
  return text.split(piece).length - 1;
}

test('after servers restarted under a session printing every 10 ms, no row holds any part of "reconnecting…" and every line is whole', { timeout: ATTACH_TEST_TIMEOUT_MS * 2 }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const stop = join(server.home, 'stop-ticking');
  // No prompt and no echo: the rows are the ticks alone, and one line when they stop.
  const id = await newSession(server, {
    argv: ['bash', '--norc', '--noprofile', '-c', `stty -echo; i=0; while [ ! -e '${stop}' ]; do i=$((i+1)); printf 'tick %d\\n' "$i"; sleep 0.01; done; echo ticks-done; exec sleep 3600`],
  });
  await waitForSessionText(server, id, /^tick 30$/m);
  const viewer = await AttachedTerminal.start(scope, server, [id]);

  for (let round = 1; round <= RESTARTS; round++) {
    const shownBefore = occurrences(viewer.output, 'reconnecting…');
    const pid = server.serverPid()!;
    const restarted = await server.cli(['server', 'restart']);
    assert.equal(restarted.code, 0, restarted.stderr);
    await waitFor(() => !isProcessAlive(pid), { what: `the server of round ${round} to be gone` });
    await waitFor(async () => (await server.api<{ viewers: number }>('GET', `/v1/sessions/${id}`)).body.viewers === 1, { what: `the attach back on the server of round ${round}`, timeoutMs: 60_000 });
    // The outage was long enough to be said (the first retry catches only a blip).
    assert.ok(occurrences(viewer.output, 'reconnecting…') > shownBefore, `round ${round}: the status line was drawn`);
    // Ticks written by the attach after it was back: the replay and the repaint are done.
    const backAt = viewer.output.length;
    await waitFor(() => (viewer.output.slice(backAt).match(/tick \d+\r?\n/g)?.length ?? 0) >= 20, { what: `ticks after round ${round}`, timeoutMs: 30_000 });
  }

  writeFileSync(stop, '');
  await waitForSessionText(server, id, /^ticks-done$/m);
  await viewer.waitForServerScreen(server, id);

  const rows = allRows(viewer.terminal);
  const withStatus = rows.filter((row) => STATUS_PIECES.some((piece) => row.includes(piece)));
  assert.deepEqual(withStatus, [], 'rows holding part of the status line');
  const notWhole = rows.filter((row) => row.trim() !== '' && !/^tick \d+$/.test(row) && row !== 'ticks-done');
  assert.deepEqual(notWhole, [], 'rows that are not a whole tick line');
  // Every tick once, in order, none missing between the first and the last the outer terminal holds.
  const ticks = rows.filter((row) => row.startsWith('tick ')).map((row) => Number(row.slice(5)));
  const outOfStep = ticks.flatMap((n, i) => (i > 0 && n !== ticks[i - 1]! + 1 ? [`${ticks[i - 1]} → ${n}`] : []));
  assert.deepEqual(outOfStep, [], `ticks out of step (${ticks.length} tick rows)`);
});
