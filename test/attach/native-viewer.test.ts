// `tend attach` through bin/tend: the native viewer (viewer/, C) is what runs
// for a plain attach; what it does not do itself goes to the TypeScript
// viewer, by exec, which answers exactly as it always has (from the start: a
// wrong command line, --help, --json, no terminal, an unknown session); and
// the panels of the prefix keys hand over mid-attach with the state the
// native viewer stood in (viewer/handoff.c, src/cli/attach/handoff.ts):
// every key typed arrives once and in order, no row reaches the outer
// scrollback twice, and the outer terminal is cooked again once the attach
// ends. These tests are about the native viewer: with TEND_TEST_VIEWER=node
// (the TypeScript viewer from the start) there is nothing of theirs to test.
import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { repoRoot, type TestServer } from '../server/harness.js';
import {
  ATTACH_TEST_TIMEOUT_MS,
  AttachedTerminal,
  BASH,
  HEX_ECHO,
  PROMPT,
  launcherEnv,
  newSession,
  serverFor,
  serverScreen,
  tendLauncher,
  testsTypeScriptViewer,
  waitForSessionText,
  type HeadlessTerminal,
  attachToBash,
} from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS, skip: testsTypeScriptViewer ? 'TEND_TEST_VIEWER=node: the TypeScript viewer runs from the start' : false };
const NATIVE_VIEWER = join(repoRoot, 'viewer', 'build', 'tend-attach');
const TEND_JS = join(repoRoot, 'bin', 'tend.js');
const HISTORY_ROWS = 40;
/** Prints row-1 … row-40 (more than a screen: the rest is history), then, raw, each read in hex as HEX_ECHO does. */
const ROWS_THEN_HEX_ECHO = [
  process.execPath,
  '-e',
  `for (let i = 1; i <= ${HISTORY_ROWS}; i++) console.log('row-' + i); process.stdin.setRawMode(true); process.stdout.write('ready\\n'); process.stdin.on('data', (b) => process.stdout.write('[' + b.toString('hex') + ']\\n'));`,
];
/** The outer PTY runs a shell that prints the terminal's settings before and after the attach, then the attach's exit status. */
const BETWEEN_STTY = (attach: string[]) => [
  '/bin/sh',
  '-c',
  'printf "before:%s\\n" "$(stty -g)"; "$@"; code=$?; printf "after:%s code:%s\\n" "$(stty -g)" "$code"; stty -a',
  'sh',
  ...attach,
];
const KEYS_PANEL = 'tend attach: the keys after the prefix';

/** The program a process runs now (it changes at an exec). */
function exeOf(pid: number): string {
  return readlinkSync(`/proc/${pid}/exe`);
}

function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number);
}

/** The one child of the outer shell: the attach. */
async function attachPidUnder(shellPid: number): Promise<number> {
  return waitFor(() => {
    const children = childrenOf(shellPid);
    return children.length === 1 ? children[0]! : null;
  }, { what: 'the attach under the outer shell' });
}

/**
 * The TypeScript viewer runs: as a child of the native viewer, which waits
 * to put the terminal's settings back once it ends (viewer/handoff.c).
 */
function typeScriptViewerUnder(attachPid: number): boolean {
  return exeOf(attachPid) === NATIVE_VIEWER && childrenOf(attachPid).some((pid) => exeOf(pid) === process.execPath);
}

/** What the session's program has read, in hex, in order (its [..] lines). */
async function bytesRead(server: TestServer, target: string): Promise<string> {
  const text = (await serverScreen(server, target)).text;
  return [...text.matchAll(/\[([0-9a-f]+)\]/g)].map((m) => m[1]).join('');
}

/** Every row of the outer terminal, its scrollback first. */
function allRows(terminal: HeadlessTerminal): string[] {
  const buffer = terminal.buffer.normal;
  const rows: string[] = [];
  for (let y = 0; y < buffer.length; y++) rows.push(buffer.getLine(y)?.translateToString(true).trimEnd() ?? '');
  return rows;
}

/**
 * Checks each row-N of the session's history is in the outer terminal once,
 * or with `mayMiss` at most once (never twice), the first row there: after a
 * switch the rows on the screen then were painted over, and while a panel
 * covers the screen the session's output is held back, so rows it scrolls
 * away meanwhile miss the outer scrollback (screen-overlays.ts says why).
 */
function assertEveryRowOnce(terminal: HeadlessTerminal, { mayMiss = false } = {}): void {
  const rows = allRows(terminal);
  for (let n = 1; n <= HISTORY_ROWS; n++) {
    const count = rows.filter((r) => r === `row-${n}`).length;
    if (mayMiss) assert.ok(count <= 1, `row-${n} is in the outer terminal ${count} times:\n${rows.join('\n')}`);
    else assert.equal(count, 1, `row-${n} is in the outer terminal ${count} times:\n${rows.join('\n')}`);
  }
  if (mayMiss) assert.ok(rows.includes('row-1'), `the history painted first is in the outer scrollback:\n${rows.join('\n')}`);
}

