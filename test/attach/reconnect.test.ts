// `tend attach` across a server that restarts, dies or recovers a session
// incompletely: the outer terminal's history gets every row once, keys typed
// meanwhile arrive once, the attach brings a dead server back itself, and an
// incomplete screen is said so without garbling it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { openSync, closeSync, constants } from 'node:fs';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive } from '../support/processes.js';
import { TmuxOuter } from './tmux-outer.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, PROMPT, RawViewer, allRows, launcherCommand, newSession, serverFor, serverScreen, waitForSessionText } from './attach-harness.js';


function countOf(lines: string[], text: string): number {
  return lines.filter((l) => l === text).length;
}

test('after `tend server restart` the outer terminal\'s scrollback holds every row once', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  await server.api('POST', `/v1/sessions/${id}/input`, { text: 'seq 1 500\r' });
  await waitForSessionText(server, id, /^500\n\$/m);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);
  const rowsBefore = allRows(viewer.terminal).length;
  for (const n of [1, 250, 500]) assert.equal(countOf(allRows(viewer.terminal), String(n)), 1, `row ${n} before the restart`);

  const restarted = await server.cli(['server', 'restart']);
  assert.equal(restarted.code, 0, restarted.stderr);
  await waitFor(async () => ((await server.api<{ viewers: number }>('GET', `/v1/sessions/${id}`)).body.viewers === 1), { what: 'the attach back on the new server' });
  await viewer.waitForServerScreen(server, id);
  viewer.type('echo after-the-restart\r');
  await waitForSessionText(server, id, /^after-the-restart$/m);
  await viewer.waitForServerScreen(server, id);

  const lines = allRows(viewer.terminal);
  const twice = [];
  for (let n = 1; n <= 500; n++) if (countOf(lines, String(n)) !== 1) twice.push(n);
  assert.deepEqual(twice, [], `rows not there exactly once (outer history ${rowsBefore} → ${lines.length} rows)`);
  assert.ok(lines.length <= rowsBefore + 3, `the outer history grew from ${rowsBefore} to ${lines.length} rows`);
});

test('a SIGKILLed server is started again by the attach, and keys typed while it was away arrive once', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);

  const pid = server.serverPid()!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  await viewer.waitForOutput('the reconnecting status', /reconnecting…/);
  viewer.type('echo typed-while-away\r');
  // Nobody but the attach starts a server here.
  await waitFor(() => { const now = server.serverPid(); return now !== null && now !== pid; }, { what: 'the attach to start a server', timeoutMs: 60_000 });
  await waitForSessionText(server, id, /^typed-while-away$/m, 60_000);
  await viewer.waitForServerScreen(server, id);
  const screen = await serverScreen(server, id);
  assert.equal(screen.text.match(/^typed-while-away$/gm)?.length, 1, 'delivered once');
  assert.equal(viewer.exit, null);
});

test('a screen recovered with a ring gap is said so on the bottom row, then repainted whole', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope, { TEND_RING_BYTES: String(64 * 1024) });
  const fifo = join(server.home, 'go');
  execFileSync('mkfifo', [fifo]);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  // The output comes when the test says, while no server reads the holder: more than its ring holds.
  await server.api('POST', `/v1/sessions/${id}/input`, { text: `cat ${fifo} >/dev/null; seq 1 100000; echo flood-done\r` });
  const viewer = await AttachedTerminal.start(scope, server, [id]);
  await viewer.waitForServerScreen(server, id);

  const pid = server.serverPid()!;
  process.kill(pid, 'SIGKILL');
  await waitFor(() => !isProcessAlive(pid), { what: 'the server to die' });
  closeSync(openSync(fifo, constants.O_WRONLY));
  await viewer.waitForOutput('the notice that the screen is incomplete', /output was lost/, 60_000);
  await waitForSessionText(server, id, /^flood-done$/m, 60_000);
  // The notice goes and the screen is the server's, with no trace of the notice in it or in the history.
  await viewer.waitForServerScreen(server, id, 30_000);
  assert.equal(allRows(viewer.terminal).some((l) => l.includes('output was lost')), false);
});


