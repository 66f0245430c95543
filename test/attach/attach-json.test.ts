// `tend attach --json`: what happens to an attach as JSON lines, end to end.
// Without a terminal it is a watcher: events on stdout, nothing shown, the
// session neither typed into nor resized. With a terminal (a real PTY as the
// outer terminal) the session is shown as ever and the events go to stderr,
// which must then be somewhere else than the terminal.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive, killQuietly } from '../support/processes.js';
import type { TestServer } from '../server/harness.js';
import { ATTACH_TEST_TIMEOUT_MS, AttachedTerminal, BASH, HEX_ECHO, PROMPT, launcherEnv, newSession, serverFor, serverScreen, tendLauncher, waitForSessionText } from './attach-harness.js';

const T = { timeout: ATTACH_TEST_TIMEOUT_MS };

/** A program that says it waits, then exits 3 once a line is typed. */
const EXITS_3 = ['sh', '-c', 'echo waiting; read line; exit 3'];

type Event = { event: string; [field: string]: unknown };

function parseLines(text: string): Event[] {
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Event);
}

/** `tend attach ARGS --json` without a terminal: stdin and stdout are pipes. */
class Watcher {
  stdout = '';
  stderr = '';
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly pid: number;

  constructor(scope: TestScope, server: TestServer, args: string[]) {
    // Through bin/tend, as a script runs it: --json is the TypeScript viewer's, handed over at once.
    const child = spawn(tendLauncher, ['attach', ...args, '--json'], { env: launcherEnv(server.env), stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = scope.trackPid(child.pid!);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (this.stdout += c));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (this.stderr += c));
    child.on('close', (code, signal) => (this.exit = { code, signal }));
    // Ended before the server is: a live watcher would start the server again once the test's cleanup kills it.
    scope.defer(async () => {
      killQuietly(this.pid);
      await waitFor(() => !isProcessAlive(this.pid), { what: 'the watcher to end' });
    });
  }

  /** Every line of stdout, parsed: a line that is not JSON fails the test. */
  get events(): Event[] {
    return parseLines(this.stdout);
  }

  async waitForEvent(name: string, count = 1): Promise<Event> {
    return waitFor(() => this.events.filter((e) => e.event === name)[count - 1], {
      what: `event ${name} #${count}`,
      timeoutMs: 30_000,
      describe: () => `stdout: ${this.stdout}\nstderr: ${this.stderr}`,
    });
  }

  async waitForExit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return waitFor(() => this.exit, { what: 'the watcher to exit', timeoutMs: 30_000, describe: () => `stdout: ${this.stdout}\nstderr: ${this.stderr}` });
  }
}

/** `tend attach ARGS --json` in a terminal, its stderr (the events) in a file. */
async function attachWithEvents(
  scope: TestScope,
  server: TestServer,
  args: string[],
  options: { fd?: 1 | 2; waitForPaint?: boolean } = {},
): Promise<{ viewer: AttachedTerminal; events: () => Event[]; waitForEvent: (name: string) => Promise<Event> }> {
  const file = join(scope.tempDir('tend-events-'), 'events');
  const viewer = await AttachedTerminal.start(scope, server, [...args, '--json'], { redirect: { fd: options.fd ?? 2, file }, waitForPaint: options.waitForPaint ?? true });
  const read = () => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const events = () => parseLines(read());
  const waitForEvent = (name: string) =>
    waitFor(() => events().find((e) => e.event === name), { what: `event ${name}`, timeoutMs: 30_000, describe: () => `events: ${read()}` });
  return { viewer, events, waitForEvent };
}

function names(events: Event[]): string[] {
  return events.map((e) => e.event);
}

