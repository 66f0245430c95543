// Attaching again from the same terminal window (a tmux pane here, as a user
// detaches and attaches all day) puts the session's history into that
// window's scrollback once: the server remembers, per window, the rows it was
// streamed, and the next attach is sent only the rows after them. Another
// window is sent the history as before. Both viewers (the native one and the
// TypeScript one) name a window alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { TmuxOuter } from './tmux-outer.js';
import { dirname } from 'node:path';
import { ATTACH_TEST_TIMEOUT_MS, BASH, PROMPT, launcherCommand, newSession, serverFor, tendLauncher, testsTypeScriptViewer, waitForSessionText } from './attach-harness.js';
import type { TestServer } from '../server/harness.js';
import type { TestScope } from '../support/test-scope.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

/** The launcher with the other viewer than the run's: the native one when the run tests the TypeScript one, and back. */
const otherViewerCommand = `PATH='${dirname(process.execPath)}':"$PATH" TEND_VIEWER=${testsTypeScriptViewer ? '' : 'node'} '${tendLauncher}'`;

function countOf(lines: string[], text: string): number {
  return lines.filter((l) => l === text).length;
}

/** A tmux pane running a shell: the user's terminal window. */
async function outerWindow(scope: TestScope, server: TestServer, size = { cols: 100, rows: 30 }): Promise<TmuxOuter> {
  const env: NodeJS.ProcessEnv = { ...server.env, TERM: 'xterm-256color' };
  delete env.TMUX;
  const outer = TmuxOuter.start(scope, { ...size, command: "PS1='outer$ ' bash --norc --noprofile", env });
  outer.tmux(['set', '-g', 'history-limit', '20000']);
  await outer.waitForScreen('the outer shell', (rows) => rows.some((r) => r.startsWith('outer$')));
  return outer;
}

/** `tend attach :w` typed into the window, until the screen shows `last`; then detached with the prefix and d. */
async function attachAndDetach(outer: TmuxOuter, last: string, command = launcherCommand): Promise<void> {
  outer.sendKeys('-l', `${command} attach :w`);
  outer.sendKeys('Enter');
  await outer.waitForScreen(`the attach showing ${last}`, (rows) => rows.includes(last) && rows.some((r) => /^\$\s*$/.test(r)) && !rows.some((r) => r.startsWith('outer$')));
  await detach(outer);
}

async function detach(outer: TmuxOuter): Promise<void> {
  outer.sendKeys('C-\\', 'd');
  await outer.waitForScreen('the detach', (rows) => rows.at(-1)?.startsWith('outer$') === true && rows.some((r) => r.includes('[detached from')));
}

/** A bash session `w` that printed rows 1 to 300, and a window that attached to it and detached. */
async function attachedOnce(t: Parameters<typeof useTestScope>[0]): Promise<{ scope: TestScope; server: TestServer; id: string; outer: TmuxOuter }> {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { name: 'w', argv: BASH, cols: 100, rows: 30 });
  await waitForSessionText(server, id, PROMPT);
  await server.api('POST', `/v1/sessions/${id}/input`, { text: 'seq 1 300\r' });
  await waitForSessionText(server, id, /^300\n\$/m);
  const outer = await outerWindow(scope, server);
  await attachAndDetach(outer, '300');
  return { scope, server, id, outer };
}

function scrollback(outer: TmuxOuter): string[] {
  return outer.tmux(['capture-pane', '-p', '-S', '-', '-t', '0']).stdout.split('\n');
}