/** After the attach: the shell's `stty -g` is what it was before, a cooked terminal, and the attach's status. */
async function assertCookedAfter(viewer: AttachedTerminal): Promise<void> {
  await viewer.waitForOutput('the settings after the attach', /after:\S+ code:\d+[\s\S]*\becho\b/);
  const before = /before:(\S+)/.exec(viewer.output)![1];
  const after = /after:(\S+) code:(\d+)/.exec(viewer.output)!;
  assert.equal(after[1], before, 'stty -g after the attach is what it was before');
  assert.equal(after[2], '0', 'the attach exited 0');
  const all = viewer.output.slice(viewer.output.indexOf('after:'));
  assert.match(all, /(^|\s)icanon(\s|$)/m, `canonical input again:\n${all}`);
  assert.match(all, /(^|\s)echo(\s|$)/m, `echo again:\n${all}`);
  assert.match(all, /(^|\s)opost(\s|$)/m, `output processing again:\n${all}`);
  // The last messages were written to a cooked terminal too: each line starts at the left edge.
  // Read once the outer terminal has parsed all it was sent (the output above is the raw bytes).
  const atLeftEdge = (rows: string[]) => rows.some((r) => r.startsWith('[detached from ')) && rows.some((r) => r.startsWith('after:'));
  await waitFor(() => viewer.settled && atLeftEdge(allRows(viewer.terminal)), {
    what: 'the lines after the attach to start at the left edge',
    timeoutMs: 10_000,
    describe: () => allRows(viewer.terminal).slice(-12).join('\n'),
  });
}

/** `tend attach ARGS` in a PTY that ends without a paint: its exit status and what it printed. */
async function answerInPty(scope: TestScope, server: TestServer, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const viewer = await AttachedTerminal.start(scope, server, args, { waitForPaint: false, env });
  const exit = await viewer.waitForExit();
  await waitFor(() => viewer.settled, { what: 'the output to be parsed' });
  return { code: exit.code, output: viewer.output };
}

