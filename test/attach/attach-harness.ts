// What the `tend attach` end-to-end tests share. `tend attach` runs in a real
// PTY of the test's own — a holder started by the test, not by the server —
// and the PTY's output feeds a headless xterm that plays the user's terminal
// (the "outer terminal"); keystrokes are written into that PTY. A raw viewer
// speaks the wire protocol over its own WebSocket, for the cases a
// well-behaved viewer never produces (no acks, bad acks, chosen resume points).
//
// `tend attach` is started as a user starts it: bin/tend, the launcher on
// PATH, which runs the native viewer (viewer/build/tend-attach) when it is
// built. TEND_TEST_VIEWER=node in the tests' environment runs them against
// the TypeScript viewer instead (the launcher is told TEND_VIEWER=node).
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import xtermHeadless from '@xterm/headless';
import WebSocket from 'ws';
import { HolderConnection, spawnHolder } from '../../src/holder-client/index.js';
import {
  VIEWER_PROTOCOL_VERSION,
  decodeFrameFromServer,
  encodeFrameToServer,
  type FrameFromServer,
  type FrameFromViewer,
  type ResumePoint,
} from '../../src/protocol/viewer-frames.js';
import { repoRoot, startTestServer, type TestServer } from '../server/harness.js';
import type { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { isProcessAlive, killQuietly } from '../support/processes.js';

const { Terminal } = xtermHeadless;
export type HeadlessTerminal = InstanceType<typeof Terminal>;

/** Every paint (a screen or a view) starts by resetting the pen and the G0–G3 charsets: the mark of the first one. */
export const FIRST_PAINT = /\x1b\(B\x1b\)B\x1b\*B\x1b\+B/;

/** Generous: the suite must pass on a loaded 2-core machine. */
export const ATTACH_TEST_TIMEOUT_MS = 120_000;

/** bin/tend: the `tend` on a user's PATH. */
export const tendLauncher = join(repoRoot, 'bin', 'tend');
/** The attach tests run against the TypeScript viewer (TEND_TEST_VIEWER=node), not the native one. */
export const testsTypeScriptViewer = process.env.TEND_TEST_VIEWER === 'node';

/**
 * The environment bin/tend is run with: this node first on PATH (the
 * launcher and the native viewer's hand-offs run `node`), and TEND_VIEWER as
 * the test run asks.
 */
export function launcherEnv(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH ?? '/usr/bin:/bin'}`;
  delete env.TEND_VIEWER;
  if (testsTypeScriptViewer) env.TEND_VIEWER = 'node';
  return env;
}

/** The same as the start of a shell command line (in a tmux pane, a session's shell): `${launcherCommand} attach :x`. */
export const launcherCommand = `PATH='${dirname(process.execPath)}':"$PATH" TEND_VIEWER=${testsTypeScriptViewer ? 'node' : ''} '${tendLauncher}'`;

/** A started test server, disposed with the scope. */
export async function serverFor(scope: TestScope, env: Record<string, string> = {}): Promise<TestServer> {
  const server = startTestServer(env);
  scope.defer(() => server.dispose());
  const started = await server.cli(['server', 'start']);
  if (started.code !== 0) throw new Error(`tend server start failed: ${started.stderr}`);
  return server;
}

/** A session running argv, sized cols x rows; returns its id. */
export async function newSession(server: TestServer, options: { name?: string; argv: string[]; cols?: number; rows?: number }): Promise<string> {
  const res = await server.api<{ id: string }>('POST', '/v1/sessions', {
    ...(options.name ? { name: options.name } : {}),
    argv: options.argv,
    cwd: server.home,
    cols: options.cols ?? 80,
    rows: options.rows ?? 24,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: server.home, TERM: 'xterm-256color', LANG: 'C.UTF-8', PS1: '$ ' },
  });
  if (res.status !== 201) throw new Error(`could not create a session: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export const BASH = ['bash', '--norc', '--noprofile', '-i'];
/** The shell's prompt at the end of the screen (`tend screen` trims the blank after it). */
export const PROMPT = /\$\s*$/;
/** A program that says `ready` once its terminal is raw, then shows, in hex, each read it got: `[e3...]` per read. */
export const HEX_ECHO = [
  process.execPath,
  '-e',
  "process.stdin.setRawMode(true); process.stdout.write('ready\\n'); process.stdin.on('data', (b) => process.stdout.write('[' + b.toString('hex') + ']\\n'));",
];

export interface ServerScreen {
  text: string;
  cols: number;
  rows: number;
  cursor: { x: number; y: number };
  offset: number;
}

export async function serverScreen(server: TestServer, target: string): Promise<ServerScreen> {
  const res = await server.api<ServerScreen>('GET', `/v1/sessions/${encodeURIComponent(target)}/screen`);
  if (res.status !== 200) throw new Error(`screen of ${target}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The visible rows of a headless terminal as `tend screen` prints them: trailing blanks and rows trimmed. */
export function visibleText(terminal: HeadlessTerminal): string {
  const buffer = terminal.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y < terminal.rows; y++) rows.push(buffer.getLine(buffer.baseY + y)?.translateToString(true).replace(/\s+$/, '') ?? '');
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop();
  return rows.join('\n');
}

/** Every row the outer terminal holds, scrollback and screen, oldest first. */
export function allRows(terminal: HeadlessTerminal): string[] {
  const buffer = terminal.buffer.active;
  return Array.from({ length: buffer.length }, (_, y) => buffer.getLine(y)?.translateToString(true) ?? '');
}

function normalized(text: string): string {
  return text.split('\n').map((l) => l.replace(/\s+$/, '')).join('\n').replace(/\n+$/, '');
}

/**
 * `tend attach ARGS` in a PTY of its own. Its output is the outer terminal;
 * `type()` is the user at the keyboard.
 */
export class AttachedTerminal {
  readonly terminal: HeadlessTerminal;
  /** Everything the attach wrote to its terminal, as text (for "[detached ..." and the status line). */
  output = '';
  exit: { code: number | null; signal: number | null } | null = null;
  /** The outer terminal's window title, as the attach last set it. */
  title = '';
  private parsedBytes = 0;
  private receivedBytes = 0;

  private constructor(
    private readonly conn: HolderConnection,
    /** The `tend attach` process itself. */
    readonly pid: number,
    cols: number,
    rows: number,
  ) {
    this.terminal = new Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
    this.terminal.onTitleChange((title) => (this.title = title));
    const feed = (bytes: Uint8Array) => {
      this.receivedBytes += bytes.length;
      this.output += Buffer.from(bytes).toString('utf8');
      const n = bytes.length;
      this.terminal.write(bytes, () => (this.parsedBytes += n));
    };
    conn.onReplay((f) => feed(f.bytes));
    conn.onOutput((f) => feed(f.bytes));
    conn.onExit((e) => (this.exit = { code: e.code, signal: e.signal }));
  }

  static async start(
    scope: TestScope,
    server: TestServer,
    args: string[],
    options: {
      cols?: number;
      rows?: number;
      env?: Record<string, string>;
      waitForPaint?: boolean;
      redirect?: { fd: 1 | 2; file: string };
      /** What the PTY runs, given the attach's argv (e.g. a shell that runs it between two `stty -g`); `pid` is then that. */
      wrap?: (attach: string[]) => string[];
    } = {},
  ): Promise<AttachedTerminal> {
    const cols = options.cols ?? 80;
    const rows = options.rows ?? 24;
    const dir = scope.tempDir('tend-at-');
    const socketPath = join(dir, 'pty.sock');
    const env = launcherEnv(server.env);
    Object.assign(env, { TERM: 'xterm-256color', LANG: 'C.UTF-8' }, options.env ?? {});
    delete env.TEND_DETACH_KEY;
    if (options.env?.TEND_DETACH_KEY) env.TEND_DETACH_KEY = options.env.TEND_DETACH_KEY;
    const attach = [tendLauncher, 'attach', ...args];
    // stdout or stderr elsewhere than the terminal (as `2>FILE` does), by a shell that then becomes tend attach.
    const redirect = options.redirect;
    const redirected = redirect === undefined ? attach : ['/bin/sh', '-c', `f=$1; shift; exec "$@" ${redirect.fd}>"$f"`, 'sh', redirect.file, ...attach];
    const argv = options.wrap ? options.wrap(redirected) : redirected;
    const started = await spawnHolder({ socketPath, cols, rows, cwd: dir, env, argv, exitGraceSeconds: 30 });
    scope.trackPid(started.holderPid);
    scope.trackPid(started.childPid);
    // Ended before the server is (cleanups run in reverse): a live attach
    // would start the server again as soon as the test's cleanup kills it.
    scope.defer(async () => {
      killQuietly(started.childPid);
      killQuietly(started.holderPid);
      await waitFor(() => !isProcessAlive(started.childPid), { what: 'tend attach to end', timeoutMs: 10_000 });
    });
    const conn = await HolderConnection.connect(socketPath);
    scope.own(conn);
    if ((await conn.acquire()) !== 'acquired') throw new Error('the test could not take its own PTY');
    const attached = new AttachedTerminal(conn, started.childPid, cols, rows);
    scope.own({ dispose: () => attached.terminal.dispose() });
    await conn.dumpSince(0);
    // The first paint comes after raw mode is on: from here keystrokes are
    // the session's (before it, the tty would still turn Ctrl-\ into SIGQUIT).
    if (options.waitForPaint ?? true) await attached.waitForOutput('the first paint of tend attach', FIRST_PAINT);
    return attached;
  }

  /** Keystrokes (or a paste) into the attach's terminal. */
  type(data: string | Uint8Array): void {
    this.conn.input(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  resize(cols: number, rows: number): void {
    this.conn.resize(cols, rows);
    this.terminal.resize(cols, rows);
  }

  get screen(): string {
    return visibleText(this.terminal);
  }

  /** Everything received has been parsed by the outer terminal. */
  get settled(): boolean {
    return this.parsedBytes === this.receivedBytes;
  }

  async waitForScreen(what: string, check: (screen: string) => boolean, timeoutMs = 30_000): Promise<void> {
    await waitFor(() => this.settled && check(this.screen), { what, timeoutMs, describe: () => `outer screen:\n${this.screen}` });
  }

  async waitForOutput(what: string, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    await waitFor(() => pattern.test(this.output), { what, timeoutMs, describe: () => `output tail: ${JSON.stringify(this.output.slice(-400))}` });
  }

  async waitForExit(timeoutMs = 30_000): Promise<{ code: number | null; signal: number | null }> {
    return waitFor(() => this.exit, { what: 'tend attach to exit', timeoutMs, describe: () => `output tail: ${JSON.stringify(this.output.slice(-400))}` });
  }

  /** Waits until this outer terminal shows exactly the session's screen on the server. */
  async waitForServerScreen(server: TestServer, target: string, timeoutMs = 30_000): Promise<ServerScreen> {
    let last: ServerScreen | null = null;
    await waitFor(
      async () => {
        if (!this.settled) return false;
        last = await serverScreen(server, target);
        return this.settled && normalized(last.text) === normalized(this.screen) && sameCursor(this.terminal, last);
      },
      {
        what: `the outer terminal to show the server's screen of ${target}`,
        timeoutMs,
        describe: () => `outer:\n${this.screen}\nserver:\n${last ? `${last.text}\n(cursor ${JSON.stringify(last.cursor)})` : '(none)'}\nouter cursor ${this.terminal.buffer.active.cursorX},${this.terminal.buffer.active.cursorY}`,
      },
    );
    return last!;
  }
}