test('attaching again from the same window puts each history row in its scrollback once; another window gets the history', T, async (t) => {
  const { scope, server, id, outer } = await attachedOnce(t);
  const afterFirst = scrollback(outer).length;
  assert.equal(countOf(scrollback(outer), '150'), 1, 'the first attach puts the history there');
  await attachAndDetach(outer, '300', otherViewerCommand);
  const afterSecond = scrollback(outer).length;
  // The second attach adds the window's own screen, scrolled up by the paint, and the lines around it: not the history again.
  assert.ok(afterSecond - afterFirst <= 2 * 30 + 5, `the second attach added ${afterSecond - afterFirst} rows to the window`);

  // Output while no one is attached reaches the window once, at the next attach.
  await server.api('POST', `/v1/sessions/${id}/input`, { text: 'seq 1001 1100\r' });
  await waitForSessionText(server, id, /^1100\n\$/m);
  await attachAndDetach(outer, '1100');
  const lines = scrollback(outer);
  const notOnce: string[] = [];
  // Rows that were on the screen at a detach are scrolled up again by the next paint (as the user's own screen is): the rest once.
  for (let n = 1; n <= 260; n++) if (countOf(lines, String(n)) !== 1) notOnce.push(`${n}×${countOf(lines, String(n))}`);
  for (let n = 1001; n <= 1100; n++) if (countOf(lines, String(n)) !== 1) notOnce.push(`${n}×${countOf(lines, String(n))}`);
  assert.deepEqual(notOnce, [], 'every history row once in the window');

  // A window that was never attached from is sent the history.
  const other = await outerWindow(scope, server);
  await attachAndDetach(other, '1100');
  const otherLines = scrollback(other);
  for (const n of ['150', '300', '1050']) assert.equal(countOf(otherLines, n), 1, `row ${n} in the other window`);
});

test('the window\'s rows are remembered across `tend server restart`', T, async (t) => {
  const { server, id, outer } = await attachedOnce(t);
  const before = scrollback(outer).length;

  const restarted = await server.cli(['server', 'restart']);
  assert.equal(restarted.code, 0, restarted.stderr);
  await server.api('POST', `/v1/sessions/${id}/input`, { text: 'seq 1001 1050\r' });
  await waitForSessionText(server, id, /^1050\n\$/m);
  await attachAndDetach(outer, '1050');
  const lines = scrollback(outer);
  assert.ok(lines.length - before <= 50 + 2 * 30 + 5, `the attach after the restart added ${lines.length - before} rows`);
  for (const n of ['1', '150', '260', '1001', '1020']) assert.equal(countOf(lines, n), 1, `row ${n} once`);
});

test('a window shown only views, which then took the session\'s size, is sent the history at its next attach', T, async (t) => {
  const { scope, server, id, outer: big } = await attachedOnce(t);
  big.sendKeys('-l', `${launcherCommand} attach :w`);
  big.sendKeys('Enter');
  await big.waitForScreen('the big window attached', (rows) => rows.includes('300') && !rows.some((r) => r.startsWith('outer$')));
  // A smaller window beside it is shown views; typing there gives the session its size, and it
  // is sent the screen alone (its own scrollback has no row of the session).
  const small = await outerWindow(scope, server, { cols: 80, rows: 20 });
  small.sendKeys('-l', `${launcherCommand} attach :w`);
  small.sendKeys('Enter');
  await small.waitForScreen('the small window attached', (rows) => rows.includes('300') && !rows.some((r) => r.startsWith('outer$')));
  small.sendKeys('-l', 'echo from-the-small-window');
  small.sendKeys('Enter');
  await small.waitForScreen('its output', (rows) => rows.includes('from-the-small-window'));
  // The hint on entry gives way to a repaint: a new channel, which says it keeps the history.
  await small.waitForScreen('the hint gone', (rows) => !rows.some((r) => r.includes('tend: attached to')), 30_000);
  assert.equal((await server.api<{ cols: number }>('GET', `/v1/sessions/${id}`)).body.cols, 80, 'the session took the small window\'s size');
  assert.equal(countOf(scrollback(small), '150'), 0, 'no history row reached the small window');
  await detach(small);
  await detach(big);

  await attachAndDetach(small, 'from-the-small-window');
  assert.equal(countOf(scrollback(small), '150'), 1, 'the history reaches the small window at its next attach, once');
});