describe('tend attach --json without a terminal: a watcher', () => {
  test('attached names the session at its own size, read-only; the program exiting 3 is exited {code: 3}; exit status 0', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'job', argv: EXITS_3, cols: 100, rows: 30 });
    await waitForSessionText(server, id, /waiting/);
    const watcher = new Watcher(scope, server, [':job']);
    const attached = await watcher.waitForEvent('attached');
    assert.deepEqual({ ...attached, at: undefined }, { event: 'attached', id, name: 'job', cols: 100, rows: 30, readOnly: true, at: undefined });
    assert.equal(typeof attached.at, 'number');
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'go\r' });
    const exited = await watcher.waitForEvent('exited');
    assert.deepEqual({ ...exited, at: undefined }, { event: 'exited', id, name: 'job', code: 3, signal: null, at: undefined });
    assert.deepEqual(await watcher.waitForExit(), { code: 0, signal: null });
    assert.deepEqual(names(watcher.events), ['attached', 'exited']);
    assert.equal(watcher.stderr, '');
  });

  test('a watcher run from a terminal, its output to a file, leaves the terminal alone: keys are not sent, Ctrl-C stops it', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'echo', argv: HEX_ECHO });
    await waitForSessionText(server, id, /ready/);
    const { viewer, events, waitForEvent } = await attachWithEvents(scope, server, [':echo'], { fd: 1, waitForPaint: false });
    await waitForEvent('attached');
    assert.equal(events()[0]!.readOnly, true);
    viewer.type('abc');
    // What the session prints after the keys were typed: had the watcher read them, they would be here first.
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'x' });
    await waitForSessionText(server, id, /\[78\]/);
    assert.equal((await serverScreen(server, id)).text.replace(/\s+/g, ''), 'ready[78]');
    // The terminal is not raw: Ctrl-C is SIGINT, and the watcher ends on it as on SIGTERM.
    viewer.type('\x03');
    assert.equal((await viewer.waitForExit()).code, 1);
    assert.deepEqual(names(events()), ['attached', 'detached']);
    assert.deepEqual({ ...events()[1], at: undefined }, { event: 'detached', id, name: 'echo', reason: 'signal', signal: 'SIGINT', at: undefined });
    assert.equal(viewer.output.replace(/\^C|\r|\n|abc/g, ''), '', 'nothing drawn on the terminal');
  });

  test('a session that has already exited gives exited at once, with its code', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: ['sh', '-c', 'exit 3'] });
    await waitFor(async () => (await server.api<{ status: string }>('GET', `/v1/sessions/${id}`)).body.status === 'exited', { what: 'the session to exit' });
    const watcher = new Watcher(scope, server, [id]);
    assert.deepEqual(await watcher.waitForExit(), { code: 0, signal: null });
    assert.deepEqual(watcher.events.map((e) => ({ ...e, at: undefined })), [{ event: 'exited', id, name: null, code: 3, signal: null, at: undefined }]);
  });

  test('an unknown session: an error event with the code and candidates any verb\'s --json error has, and that error on stderr', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    await newSession(server, { name: 'build', argv: BASH });
    const screen = await server.cli(['screen', ':biuld', '--json']);
    const expected = (JSON.parse(screen.stderr) as { error: Record<string, unknown> }).error;
    assert.equal(expected.code, 'no_session');
    const watcher = new Watcher(scope, server, [':biuld']);
    assert.equal((await watcher.waitForExit()).code, screen.code);
    assert.deepEqual(watcher.events.map((e) => ({ ...e, at: undefined })), [{ event: 'error', ...expected, at: undefined }]);
    assert.deepEqual(JSON.parse(watcher.stderr), { error: expected });
  });

  test('SIGTERM ends a watcher with detached {reason: signal}', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const watcher = new Watcher(scope, server, [id]);
    await watcher.waitForEvent('attached');
    process.kill(watcher.pid, 'SIGTERM');
    assert.equal((await watcher.waitForExit()).code, 1);
    assert.deepEqual(names(watcher.events), ['attached', 'detached']);
    assert.deepEqual({ ...watcher.events[1], at: undefined }, { event: 'detached', id, name: null, reason: 'signal', signal: 'SIGTERM', at: undefined });
  });

  test('a server SIGKILLed under a watcher: reconnecting, then reconnected once a server is back, and the exit still reaches it', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'job', argv: EXITS_3 });
    await waitForSessionText(server, id, /waiting/);
    const watcher = new Watcher(scope, server, [':job']);
    await watcher.waitForEvent('attached');
    const pid = server.serverPid();
    assert.ok(pid);
    process.kill(pid, 'SIGKILL');
    const reconnecting = await watcher.waitForEvent('reconnecting');
    assert.equal(reconnecting.id, id);
    assert.equal(typeof reconnecting.why, 'string');
    // The watcher starts a server itself, as any verb does, when none answers.
    const reconnected = await watcher.waitForEvent('reconnected');
    assert.deepEqual({ ...reconnected, at: undefined }, { event: 'reconnected', id, name: 'job', cols: 80, rows: 24, readOnly: true, at: undefined });
    await server.api('POST', `/v1/sessions/${id}/input`, { text: 'go\r' });
    await watcher.waitForEvent('exited');
    assert.deepEqual(names(watcher.events), ['attached', 'reconnecting', 'reconnected', 'exited']);
    assert.equal(watcher.events[3]!.code, 3);
    assert.equal((await watcher.waitForExit()).code, 0);
  });
});