function sameCursor(terminal: HeadlessTerminal, screen: ServerScreen): boolean {
  const b = terminal.buffer.active;
  return b.cursorX === screen.cursor.x && b.cursorY === screen.cursor.y;
}

/**
 * A server, a bash session named `name` at its prompt, and a viewer
 * attached to it (`:name`), not yet waited on: callers check what they
 * need to first.
 */
export async function attachToBash(scope: TestScope, name: string): Promise<{ server: TestServer; id: string; viewer: AttachedTerminal }> {
  const server = await serverFor(scope);
  const id = await newSession(server, { name, argv: BASH });
  await waitForSessionText(server, id, PROMPT);
  const viewer = await AttachedTerminal.start(scope, server, [`:${name}`]);
  return { server, id, viewer };
}

/** Text on the server's screen of a session. */
export async function waitForSessionText(server: TestServer, target: string, pattern: RegExp, timeoutMs = 30_000): Promise<ServerScreen> {
  let last = '';
  return waitFor(
    async () => {
      const s = await serverScreen(server, target);
      last = s.text;
      return pattern.test(s.text) ? s : null;
    },
    { what: `${pattern} on the server's screen of ${target}`, timeoutMs, describe: () => `server screen:\n${last}` },
  );
}

/**
 * A viewer speaking the protocol by hand over its own socket: it records every
 * frame, and acks only when told to (or, with autoAck, every DATA and SNAPSHOT
 * as it arrives).
 */