test('inside tmux: a reconnect repaints without the program\'s pen, and a detach leaves no scroll region, charset or autowrap behind', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { name: 'pen', argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const env: NodeJS.ProcessEnv = { ...server.env, TERM: 'xterm-256color' };
  delete env.TMUX;
  const outer = TmuxOuter.start(scope, { cols: 100, rows: 30, command: "PS1='outer$ ' bash --norc --noprofile", env });
  await outer.waitForScreen('the outer shell', (rows) => rows.some((r) => r.startsWith('outer$')));
  outer.sendKeys('-l', `${launcherCommand} attach :pen`);
  outer.sendKeys('Enter');
  await outer.waitForScreen('the attach', (rows) => !rows.some((r) => r.startsWith('outer$')) && rows.some((r) => r.startsWith('$')));
  // A curly red underline pen, DEC line drawing in G0, a scroll region, autowrap off: then READY (capitals draw as themselves).
  await server.api('POST', `/v1/sessions/${id}/input`, { text: "printf '\\e[4:3m\\e[31m\\e(0\\e[3;12r\\e[?7l\\e[2;1HREADY'; cat\r" });
  await outer.waitForScreen('READY', (rows) => rows.some((r) => r.includes('READY')));

  assert.equal((await server.cli(['server', 'restart'])).code, 0);
  await waitFor(async () => ((await server.api<{ viewers: number }>('GET', `/v1/sessions/${id}`)).body.viewers === 1), { what: 'the attach back on the new server', timeoutMs: 30_000 });
  await outer.waitForScreen('the repaint', (rows) => !rows.some((r) => r.includes('reconnecting')) && rows.some((r) => r.includes('READY')));
  const screen = outer.screen();
  const commandRow = screen.find((r) => r.includes('printf'));
  assert.ok(commandRow !== undefined, `the command line on the screen: ${JSON.stringify(screen)}`);
  assert.doesNotMatch(commandRow.slice(0, commandRow.indexOf('printf')), /\x1b\[/, `the command line is drawn in the default pen: ${JSON.stringify(commandRow)}`);

  outer.sendKeys('C-\\', 'd');
  await outer.waitForScreen('the detach', (rows) => rows.some((r) => r.includes('[detached from')));
  outer.sendKeys('-l', "printf '%0150d\\n' 0; echo plain-after; seq 1 40");
  outer.sendKeys('Enter');
  await outer.waitForScreen('the shell after the detach', (rows) => rows.some((r) => r === '40'));
  const rows = outer.screen();
  assert.equal(rows.length, 30);
  assert.match(rows[29] ?? '', /^outer\$/, `the prompt is on the last row (no scroll region left): ${JSON.stringify(rows)}`);
  const plain = outer.tmux(['capture-pane', '-p', '-S', '-', '-t', '0']).stdout;
  assert.match(plain, /^plain-after$/m, 'ASCII, not line drawing');
  assert.match(plain, /^0{100}\n0{50}$/m, 'a long line wraps (autowrap is on)');
  assert.doesNotMatch(rows.join('\n'), /\x1b\[[0-9;:]*m[^\n]*plain-after/, 'no pen on the shell\'s output');
});

test('a viewer a little behind the stopped server\'s screen is replayed by the next server from its own position', { timeout: ATTACH_TEST_TIMEOUT_MS }, async (t) => {
  const scope = useTestScope(t);
  const server = await serverFor(scope);
  const id = await newSession(server, { argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const viewer = await RawViewer.connect(scope, server);
  viewer.autoAck = true;
  viewer.subscribe(id);
  const snap = await viewer.next('snapshot');
  await server.api('POST', `/v1/sessions/${id}/input`, { text: 'seq 1 3000\r' });
  await waitForSessionText(server, id, /^3000\n\$/m);
  await waitFor(() => viewer.streamBytes > 14_000, { what: 'the output at the viewer' });
  viewer.close();
  // The stopping server checkpoints at its screen's end; this viewer says it got only the snapshot.
  assert.equal((await server.cli(['server', 'restart'])).code, 0);

  const back = await RawViewer.connect(scope, server);
  back.subscribe(id, { resume: { boot: snap.boot, seq: snap.seq } });
  const first = await back.next('data');
  assert.equal(back.frames.some((f) => f.type === 'snapshot'), false, 'replayed, not repainted');
  assert.equal(first.seq - first.data.length, snap.seq, 'from the viewer\'s own seq');
  await waitFor(() => Buffer.concat(back.frames.flatMap((f) => (f.type === 'data' ? [f.data] : []))).includes('\r\n3000\r\n'), { what: 'the whole replay' });
});
