// The keys after the prefix, through a real `tend attach` in a real PTY: an
// unknown key is swallowed, `?` shows the keys and the screen comes back
// exactly, the entry hint and the read-only marker are drawn over the screen
// and repainted away, and `s` switches the attach to another session.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, HEX_ECHO, allRows, newSession, serverFor, serverScreen, waitForSessionText, attachToBash } from './attach-harness.js';
import type { TestServer } from '../server/harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

/** A program that says `ready`, then prints the rows 1 to 300 in one write for each read (no echo). */
const BURST = [
  process.execPath,
  '-e',
  "process.stdin.setRawMode(true); process.stdout.write('ready\\r\\n'); process.stdin.on('data', () => { let rows = ''; for (let i = 1; i <= 300; i++) rows += i + '\\r\\n'; process.stdout.write(rows); });",
];

/** What a HEX_ECHO program has read, every read's bytes in hex, run together. */
async function bytesRead(server: TestServer, target: string): Promise<string> {
  return (await serverScreen(server, target)).text.replace('ready', '').replace(/[\[\]\s]/g, '');
}

describe('tend attach: the keys after the prefix', () => {
  test('a key after the prefix that is no command is swallowed: the program reads nothing of it', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [id]);
    viewer.type('a');
    await waitForSessionText(server, id, /\[61\]/);
    // x, an arrow (a whole escape sequence) and a UTF-8 character after the prefix.
    viewer.type('\x1cx');
    viewer.type('\x1c\x1b[A');
    viewer.type('\x1c한');
    viewer.type('b');
    await waitForSessionText(server, id, /62\]/);
    assert.equal(await bytesRead(server, id), '6162');
  });

  test('prefix ? lists the keys over the screen; any key returns and the screen is the session\'s exactly, output meanwhile included', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [id]);
    viewer.type('a');
    await waitForSessionText(server, id, /\[61\]/);
    await viewer.waitForServerScreen(server, id);
    viewer.type('\x1c?');
    await viewer.waitForScreen('the keys over the screen', (s) => /Ctrl-\\ d +detach; the session keeps running/.test(s) && /Ctrl-\\ s +list the sessions/.test(s) && /any key returns/.test(s));
    // Output while the keys are shown is held back, not drawn over them.
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'zz' });
    await waitForSessionText(server, id, /\[7a7a\]/);
    assert.doesNotMatch(viewer.screen, /7a7a/);
    assert.match(viewer.screen, /any key returns/);
    viewer.type('q');
    await viewer.waitForServerScreen(server, id);
    assert.doesNotMatch(viewer.screen, /any key returns/);
    // The key that returned went nowhere; typing goes on as before.
    viewer.type('b');
    await waitForSessionText(server, id, /\[62\]/);
    assert.equal(await bytesRead(server, id), '617a7a62');
    await viewer.waitForServerScreen(server, id);
  });

  test('a hint on entry names the session and the keys, then gives way to output and the screen is the session\'s', T, async (t) => {
    const { server, id, viewer } = await attachToBash(useTestScope(t), 'hinted');
    await viewer.waitForScreen('the hint on the bottom row', (s) => {
      const rows = s.split('\n');
      return rows.length === 24 && /^tend: attached to :hinted · Ctrl-\\ d detaches, Ctrl-\\ \? lists the keys/.test(rows[23]!);
    });
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo after-the-hint\r' });
    await waitForSessionText(server, id, /^after-the-hint$/m);
    await viewer.waitForServerScreen(server, id);
    assert.doesNotMatch(viewer.output.slice(viewer.output.lastIndexOf('after-the-hint')), /attached to/);
  });

  test('output that ends the hint reaches the outer scrollback whole: every row once', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BURST });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [id]);
    await viewer.waitForScreen('the hint', (s) => /tend: attached to/.test(s));
    // Hundreds of rows scroll past the hint's row in the first output it sees.
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'x' });
    await waitForSessionText(server, id, /^300$/m);
    await viewer.waitForServerScreen(server, id);
    const lines = allRows(viewer.terminal);
    const notOnce = [];
    for (let n = 1; n <= 300; n++) if (lines.filter((l) => l === String(n)).length !== 1) notOnce.push(n);
    assert.deepEqual(notOnce, [], 'rows not in the outer terminal exactly once');
    assert.ok(!lines.some((l) => /tend: attached to/.test(l)), 'the hint is in no row, scrollback included');
  });

  test('--read-only says so on entry and again when a key is typed; nothing typed reaches the session', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'watched', argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':watched', '-r']);
    await viewer.waitForScreen('the read-only hint', (s) => /tend: watching :watched read-only/.test(s));
    // Output ends the hint; the screen is repainted.
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'a' });
    await waitForSessionText(server, id, /\[61\]/);
    await viewer.waitForServerScreen(server, id);
    viewer.type('x');
    await viewer.waitForScreen('the read-only marker', (s) => /tend: read-only: what you type is not sent to :watched/.test(s));
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'b' });
    await waitForSessionText(server, id, /\[62\]/);
    await viewer.waitForServerScreen(server, id);
    assert.equal(await bytesRead(server, id), '6162');
  });

  test('prefix s lists the sessions; picking another switches this attach to it, and typing reaches that one', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const one = await newSession(server, { name: 'one', argv: HEX_ECHO });
    const two = await newSession(server, { name: 'two', argv: HEX_ECHO });
    await waitForSessionText(server, one, /ready/);
    await waitForSessionText(server, two, /ready/);
    await server.api('POST', `/v1/sessions/${two}/input`, { text: 'T' });
    await waitForSessionText(server, two, /\[54\]/);
    const viewer = await AttachedTerminal.start(scope, server, [':one']);
    viewer.type('a');
    await waitForSessionText(server, one, /\[61\]/);
    viewer.type('\x1cs');
    await viewer.waitForScreen('the session list', (s) => /^ +1 \* :one \(/m.test(s) && /^ +2 {3}:two \(/m.test(s));
    // Down (an arrow as the terminal sends it), then Enter.
    viewer.type('\x1b[B');
    viewer.type('\r');
    await viewer.waitForServerScreen(server, two);
    assert.match(viewer.screen, /\[54\]/);
    viewer.type('b');
    await waitForSessionText(server, two, /\[62\]/);
    assert.equal(await bytesRead(server, two), '5462');
    assert.equal(await bytesRead(server, one), '61');
    await viewer.waitForServerScreen(server, two);
    // Back with the index, then detach: the message names the session shown last.
    viewer.type('\x1cs');
    await viewer.waitForScreen('the session list again', (s) => /^ +2 \* :two \(/m.test(s));
    viewer.type('1');
    await viewer.waitForServerScreen(server, one);
    viewer.type('c');
    await waitForSessionText(server, one, /\[63\]/);
    assert.equal(await bytesRead(server, two), '5462');
    viewer.type('\x1cd');
    assert.equal((await viewer.waitForExit()).code, 0);
    assert.match(viewer.output, new RegExp(`\\[detached from :one \\(${one}\\)\\]`));
  });
  test('prefix s to a session with no title leaves no other session\'s title on the window', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const titled = await newSession(server, { name: 'titled', argv: ['sh', '-c', "printf '\\033]2;the-titled-one\\007titled-ready'; exec sleep 600"] });
    const plain = await newSession(server, { name: 'plain', argv: HEX_ECHO });
    await waitForSessionText(server, titled, /titled-ready/);
    await waitForSessionText(server, plain, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':titled']);
    await viewer.waitForServerScreen(server, titled);
    await waitFor(() => viewer.title === 'the-titled-one', { what: 'the titled session\'s title on the window' });
    viewer.type('\x1cs');
    await viewer.waitForScreen('the session list', (s) => /^ +2 {3}:plain \(/m.test(s));
    viewer.type('2');
    await viewer.waitForServerScreen(server, plain);
    assert.equal(viewer.title, '');
    viewer.type('\x1cd');
    assert.equal((await viewer.waitForExit()).code, 0);
  });
});