export class RawViewer {
  readonly frames: FrameFromServer[] = [];
  closed: { code: number; reason: string } | null = null;
  boot: string | null = null;
  /** The seq this viewer's stream has reached (last SNAPSHOT or DATA). */
  seq: number | null = null;
  /** Stream bytes received, in order, from the start point. */
  streamBytes = 0;
  autoAck = false;
  private readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: Buffer) => {
      const frame = decodeFrameFromServer(data);
      this.frames.push(frame);
      if (frame.type === 'welcome') this.boot = frame.serverBoot;
      if (frame.type === 'snapshot') this.seq = frame.seq;
      if (frame.type === 'data') {
        this.seq = frame.seq;
        this.streamBytes += frame.data.length;
      }
      if (this.autoAck && (frame.type === 'data' || frame.type === 'snapshot') && frame.channel !== 0) {
        this.send({ type: 'ack', channel: frame.channel, seq: frame.seq });
      }
    });
    ws.on('close', (code: number, reason: Buffer) => (this.closed = { code, reason: reason.toString('utf8') }));
    ws.on('error', () => undefined);
  }

  static async connect(scope: TestScope, server: TestServer, options: { readOnly?: boolean } = {}): Promise<RawViewer> {
    const ws = new WebSocket(`ws+unix://${server.client.paths.serverSocket}:/v1/viewer`, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const viewer = new RawViewer(ws);
    scope.own({ dispose: () => ws.terminate() });
    viewer.send({ type: 'hello', protocolVersion: VIEWER_PROTOCOL_VERSION, clientKind: 'script', readOnly: options.readOnly ?? false });
    await waitFor(() => viewer.boot, { what: 'WELCOME' });
    return viewer;
  }

  send(frame: FrameFromViewer): void {
    this.ws.send(encodeFrameToServer(frame));
  }

  sendRaw(bytes: Uint8Array): void {
    this.ws.send(bytes);
  }

  subscribe(sessionId: string, options: { channel?: number; cols?: number; rows?: number; resume?: ResumePoint } = {}): void {
    this.send({
      type: 'subscribe',
      channel: options.channel ?? 1,
      sessionId,
      cols: options.cols ?? 80,
      rows: options.rows ?? 24,
      ...(options.resume ? { resume: options.resume } : {}),
    });
  }

  /** The first frame of a type after index `from`. */
  async next<T extends FrameFromServer['type']>(type: T, from = 0, timeoutMs = 30_000): Promise<Extract<FrameFromServer, { type: T }>> {
    return waitFor(() => this.frames.slice(from).find((f) => f.type === type) as Extract<FrameFromServer, { type: T }> | undefined, {
      what: `a ${type} frame`,
      timeoutMs,
      describe: () => `frames: ${this.frames.map((f) => f.type).join(' ')}`,
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

/**
 * The sockets a process has open, from /proc: the native viewer has its
 * server's, and the holder's while it types straight to it (INPUT_ROUTE).
 */
export function socketCount(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed while listed
    }
  }
  return n;
}

/** Bytes a process has written with write(2) and the like, from /proc: how a test sees the attach hand bytes to its socket. */
export function bytesWritten(pid: number): number {
  const m = /^wchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  if (!m) throw new Error(`no wchar in /proc/${pid}/io`);
  return Number(m[1]);
}
