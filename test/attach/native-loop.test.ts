// The native viewer's own ways out of an attach (viewer/attach.c, main.c),
// each said in the TypeScript viewer's words: a program killed by a signal,
// the attach itself stopped by SIGTERM (the terminal put back, status 1), a
// session that has already exited and a session shown inside itself (both
// handed to the TypeScript viewer, which says why). Run through bin/tend as
// a user runs it; with TEND_TEST_VIEWER=node the same words come from the
// TypeScript viewer, which is the point.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { repoRoot } from '../server/harness.js';
import {
  ATTACH_TEST_TIMEOUT_MS,
  AttachedTerminal,
  HEX_ECHO,
  newSession,
  serverFor,
  testsTypeScriptViewer,
  waitForSessionText,
} from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };
const NATIVE_VIEWER = join(repoRoot, 'viewer', 'build', 'tend-attach');
/** The outer PTY runs a shell that runs the attach, then prints the terminal's settings and the attach's status. */
const THEN_STTY = (attach: string[]) => [
  '/bin/sh',
  '-c',
  '"$@"; code=$?; printf "after:%s code:%s\\n" "$(stty -g)" "$code"; stty -a',
  'sh',
  ...attach,
];

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number);
}

/** The viewer that runs is the native one (unless the tests asked for the TypeScript one). */
function assertViewer(pid: number): void {
  if (!testsTypeScriptViewer) assert.equal(readlinkSync(`/proc/${pid}/exe`), NATIVE_VIEWER, 'the native viewer runs');
}

describe('tend attach: the native viewer\'s ways out', () => {
  test('a program killed by a signal ends the attach with describeExit\'s words, status 0', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'doomed', argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':doomed']);
    assertViewer(viewer.pid);
    await viewer.waitForServerScreen(server, id);
    const res = await server.api('POST', `/v1/sessions/${id}/signal`, { signal: 'KILL' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitFor(() => viewer.exit, { what: 'the attach to end' });
    assert.match(viewer.output, new RegExp(`\\[session :doomed \\(${id}\\) was killed by signal 9 \\(SIGKILL\\)\\]`));
    assert.deepEqual(viewer.exit, { code: 0, signal: 0 });
  });

  test('SIGTERM ends the attach with status 1, the session\'s alternate screen left and the terminal cooked', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    // A program on the alternate screen: the attach must leave it (?1049l) on its way out.
    const id = await newSession(server, { name: 'alt', argv: ['sh', '-c', "printf '\\033[?1049hon the alternate screen\\n'; exec cat"] });
    await waitForSessionText(server, id, /alternate/);
    const viewer = await AttachedTerminal.start(scope, server, [':alt'], { wrap: THEN_STTY });
    const attachPid = await waitFor(() => {
      const children = childrenOf(viewer.pid);
      return children.length === 1 ? children[0]! : null;
    }, { what: 'the attach under the outer shell' });
    assertViewer(attachPid);
    await viewer.waitForScreen('the session', (s) => s.includes('on the alternate screen'));
    process.kill(attachPid, 'SIGTERM');
    await viewer.waitForOutput('the settings after the attach', /after:\S+ code:\d+[\s\S]*\becho\b/);
    const after = viewer.output.slice(viewer.output.lastIndexOf('after:'));
    assert.match(after, /^after:\S+ code:1/, 'the attach ended with status 1, as the TypeScript `signal` outcome');
    for (const flag of ['icanon', 'echo', 'opost', 'icrnl', 'isig']) assert.match(after, new RegExp(`(^|\\s)${flag}(\\s|$)`, 'm'), `${flag} is on again:\n${after}`);
    assert.equal(viewer.terminal.buffer.active.type, 'normal', 'the outer terminal is back on its normal screen');
    assert.doesNotMatch(viewer.output, /\[detached|\[session/, 'a signal ends the attach without a message');
    // The session is left running.
    const session = await server.api<{ status: string }>('GET', `/v1/sessions/${id}`);
    assert.equal(session.body.status, 'running');
  });

  test('a session that has exited is refused in the TypeScript viewer\'s words, status 1', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'gone', argv: ['sh', '-c', 'exit 3'] });
    await waitFor(async () => (await server.api<{ status: string }>('GET', `/v1/sessions/${id}`)).body.status === 'exited', { what: 'the session to exit' });
    const viewer = await AttachedTerminal.start(scope, server, [':gone'], { waitForPaint: false });
    await waitFor(() => viewer.exit, { what: 'the attach to end' });
    assert.match(viewer.output, new RegExp(`tend: session :gone \\(${id}\\) exited with code 3; \`tend screen :gone\` shows its last screen`));
    assert.deepEqual(viewer.exit, { code: 1, signal: 0 });
  });

  test('a session shown inside itself is refused in the TypeScript viewer\'s words, status 1', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'self', argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':self'], { waitForPaint: false, env: { TEND_SESSION: id } });
    await waitFor(() => viewer.exit, { what: 'the attach to end' });
    assert.match(viewer.output, new RegExp(`tend: refusing to attach session :self \\(${id}\\) to itself`));
    assert.deepEqual(viewer.exit, { code: 1, signal: 0 });
  });
});
