import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, HEX_ECHO, PROMPT, attachToBash, newSession, serverFor, serverScreen, waitForSessionText } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

/** The line an attach prints when the session's program ends. */
const exitLine = (name: string, id: string, code: number): RegExp => new RegExp(`\\[session :${name} \\(${id}\\) exited with code ${code}\\]`);

describe('tend attach', () => {
  test('keystrokes reach the session and the outer terminal shows exactly the server screen', T, async (t) => {
    const { server, id, viewer } = await attachToBash(useTestScope(t), 'work');
    await viewer.waitForServerScreen(server, id);
    viewer.type('echo typed-through-attach\r');
    await waitForSessionText(server, id, /^typed-through-attach$/m);
    await viewer.waitForServerScreen(server, id);
    // Colours and a full-screen program: the outer terminal still matches.
    viewer.type("printf '\\033[31mred\\033[0m plain\\n'; seq 1 40\r");
    await waitForSessionText(server, id, /^40$/m);
    await viewer.waitForServerScreen(server, id);
  });

  test('detaching with Ctrl-\\ d leaves the session running and a reattach restores the screen', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'keep', argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const first = await AttachedTerminal.start(scope, server, [':keep']);
    first.type('echo before-detach\r');
    await waitForSessionText(server, id, /^before-detach$/m);
    await first.waitForServerScreen(server, id);
    first.type('\x1cd');
    assert.equal((await first.waitForExit()).code, 0);
    assert.match(first.output, new RegExp(`\\[detached from :keep \\(${id}\\)\\]`));
    // The outer terminal got its modes back.
    assert.equal(first.terminal.modes.bracketedPasteMode, false);
    const info = await server.api<{ status: string; viewers: number }>('GET', `/v1/sessions/${id}`);
    assert.equal(info.body.status, 'running');

    // Output while nobody watches, then a new viewer sees all of it.
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo while-detached\r' });
    await waitForSessionText(server, id, /^while-detached$/m);
    const second = await AttachedTerminal.start(scope, server, [':keep']);
    await second.waitForServerScreen(server, id);
    assert.match(second.screen, /before-detach[\s\S]*while-detached/);
  });

  test('the prefix twice sends the prefix itself, another key after it is swallowed, and --detach-key changes the prefix', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [id, '--detach-key', 'C-a']);
    await viewer.waitForServerScreen(server, id);
    // With C-a as the prefix, Ctrl-\ passes through; C-a C-a is one C-a; C-a x is neither.
    viewer.type('\x1c\x01\x01\x01xZ');
    await waitForSessionText(server, id, /5a\]/);
    const received = (await serverScreen(server, id)).text.replace('ready', '').replace(/[\[\]\s]/g, '');
    assert.equal(received, '1c015a');
    viewer.type('\x01d');
    assert.equal((await viewer.waitForExit()).code, 0);
  });

  test('two attached viewers see identical screens, and the latest to type sets the size', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'pair', argv: BASH, cols: 80, rows: 24 });
    await waitForSessionText(server, id, PROMPT);
    const a = await AttachedTerminal.start(scope, server, [':pair'], { cols: 80, rows: 24 });
    await a.waitForServerScreen(server, id);
    const b = await AttachedTerminal.start(scope, server, [':pair'], { cols: 80, rows: 24 });
    await b.waitForServerScreen(server, id);
    a.type('echo from-a\r');
    await waitForSessionText(server, id, /^from-a$/m);
    b.type('echo from-b\r');
    await waitForSessionText(server, id, /^from-b$/m);
    await a.waitForServerScreen(server, id);
    await b.waitForServerScreen(server, id);
    assert.equal(a.screen, b.screen);
    // A resize of b's terminal resizes the session (b is the latest).
    b.resize(100, 30);
    await waitFor(async () => (await serverScreen(server, id)).cols === 100);
  });

  test('--read-only shows the session but types nothing and resizes nothing', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH, cols: 80, rows: 24 });
    await waitForSessionText(server, id, PROMPT);
    const watcher = await AttachedTerminal.start(scope, server, [id, '--read-only'], { cols: 60, rows: 20 });
    await waitFor(() => /\$/.test(watcher.screen));
    watcher.type('echo should-not-arrive\r');
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo from-api\r' });
    await waitForSessionText(server, id, /^from-api$/m);
    await watcher.waitForScreen('the watcher to show the output', (s) => /^from-api$/m.test(s));
    const screen = await serverScreen(server, id);
    assert.doesNotMatch(screen.text, /should-not-arrive/);
    assert.deepEqual([screen.cols, screen.rows], [80, 24]);
    watcher.type('\x1cd');
    assert.equal((await watcher.waitForExit()).code, 0);
  });

  test('the session exiting ends the attach with its exit code', T, async (t) => {
    const { server, id, viewer } = await attachToBash(useTestScope(t), 'short');
    await viewer.waitForServerScreen(server, id);
    viewer.type('exit 7\r');
    assert.equal((await viewer.waitForExit()).code, 0);
    assert.match(viewer.output, exitLine('short', id, 7));
  });

  test('a program that floods and exits at once: its last line reaches the outer terminal before the exit line', T, async (t) => {
    const { server, id, viewer } = await attachToBash(useTestScope(t), 'flood');
    await viewer.waitForServerScreen(server, id);
    viewer.type('seq 1 300000; echo last-words; exit 7\r');
    assert.equal((await viewer.waitForExit()).code, 0);
    const last = viewer.output.lastIndexOf('last-words\r\n');
    const exited = viewer.output.search(exitLine('flood', id, 7));
    assert.ok(exited > 0, 'the exit line');
    assert.ok(last >= 0 && last < exited, `the last line before the exit line; output tail: ${JSON.stringify(viewer.output.slice(-300))}`);
    assert.ok(viewer.output.indexOf('300000\r\n') < last, 'and the flood before it');
  });
});