/** `tend attach ARGS` with pipes for stdin, stdout and stderr. */
function answerWithPipes(scope: TestScope, server: TestServer, argv: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    scope.trackPid(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('tend attach: the native viewer', () => {
  test('a plain attach runs the native viewer (not node) through bin/tend, and detaches as ever', T, async (t) => {
    const { server, id, viewer } = await attachToBash(useTestScope(t), 'plain');
    assert.equal(exeOf(viewer.pid), NATIVE_VIEWER);
    await viewer.waitForServerScreen(server, id);
    viewer.type('\x1cd');
    assert.equal((await viewer.waitForExit()).code, 0);
    assert.match(viewer.output, new RegExp(`\\[detached from :plain \\(${id}\\)\\]`));
  });

  test('what it does not do itself (--help, --json, a wrong command line, an unknown session, no terminal) is answered by the TypeScript viewer, exactly as before', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'asked', argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const cases = [['--help'], [], ['nope-no-such-session'], [':asked', '--json'], [':asked', '--bogus'], [':asked', '-k', 'x'], [':asked', ':asked']];
    for (const args of cases) {
      const native = await answerInPty(scope, server, args);
      const typescript = await answerInPty(scope, server, args, { TEND_VIEWER: 'node' });
      assert.equal(native.code, typescript.code, `exit status of tend attach ${args.join(' ')}`);
      assert.equal(native.output, typescript.output, `what tend attach ${args.join(' ')} says`);
      assert.notEqual(native.output, '', `tend attach ${args.join(' ')} says something`);
    }
    // No terminal at all: stdin, stdout and stderr are pipes.
    const env = launcherEnv(server.env);
    const native = await answerWithPipes(scope, server, [tendLauncher, 'attach', ':asked'], env);
    const typescript = await answerWithPipes(scope, server, [process.execPath, TEND_JS, 'attach', ':asked'], env);
    assert.deepEqual(native, typescript);
    assert.equal(native.code, 2);
    assert.match(native.stderr, /needs a terminal/);
  });

  test('prefix ? hands over to the TypeScript viewer: the panel shows, every key arrives once and in order, no row twice, a cooked terminal after', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'keys', argv: ROWS_THEN_HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':keys'], { wrap: BETWEEN_STTY });
    const attachPid = await attachPidUnder(viewer.pid);
    assert.equal(exeOf(attachPid), NATIVE_VIEWER);
    await viewer.waitForServerScreen(server, id);
    // Keys and the prefix in one read, then a key while the hand-over happens (it ends the panel, as any key does).
    viewer.type('ab\x1c?');
    viewer.type('x');
    await waitFor(() => viewer.output.includes(KEYS_PANEL), { what: 'the keys panel', describe: () => viewer.output.slice(-400) });
    await waitFor(() => typeScriptViewerUnder(attachPid), { what: 'the TypeScript viewer under the attach' });
    await viewer.waitForServerScreen(server, id);
    assert.doesNotMatch(viewer.screen, /any key returns/);
    viewer.type('cd');
    await waitFor(async () => (await bytesRead(server, id)) === '61626364', { what: 'ab then cd read by the program', describe: () => viewer.screen });
    await viewer.waitForServerScreen(server, id);
    assertEveryRowOnce(viewer.terminal, { mayMiss: true }); // the program's echo of ab may come while the panel is up
    viewer.type('\x1cd');
    await assertCookedAfter(viewer);
    assert.match(viewer.output, new RegExp(`\\[detached from :keys \\(${id}\\)\\]`));
    assert.equal(await bytesRead(server, id), '61626364', 'nothing else reached the program (the x ended the panel)');
    assertEveryRowOnce(viewer.terminal, { mayMiss: true }); // the program's echo of ab may come while the panel is up
  });

  test('prefix s hands over: the list shows, picking another session switches to it, typing reaches each once, a cooked terminal after', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const one = await newSession(server, { name: 'one', argv: ROWS_THEN_HEX_ECHO });
    const two = await newSession(server, { name: 'two', argv: HEX_ECHO });
    await waitForSessionText(server, one, /ready/);
    await waitForSessionText(server, two, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':one'], { wrap: BETWEEN_STTY });
    const attachPid = await attachPidUnder(viewer.pid);
    assert.equal(exeOf(attachPid), NATIVE_VIEWER);
    await viewer.waitForServerScreen(server, one);
    viewer.type('a');
    viewer.type('\x1cs');
    await viewer.waitForScreen('the session list', (s) => /^ +1 \* :one \(/m.test(s) && /^ +2 {3}:two \(/m.test(s));
    assert.ok(typeScriptViewerUnder(attachPid), 'the TypeScript viewer runs under the attach');
    assert.equal(await bytesRead(server, one), '61');
    viewer.type('\x1b[B');
    viewer.type('\r');
    await viewer.waitForServerScreen(server, two);
    viewer.type('b');
    await waitForSessionText(server, two, /\[62\]/);
    viewer.type('\x1cd');
    await assertCookedAfter(viewer);
    assert.match(viewer.output, new RegExp(`\\[detached from :two \\(${two}\\)\\]`));
    assert.equal(await bytesRead(server, one), '61');
    assert.equal(await bytesRead(server, two), '62');
    assertEveryRowOnce(viewer.terminal, { mayMiss: true });
  });

  test('a read-only attach with its own prefix hands over as it is: the panel names it, typing reaches nothing, its prefix detaches', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'watched', argv: ROWS_THEN_HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const viewer = await AttachedTerminal.start(scope, server, [':watched', '--read-only', '--detach-key', 'C-a'], { wrap: BETWEEN_STTY });
    const attachPid = await attachPidUnder(viewer.pid);
    assert.equal(exeOf(attachPid), NATIVE_VIEWER);
    await viewer.waitForServerScreen(server, id);
    viewer.type('\x01?');
    await viewer.waitForScreen('the keys panel, read-only, with Ctrl-A', (s) => s.includes('the keys after the prefix, Ctrl-A') && s.includes('read-only'));
    assert.ok(typeScriptViewerUnder(attachPid), 'the TypeScript viewer runs under the attach');
    viewer.type('x');
    await viewer.waitForServerScreen(server, id);
    viewer.type('z');
    await viewer.waitForScreen('the read-only marker', (s) => s.includes('read-only: what you type is not sent'));
    viewer.type('\x01d');
    await assertCookedAfter(viewer);
    assert.equal(await bytesRead(server, id), '', 'the program read nothing');
    assertEveryRowOnce(viewer.terminal);
  });

  test('--handoff refuses a file descriptor it cannot read, and a file that is not a hand-off', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const env = launcherEnv(server.env);
    const closed = await answerWithPipes(scope, server, [process.execPath, TEND_JS, 'attach', 'abc', '--handoff', '250'], env);
    assert.equal(closed.code, 2);
    assert.match(closed.stderr, /--handoff 250: cannot read it \(EBADF\)/);
    const file = join(scope.tempDir('tend-handoff-'), 'state');
    for (const [text, says] of [['not json', /not JSON/], ['{"v":1}', /"session" must be an object/], ['{"v":7}', /version 7/]] as const) {
      writeFileSync(file, text);
      const fd = openSync(file, 'r');
      const answer = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [TEND_JS, 'attach', 'abc', '--handoff', '3'], { env, stdio: ['pipe', 'pipe', 'pipe', fd] });
        scope.trackPid(child.pid!);
        let stderr = '';
        child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      closeSync(fd);
      assert.equal(answer.code, 2, text);
      assert.match(answer.stderr, says);
    }
  });
});