describe('tend attach --json with a terminal: the session shown, the events on stderr', () => {
  test('attached, then the detach key: detached {reason: detach-key}; the terminal shows what it always does', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'shell', argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const { viewer, events, waitForEvent } = await attachWithEvents(scope, server, [':shell']);
    const attached = await waitForEvent('attached');
    assert.deepEqual({ ...attached, at: undefined }, { event: 'attached', id, name: 'shell', cols: 80, rows: 24, readOnly: false, at: undefined });
    viewer.type('echo typed-here\r');
    await waitForSessionText(server, id, /^typed-here$/m);
    await viewer.waitForServerScreen(server, id);
    assert.doesNotMatch(viewer.output, /"event"/, 'no event among the terminal\'s bytes');
    viewer.type('\x1cd');
    assert.equal((await viewer.waitForExit()).code, 0);
    assert.match(viewer.output, new RegExp(`\\[detached from :shell \\(${id}\\)\\]`));
    assert.deepEqual(names(events()), ['attached', 'detached']);
    assert.deepEqual({ ...events()[1], at: undefined }, { event: 'detached', id, name: 'shell', reason: 'detach-key', at: undefined });
  });

  test('a server restart: reconnecting, reconnected, and typing goes on', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { name: 'shell', argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const { viewer, events, waitForEvent } = await attachWithEvents(scope, server, [':shell']);
    await waitForEvent('attached');
    await viewer.waitForServerScreen(server, id);
    assert.equal((await server.cli(['server', 'restart'])).code, 0);
    await waitForEvent('reconnected');
    viewer.type('echo after-restart\r');
    await waitForSessionText(server, id, /^after-restart$/m);
    await viewer.waitForServerScreen(server, id);
    viewer.type('exit 5\r');
    assert.equal((await viewer.waitForExit()).code, 0);
    assert.deepEqual(names(events()), ['attached', 'reconnecting', 'reconnected', 'exited']);
    assert.equal(events()[1]!.id, id);
    assert.deepEqual({ ...events()[3], at: undefined }, { event: 'exited', id, name: 'shell', code: 5, signal: null, at: undefined });
  });

  test('prefix s: switched names the session left and the one shown; the end names the one shown last', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const one = await newSession(server, { name: 'one', argv: HEX_ECHO });
    const two = await newSession(server, { name: 'two', argv: EXITS_3 });
    await waitForSessionText(server, one, /ready/);
    await waitForSessionText(server, two, /waiting/);
    const { viewer, events, waitForEvent } = await attachWithEvents(scope, server, [':one']);
    await waitForEvent('attached');
    viewer.type('\x1cs');
    await viewer.waitForScreen('the session list', (s) => /^ +2 {3}:two \(/m.test(s));
    viewer.type('2');
    const switched = await waitForEvent('switched');
    assert.deepEqual({ ...switched, at: undefined }, { event: 'switched', from: { id: one, name: 'one' }, id: two, name: 'two', cols: 80, rows: 24, readOnly: false, at: undefined });
    await viewer.waitForServerScreen(server, two);
    viewer.type('go\r');
    assert.equal((await viewer.waitForExit()).code, 0);
    assert.deepEqual(names(events()), ['attached', 'switched', 'exited']);
    assert.deepEqual({ ...events()[2], at: undefined }, { event: 'exited', id: two, name: 'two', code: 3, signal: null, at: undefined });
  });

  test('an unknown session: the error event alone on stderr, with the code of every verb\'s --json error', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const screen = await server.cli(['screen', 'nosuch', '--json']);
    const expected = (JSON.parse(screen.stderr) as { error: Record<string, unknown> }).error;
    const { viewer, events } = await attachWithEvents(scope, server, ['nosuch'], { waitForPaint: false });
    assert.equal((await viewer.waitForExit()).code, screen.code);
    assert.deepEqual(events().map((e) => ({ ...e, at: undefined })), [{ event: 'error', ...expected, at: undefined }]);
  });

  test('--json with stderr on the terminal too is refused: events there would garble the screen', T, async (t) => {
    const scope = useTestScope(t);
    const server = await serverFor(scope);
    const id = await newSession(server, { argv: BASH });
    await waitForSessionText(server, id, PROMPT);
    const viewer = await AttachedTerminal.start(scope, server, [id, '--json'], { waitForPaint: false });
    assert.equal((await viewer.waitForExit()).code, 2);
    const error = (JSON.parse(viewer.output.trim()) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'usage');
    assert.match(error.message, /2>FILE/);
  });
});
